#!/bin/sh
# The project's test command (README, .ci/run): installs what is missing, then
#   1. builds with warnings as errors and runs every test (ctest),
#   2. builds again with AddressSanitizer + UndefinedBehaviorSanitizer and runs the decoder's
#      tests over the whole real corpus,
#   3. builds the libFuzzer targets with clang and fuzzes the reader, LZXpress, TraceLogging
#      decoding, the manifest reader and classic kernel event decoding for a bounded time each,
#      seeded with the real captures and the project's own.
# It ends with one "N passed, N failed" line over all three.
set -u
cd "$(dirname "$0")/.."
sh tests/install-deps.sh || { echo "dependency installation failed"; exit 1; }
SHARED=${ETLSHARK_SHARED:-$(cd .. && pwd)/shared}
FUZZ_SECONDS=${ETLSHARK_FUZZ_SECONDS:-60}
JOBS=$(nproc 2>/dev/null || echo 2)
total_pass=0
total_fail=0
total_skip=0

# Run ctest in a build dir and add its counts to the totals.
run_ctest() {
    dir=$1
    shift
    out=$(cd "$dir" && ctest --output-on-failure -j"$JOBS" "$@" 2>&1)
    echo "$out"
    line=$(echo "$out" | grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" | tail -1)
    if [ -z "$line" ]; then
        total_fail=$((total_fail + 1))
        return
    fi
    failed=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
    all=$(echo "$line" | sed -E 's/.* failed out of ([0-9]+).*/\1/')
    # ctest counts a skipped test (exit 77, e.g. a check whose inputs are not to be had) as
    # passed in its summary line; count it apart
    skipped=$(echo "$out" | grep -c '(Skipped)$' || true)
    total_pass=$((total_pass + all - failed - skipped))
    total_fail=$((total_fail + failed))
    total_skip=$((total_skip + skipped))
}

build() {
    dir=$1
    shift
    if ! cmake -S . -B "$dir" -DETLSHARK_SHARED="$SHARED" "$@" >"$dir.configure.log" 2>&1; then
        cat "$dir.configure.log"
        echo "configure of $dir failed"
        total_fail=$((total_fail + 1))
        return 1
    fi
    if ! cmake --build "$dir" -j"$JOBS" >"$dir.build.log" 2>&1; then
        cat "$dir.build.log"
        echo "build of $dir failed"
        total_fail=$((total_fail + 1))
        return 1
    fi
}

echo "== 1. build (warnings are errors) and all tests"
mkdir -p build
build build -DETLSHARK_WERROR=ON && run_ctest build

echo "== 2. decoder tests under AddressSanitizer and UndefinedBehaviorSanitizer"
mkdir -p build-asan
build build-asan -DETLSHARK_WERROR=ON -DETLSHARK_SANITIZE=ON -DETLSHARK_PLUGINS=OFF &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest build-asan -E '^plugin\.'

echo "== 3. fuzzing (${FUZZ_SECONDS}s per target)"
mkdir -p build-fuzz
CC=clang build build-fuzz -DETLSHARK_FUZZ=ON -DETLSHARK_PLUGINS=OFF -DETLSHARK_FUZZ_SECONDS="$FUZZ_SECONDS" &&
    run_ctest build-fuzz -R '^fuzz\.'

echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
