#!/usr/bin/env bash
# Offline: the SASS of both modules' exclusive_scan at ptxas -O0..-O3, and where
# each predicates its warp reduction (`@!P1 REDUX.SUM`). Writes DIR (default
# /tmp/unroll-remainder-sass): e-<module>-O<n>.sass, whole entries.
#   PTXAS=... NVDISASM=... bash docs/probes/unroll-remainder/sass.sh [DIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/bin
PTXAS=${PTXAS:-$BIN/ptxas} NVDISASM=${NVDISASM:-$BIN/nvdisasm}
D=${1:-/tmp/unroll-remainder-sass}; mkdir -p "$D"
for m in default unroll-remainder; do
    for o in 0 1 2 3; do
        "$PTXAS" -arch=sm_90 -O$o --entry exclusive_scan "$HERE/module-$m.ptx" -o "$D/e-$m-O$o.cubin"
        "$NVDISASM" -c "$D/e-$m-O$o.cubin" > "$D/e-$m-O$o.sass"
        echo "$m -O$o: $(grep -c . "$D/e-$m-O$o.sass") lines; REDUX: $(grep REDUX "$D/e-$m-O$o.sass" | awk '{printf "%s %s %s %s | ", $1, $2, $3, $4}')"
    done
done
