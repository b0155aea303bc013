#!/bin/sh
# test_degraded_build.sh - the build without the file reader's private headers (issue 11).
#
# usage: tests/setup/test_degraded_build.sh SOURCE_DIR SCRATCH_DIR [CMAKE_ARGS...]
#
# Configures SOURCE_DIR in SCRATCH_DIR (emptied first) with the download of Wireshark's private
# headers pointed at an address that serves nothing (ETLSHARK_APT_SOURCES: a deb-src entry on a
# closed local port), as on a machine without deb-src access, and checks:
#   1. configure succeeds and says ONCE that the reader is left out, with how to get it
#      (deb-src, apt-get source, -DETLSHARK_WIRESHARK_SOURCE_DIR);
#   2. etldump and etl_dissector.so build, and there is no etl_reader target;
#   3. the plugin tests are registered and skip (77) saying why;
#   4. configuring again says it once again without downloading again;
#   5. -DETLSHARK_REQUIRE_READER=ON makes configure fail with the same explanation.
# Exit 0 when all hold, 1 otherwise, 77 when this Wireshark needs no private headers (4.6+,
# nothing can degrade) or the plugins are not configured at all.
set -u
src=$1
scratch=$2
shift 2
fails=0
ok() { echo "  ok   $*"; }
bad() { echo "  FAIL $*"; fails=$((fails + 1)); }
MSG='building WITHOUT the .etl file reader plugin'

rm -rf "$scratch"
mkdir -p "$scratch"
echo "deb-src http://127.0.0.1:9/debian bookworm main" > "$scratch/nothing.list"
export ETLSHARK_APT_SOURCES="$scratch/nothing.list"

echo "== configure with the private headers unobtainable"
start=$(date +%s)
cmake -S "$src" -B "$scratch/build" "$@" > "$scratch/configure.log" 2>&1
rc=$?
echo "   ($(($(date +%s) - start)) s)"
if grep -q 'etlshark plugins: etl_reader.so and etl_dissector.so' "$scratch/configure.log" &&
   ! grep -q 'fetching from Debian source package' "$scratch/configure.log"; then
    echo "SKIP: this Wireshark needs no private headers (installed or 4.6+), nothing can degrade"
    exit 77
fi
if grep -q 'Wireshark development files not found' "$scratch/configure.log"; then
    echo "SKIP: no Wireshark development files, the plugins are not configured"
    exit 77
fi
[ $rc -eq 0 ] && ok "configure succeeds" || { bad "configure failed (rc=$rc)"; cat "$scratch/configure.log"; exit 1; }
n=$(grep -c "$MSG" "$scratch/configure.log")
[ "$n" -eq 1 ] && ok "the reader's absence is said once" || bad "the reader's absence is said $n times"
for want in 'deb-src' 'apt-get source wireshark=' '-DETLSHARK_WIRESHARK_SOURCE_DIR=' 'failed:'; do
    grep -qF -- "$want" "$scratch/configure.log" && ok "the message names '$want'" ||
        bad "the message does not name '$want'"
done
grep -q 'etl_dissector.so only' "$scratch/configure.log" && ok "the summary says: dissector only" ||
    bad "the plugin summary does not say the reader is left out"

echo "== build"
if cmake --build "$scratch/build" -j"${ETLSHARK_JOBS:-2}" --target etldump etl_dissector \
        > "$scratch/build.log" 2>&1; then
    ok "etldump and etl_dissector build"
else
    tail -n 30 "$scratch/build.log"
    bad "etldump / etl_dissector do not build"
fi
[ -x "$scratch/build/cli/etldump" ] || [ -x "$(find "$scratch/build" -name etldump -type f | head -n 1)" ] &&
    ok "etldump exists" || bad "no etldump"
d=$(find "$scratch/build/plugins" -name etl_dissector.so 2>/dev/null | head -n 1)
[ -n "$d" ] && ok "etl_dissector.so exists ($d)" || bad "no etl_dissector.so"
r=$(find "$scratch/build" -name etl_reader.so 2>/dev/null | head -n 1)
[ -z "$r" ] && ok "no etl_reader.so" || bad "etl_reader.so was built: $r"
if cmake --build "$scratch/build" --target etl_reader > /dev/null 2>&1; then
    bad "there is an etl_reader target"
else
    ok "there is no etl_reader target"
fi

echo "== plugin tests skip"
out=$(cd "$scratch/build" && ctest -R '^plugin_open$' 2>&1)
echo "$out" | grep -q 'Skipped' && ok "plugin_open is skipped" || { echo "$out"; bad "plugin_open did not skip"; }
out=$(cd "$scratch/build" && ctest -R '^plugin_open$' -V 2>&1)
echo "$out" | grep -q 'SKIP.*etl_reader.so was not built' && ok "and says why" || bad "the skip does not say why"

echo "== configure again"
cmake "$scratch/build" > "$scratch/configure2.log" 2>&1 && ok "reconfigure succeeds" || bad "reconfigure failed"
n=$(grep -c "$MSG" "$scratch/configure2.log")
[ "$n" -eq 1 ] && ok "the reader's absence is said once again" || bad "said $n times on reconfigure"
grep -q 'fetching from Debian source package' "$scratch/configure2.log" &&
    bad "reconfigure downloads again" || ok "reconfigure does not download again"

echo "== packagers: -DETLSHARK_REQUIRE_READER=ON"
if cmake -S "$src" -B "$scratch/build-require" "$@" -DETLSHARK_REQUIRE_READER=ON \
        > "$scratch/configure-require.log" 2>&1; then
    bad "configure succeeded although the reader is required"
else
    ok "configure fails"
fi
grep -q 'ETLSHARK_REQUIRE_READER is ON, but' "$scratch/configure-require.log" &&
    ok "and says why" || bad "no explanation in the failing configure"

if [ $fails -eq 0 ]; then
    echo "degraded build: all checks passed"
    rm -rf "$scratch"
    exit 0
fi
echo "degraded build: $fails check(s) FAILED (logs in $scratch)"
exit 1
