#!/usr/bin/env bash
# One call's worth of GPU verification: build, full test suite, compute-sanitizer
# (memory-access errors and races; the API errors that tests provoke on purpose
# are not counted) over chosen tests, the raw-CUDA floor (limits.cu, if given) and the benchmarks.
# Logs go to $OUT (or ./out). Usage:
#   bash bench/gpu_check.sh [--sanitize "tests/test_x.py"] [--limits path/limits.cu] [--bench "runtime stream"]
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-out}; mkdir -p "$OUT"
SANITIZE=""; LIMITS=""; BENCH=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) SANITIZE="$2"; shift 2 ;;
    --limits) LIMITS="$2"; shift 2 ;;
    --bench) BENCH="$2"; shift 2 ;;
    *) echo "unknown argument $1"; exit 2 ;;
  esac
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
t0=$(date +%s)
python3 -m pip install -q --no-build-isolation --no-deps -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=${ARCH:-90} -Cbuild-dir=build . > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
# The GPU machine has no network: the notebook test's Jupyter packages come as wheels
# carried in .shared/wheels (pip download ... nbclient nbformat ipykernel), when present.
if [ -d .shared/wheels ]; then
  python3 -m pip install -q --no-index --find-links .shared/wheels nbclient nbformat ipykernel \
    > "$OUT/wheels.log" 2>&1 && echo "jupyter wheels installed" || tail -5 "$OUT/wheels.log"
fi
python3 -m pytest -q -p no:cacheprovider -rfEs > "$OUT/pytest.log" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -30
echo "pytest: $(tail -1 "$OUT/pytest.log")"
if [ -n "$SANITIZE" ]; then
  eval "sargs=($SANITIZE)"
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 99 --target-processes all \
      python3 -m pytest -q -p no:cacheprovider "${sargs[@]}" > "$OUT/sanitizer-$tool.log" 2>&1
    echo "compute-sanitizer $tool: rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-$tool.log" | sort | uniq -c | tr '\n' ' ') $(tail -1 "$OUT/sanitizer-$tool.log")"
  done
fi
if [ -n "$LIMITS" ]; then
  nvcc -O2 -arch=sm_90 "$LIMITS" -o /tmp/limits && /tmp/limits > "$OUT/limits.log" 2>&1
  cat "$OUT/limits.log"
fi
if [ -n "$BENCH" ]; then
  python3 bench/run.py $BENCH --json "$OUT" > "$OUT/bench.log" 2>&1
  sed -n '/^| what/,$p' "$OUT/bench.log"
fi
exit $rc
