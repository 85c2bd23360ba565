# The closing line of scripts/test, from libtest's `test result:` lines
# (one per test binary) summed: `tests: P passed (S of them GPU tests on
# the simulator), F failed, K skipped, I ignored on purpose`. Variables:
# ignored_gpu, the ignored tests whose reason says what GPU they need;
# not_run, tests that passed after the notice GPU TEST NOT RUN (skipped,
# not passed); sim, the notices GPU TEST ON THE SIMULATOR.
/^test result:/ {
    for (i = 1; i < NF; i++) {
        if ($(i + 1) ~ /^passed/) passed += $i
        if ($(i + 1) ~ /^failed/) failed += $i
        if ($(i + 1) ~ /^ignored/) ignored += $i
    }
}
END {
    printf "tests: %d passed (%d of them GPU tests on the simulator), %d failed, %d skipped, %d ignored on purpose\n",
        passed - not_run, sim, failed, ignored_gpu + not_run, ignored - ignored_gpu
}
