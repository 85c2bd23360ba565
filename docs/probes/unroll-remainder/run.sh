#!/usr/bin/env bash
# The `-unroll-remainder` probe on a GPU (README.md): builds harness.cu (driver
# API), assembles the flagged module with ptxas at -O0..-O3 (and the default at
# -O1/-O3), and runs `exclusive_scan` cooperatively from each module.
#
#   bash docs/probes/unroll-remainder/run.sh OUT_DIR
#
# Needs nvcc + ptxas (CUDA 13) and a GPU; no Rust. Prints to stdout and to
# OUT_DIR/unroll-remainder.log. Under 60 s: a budget of 55 s in all, each run
# under `timeout` (at most 50 s, less when the budget is short), and the
# harness gives up on a launch after 5 s.
#   NVCC=..., PTXAS=... override the tools; NO_GPU=1 only builds (a dry run).
set -u -o pipefail
OUT=${1:?usage: run.sh OUT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
LOG=$OUT/unroll-remainder.log

main() {
    local start=$SECONDS budget=${BUDGET:-80}
    left() { echo $((budget - (SECONDS - start))); }
    W=$(mktemp -d /tmp/unroll-remainder.XXXXXX)
    NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    PTXAS=${PTXAS:-$(dirname "$NVCC")/ptxas}
    [ -x "$PTXAS" ] || PTXAS=$(command -v ptxas || echo ptxas)
    echo "== unroll-remainder probe, $(date -u +%FT%TZ) on $(hostname)"
    if command -v nvidia-smi >/dev/null; then
        echo "gpu: $(timeout 5 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
    fi
    echo "nvcc: $NVCC ($("$NVCC" --version 2>&1 | grep -o "V[0-9][0-9.]*" | head -1))"
    echo "ptxas: $PTXAS ($("$PTXAS" --version 2>&1 | grep -o "V[0-9][0-9.]*" | head -1); offline build here: V13.0.88)"

    # 1. The harness: host C++ only (-x c++), linked with the driver library.
    local cudadir; cudadir=$(cd "$(dirname "$NVCC")/.." && pwd)
    if ! "$NVCC" -x c++ -O2 -std=c++17 -cudart none -o "$W/harness" "$HERE/harness.cu" -lcuda 2>"$W/nvcc.err"; then
        echo "nvcc: retrying against the driver stub ($cudadir/lib64/stubs)"
        "$NVCC" -x c++ -O2 -std=c++17 -cudart none -o "$W/harness" "$HERE/harness.cu" \
            -L"$cudadir/lib64/stubs" -L"$cudadir/lib/stubs" -lcuda 2>>"$W/nvcc.err" \
            || { echo "BUILD FAILED:"; cat "$W/nvcc.err"; return 1; }
    fi
    "$W/harness" --cpu-selftest || echo "WARNING: the CPU reference does not reproduce the bench's"

    # 2. The modules: the two PTX modules whole, and cubins by the device's ptxas.
    local D=$HERE/module-default.ptx R=$HERE/module-unroll-remainder.ptx
    echo "sha256 (README lists the expected): $(sha256sum "$D" "$R" | awk '{printf "%s %s  ", substr($1,1,16), $2}' | sed "s#$HERE/##g")"
    local runs=() o
    runs+=("rem-jit:$R" "default-jit:$D")
    # The modules after the fix (one `redux.sync` a block reduction), when present.
    local FD=$HERE/module-fixed-default.ptx FR=$HERE/module-fixed-unroll-remainder.ptx
    [ -f "$FR" ] && runs+=("fixed-rem-jit:$FR")
    [ -f "$FD" ] && runs+=("fixed-default-jit:$FD")
    for o in 3 0 1 2; do
        "$PTXAS" -arch=sm_90 -O$o "$R" -o "$W/rem-O$o.cubin" 2>"$W/ptxas.err" \
            && runs+=("rem-ptxas-O$o:$W/rem-O$o.cubin") || { echo "ptxas -O$o (rem) failed:"; cat "$W/ptxas.err"; }
    done
    for o in 3 1; do
        "$PTXAS" -arch=sm_90 -O$o "$D" -o "$W/default-O$o.cubin" 2>"$W/ptxas.err" \
            && runs+=("default-ptxas-O$o:$W/default-O$o.cubin") || { echo "ptxas -O$o (default) failed:"; cat "$W/ptxas.err"; }
    done
    echo "cubins (sha256 prefix; the README lists this machine's): $(cd "$W" && sha256sum *.cubin | awk '{printf "%s=%s ", $2, substr($1,1,16)}')"
    echo "build took $((SECONDS - start)) s"
    if [ "${NO_GPU:-0}" = 1 ]; then echo "NO_GPU=1: not running"; return 0; fi

    # 3. One process a module, each under a watchdog.
    local r label file t rc
    for r in "${runs[@]}"; do
        label=${r%%:*}; file=${r#*:}
        t=$(left); [ "$t" -gt 50 ] && t=50
        if [ "$t" -lt 4 ]; then echo "== $label: SKIPPED (time budget spent)"; continue; fi
        echo "== $label ($(basename "$file"))"
        timeout -k 2 "$t" "$W/harness" "$label" "$file"
        rc=$?
        case $rc in
            0) ;; 1) echo "  (exit 1: wrong results)" ;;
            124|137) echo "  TIMEOUT: killed after $t s" ;;
            *) echo "  (exit $rc)" ;;
        esac
    done
    echo "== done in $((SECONDS - start)) s"
    rm -rf "$W"
}

main 2>&1 | tee "$LOG"
