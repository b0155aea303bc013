#!/bin/sh
# The project's test command (README, .ci/run): installs what is missing, then
#   1. builds with warnings as errors and runs every test (ctest),
#   2. builds again with AddressSanitizer + UndefinedBehaviorSanitizer and runs the decoder's
#      tests over the whole real corpus,
#   3. builds the libFuzzer targets with clang and fuzzes the reader, LZXpress, TraceLogging
#      decoding, the manifest reader and classic kernel event decoding for a bounded time each,
#      seeded with the real captures and the project's own,
#   4. builds etlshark inside Debian roots against Wireshark 4.4 (trixie) and 4.6 (sid) and runs
#      the tshark suite there (tests/versions/run-version.sh; the roots are cached under
#      /var/cache/etlshark/roots; skipped, saying why, when not root or the archive is out of
#      reach).  ETLSHARK_VERSIONS="trixie sid" by default; empty leaves this step out.  The
#      references come from the host first: its decoded values of every capture, and every
#      capture as a pcapng of ETW frames with its values (read there by the dissector alone).
# It ends with one "N passed, N failed" line over all four, and the tshark suite's counts on each
# Wireshark version.
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
    last_ctest_out=$out
    if ! counts=$(echo "$out" | sh tests/ctest-counts.sh); then
        total_fail=$((total_fail + 1))
        return
    fi
    set -- $counts
    total_pass=$((total_pass + $1))
    total_fail=$((total_fail + $2))
    total_skip=$((total_skip + $3))
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

# The tshark suite on the host's Wireshark (4.0 on Debian 12): the plugin_* tests of step 1.
host_ws=$(tshark --version 2>/dev/null | sed -n '1s/.*Wireshark) \([0-9.]*[0-9]\).*/\1/p')
versions_summary=""
if [ -n "${last_ctest_out:-}" ]; then
    p=$(echo "$last_ctest_out" | grep -E 'Test +#[0-9]+: plugin_' | grep -c ' Passed ' || true)
    s=$(echo "$last_ctest_out" | grep -E 'Test +#[0-9]+: plugin_' | grep -c 'Skipped' || true)
    f=$(echo "$last_ctest_out" | grep -E 'Test +#[0-9]+: plugin_' | grep -Ec 'Failed|Timeout|Exception|Not Run' || true)
    versions_summary="${host_ws:-host} (host): $p passed, $f failed, $s skipped"
fi
last_ctest_out=""

echo "== 2. decoder tests under AddressSanitizer and UndefinedBehaviorSanitizer"
mkdir -p build-asan
build build-asan -DETLSHARK_WERROR=ON -DETLSHARK_SANITIZE=ON -DETLSHARK_PLUGINS=OFF &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest build-asan -E '^plugin\.'

echo "== 3. fuzzing (${FUZZ_SECONDS}s per target)"
mkdir -p build-fuzz
CC=clang build build-fuzz -DETLSHARK_FUZZ=ON -DETLSHARK_PLUGINS=OFF -DETLSHARK_FUZZ_SECONDS="$FUZZ_SECONDS" &&
    run_ctest build-fuzz -R '^fuzz\.'

echo "== 4. the tshark suite on Wireshark 4.4 and 4.6 (Debian roots)"
VERSIONS=${ETLSHARK_VERSIONS-trixie sid}
values_ref=""
pcapng_ref=""
if [ -n "$VERSIONS" ] && [ -f build/plugins/*/wiretap/etl_reader.so ]; then
    # The decoded values on the host's Wireshark, which every version must equal.
    values_ref=$(pwd)/build/values-host.json
    if ! timeout 1800 nice python3 tests/versions/values.py dump --plugins build/plugins \
            --captures "$SHARED/captures" --manifests "$SHARED/manifests" --out "$values_ref"; then
        echo "values.py dump on the host failed: the versions' values are not compared"
        values_ref=""
    fi
    # Every capture as a pcapng of ETW frames (saved by the host's reader) and the host's values
    # of those files: what each version's dissector alone must equal (run-version.sh's
    # values-pcapng step; on 4.4, where the reader cannot be built, the only way its dissector
    # meets every capture).
    pcapng_ref=$(pwd)/build/pcapng-ref
    rm -rf "$pcapng_ref"
    if ! { timeout 1800 nice python3 tests/versions/values.py pcapng --plugins build/plugins \
                --captures "$SHARED/captures" --out "$pcapng_ref" &&
           timeout 1800 nice python3 tests/versions/values.py dump --user-dlt --plugins build/plugins \
                --captures "$pcapng_ref" --manifests "$SHARED/manifests" --out "$pcapng_ref/values.json"; }; then
        echo "values.py pcapng/dump --user-dlt on the host failed: no values-pcapng step in the versions"
        total_fail=$((total_fail + 1))
        pcapng_ref=""
    fi
fi
for suite in $VERSIONS; do
    out=$(timeout 5400 sh tests/versions/run-version.sh "$suite" --shared "$SHARED" \
          ${values_ref:+--values-ref "$values_ref"} ${pcapng_ref:+--pcapng-ref "$pcapng_ref"} 2>&1)
    echo "$out"
    line=$(echo "$out" | grep '^versions: ' | tail -1)
    if [ -z "$line" ]; then
        echo "tests/versions/run-version.sh $suite gave no summary (timeout?)"
        total_fail=$((total_fail + 1))
        versions_summary="$versions_summary; $suite: no result"
        continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\2/')
    s=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\3/')
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    total_skip=$((total_skip + s))
    versions_summary="$versions_summary; ${line#versions: }"
done

echo "tshark suite by Wireshark version: ${versions_summary#; }"
echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
