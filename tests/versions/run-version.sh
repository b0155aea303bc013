#!/bin/sh
# run-version.sh - build etlshark inside a Debian root against that suite's own Wireshark and run
# the tshark suite there (issue 11: Wireshark 4.4 and 4.6 end to end).
#
# usage: tests/versions/run-version.sh SUITE [--values-ref FILE] [--pcapng-ref DIR] [--shared DIR]
#   SUITE          trixie (Wireshark 4.4) or sid (Wireshark 4.6)
#   --values-ref   values.py dump of the host's Wireshark (4.0): the decoded values of every
#                  shared capture in the root must equal it (tests/versions/values.py)
#   --pcapng-ref   a folder made on the host (tests/run-all.sh): every non-empty shared capture
#                  as a pcapng of ETW frames (values.py pcapng: <capture>.pcapng, expected.json)
#                  and values.json, the host's `values.py dump --user-dlt` of them
#   --shared       the shared folder (captures/, goldens/, manifests/, wevt/, tmf/); default ../shared
#
# Steps, each counted as a test in the last line:
#   root       tests/versions/make-root.sh SUITE: the cached root (made once, ~1-2 min)
#   configure  a fresh copy of this tree and of the shared folder in <root>/srv/etlshark, cmake
#              there as root (warnings shown, not errors: the suite's gcc is newer).  Where the suite's Wireshark needs private
#              headers for the reader (4.4) and the archive serves no source package, the
#              degraded build is checked instead: configure succeeds, says once why the reader
#              is left out, and etldump and etl_dissector.so are built.
#   build      cmake --build; etldump and etl_dissector.so (and etl_reader.so unless degraded)
#   load       tshark -G plugins, as the unprivileged user: the plugins built are loaded
#   plugin_*   ctest -R '^plugin_' -E gui inside the root (tests/plugin/test_plugin.py runs the
#              tools as user etlsharktest, created in the root); without the reader they skip
#   values     with --values-ref: every capture's etl.* values equal the host's (values.py)
#   values-pcapng  with --pcapng-ref, where the reader is not built (4.4: it cannot be): the
#              suite's tshark reads the pcapng form of every capture with the dissector alone (a
#              plugin folder without the reader), one frame per record, and every capture's
#              etl.* values equal the host's reading of the same pcapngs.  Where the reader is
#              built, the values step compares the .etl files themselves.
# The last line is "versions: <label>: N passed, N failed, N skipped" (tests/run-all.sh adds it
# up).  Exit 0 when nothing failed, 77 when the root cannot be had (not root, no debootstrap,
# archive unreachable: said why), 1 otherwise.  Every step has a timeout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
suite=${1:?usage: run-version.sh SUITE [--values-ref FILE] [--pcapng-ref DIR] [--shared DIR]}
shift
values_ref=
pcapng_ref=
shared=$(cd "$repo/.." && pwd)/shared
while [ $# -gt 0 ]; do
    case $1 in
        --values-ref) values_ref=$2; shift 2 ;;
        --pcapng-ref) pcapng_ref=$(cd "$2" && pwd) || exit 2; shift 2 ;;
        --shared) shared=$2; shift 2 ;;
        *) echo "run-version: unknown argument $1" >&2; exit 2 ;;
    esac
done
case $suite in
    trixie) label=4.4 ;;
    sid) label=4.6 ;;
    *) label=$suite ;;
esac
JOBS=${ETLSHARK_JOBS:-$(nproc 2>/dev/null || echo 2)}
pass=0 fail=0 skip=0
ok() { echo "  ok   [$label] $*"; pass=$((pass + 1)); }
bad() { echo "  FAIL [$label] $*"; fail=$((fail + 1)); }
finish() {
    echo "versions: $label${ws_version:+ (Wireshark $ws_version, Debian $suite)}: $pass passed, $fail failed, $skip skipped"
    [ $fail -eq 0 ] || exit 1
    exit 0
}
skip_all() {
    echo "SKIP [$label]: $*"
    echo "versions: $label (Debian $suite): 0 passed, 0 failed, 1 skipped ($*)"
    exit 77
}
ws_version=

# --- root ---------------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || skip_all "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null 2>&1 || skip_all "debootstrap is not installed (apt-get install debootstrap)"
start=$(date +%s)
root=$(sh "$here/make-root.sh" "$suite")
rc=$?
case $rc in
    0) ok "root $root ($(($(date +%s) - start)) s)" ;;
    3) skip_all "the Debian archive cannot be reached for $suite" ;;
    *) bad "could not make the $suite root (see the log beside it)"; finish ;;
esac
ws_version=$(sed -n 's/^tshark \([0-9.]*\).*/\1/p' "$root/.etlshark-packages")

# --- a fresh copy of this tree and the shared folder ---------------------------------------------
srv="$root/srv/etlshark"
rm -rf "$srv"
mkdir -p "$srv/src" "$srv/shared"
# Everything but builds and git metadata (the copy is of the working tree, as tested).
(cd "$repo" && tar -cf - --exclude='./.git' --exclude='./build*' .) | (cd "$srv/src" && tar -xf -)
for d in captures goldens manifests wevt tmf; do
    [ -d "$shared/$d" ] && cp -RL "$shared/$d" "$srv/shared/$d"
done
chmod -R a+rX "$srv"

# /proc for the tools in the root (ctest, python's subprocess, tshark); always unmounted again.
mounted=
cleanup() { [ -z "$mounted" ] || umount "$root/proc" 2>/dev/null || umount -l "$root/proc" 2>/dev/null; }
trap cleanup EXIT INT TERM
if ! mountpoint -q "$root/proc" 2>/dev/null; then
    mount -t proc proc "$root/proc" && mounted=1
fi
inroot() { # run a command line as root inside the root, with a clean environment
    t=$1
    shift
    timeout "$t" chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
        HOME=/root LC_ALL=C.UTF-8 TZ=UTC /bin/sh -c "$*"
}

# --- configure and build --------------------------------------------------------------------------
log="$srv/configure.log"
# Warnings are not errors here: the suite's newer gcc warns where the host's does not (the
# host build and tests/plugin/compat-check.sh keep -Werror); they are counted and shown below.
if inroot 1200 "cmake -S /srv/etlshark/src -B /srv/etlshark/build -DETLSHARK_WERROR=OFF \
        -DETLSHARK_SHARED=/srv/etlshark/shared -DETLSHARK_COMPAT_CHECKS=OFF" >"$log" 2>&1; then
    ok "configure against Wireshark $ws_version"
else
    cat "$log"
    bad "configure against Wireshark $ws_version failed"
    finish
fi
reader=yes
if grep -q 'etl_dissector.so only' "$log"; then
    reader=no
    n=$(grep -c 'building WITHOUT the .etl file reader plugin' "$log")
    if [ "$n" -eq 1 ]; then
        ok "degraded build: the reader's absence is said once"
    else
        bad "degraded build: the reader's absence is said $n times"
    fi
    sed -n '/building WITHOUT/,/^-- /p' "$log" | sed 's/^/    /' | head -n 30
fi
if inroot 1800 "nice cmake --build /srv/etlshark/build -j$JOBS" >"$srv/build.log" 2>&1; then
    cc=$(inroot 60 "gcc -dumpfullversion" 2>/dev/null)
    n=$(grep -c 'warning:' "$srv/build.log")
    ok "build with gcc $cc ($n compiler warnings)"
    grep -A3 'warning:' "$srv/build.log" | head -n 40 | sed 's/^/    /'
    [ "$n" -le 10 ] || echo "    ... (all in $srv/build.log)"
else
    tail -n 60 "$srv/build.log"
    bad "build failed"
    finish
fi
plugins="$srv/build/plugins"
xy=$(ls "$plugins" 2>/dev/null | head -n 1)
for f in epan/etl_dissector.so; do
    [ -f "$plugins/$xy/$f" ] && ok "built $xy/$f" || bad "no $xy/$f"
done
[ -f "$srv/build/cli/etldump" ] || [ -n "$(find "$srv/build" -name etldump -type f)" ] &&
    ok "built etldump" || bad "no etldump"
if [ "$reader" = yes ]; then
    [ -f "$plugins/$xy/wiretap/etl_reader.so" ] && ok "built $xy/wiretap/etl_reader.so" ||
        bad "no $xy/wiretap/etl_reader.so"
else
    [ ! -f "$plugins/$xy/wiretap/etl_reader.so" ] && ok "no etl_reader.so in the degraded build" ||
        bad "etl_reader.so built although configure said it would not be"
fi

# --- the plugins load into this tshark -------------------------------------------------------------
chroot "$root" sh -c 'id etlsharktest >/dev/null 2>&1 || useradd -m etlsharktest'
out=$(inroot 300 "runuser -u etlsharktest -- env HOME=/tmp WIRESHARK_PLUGIN_DIR=/srv/etlshark/build/plugins tshark -G plugins" 2>&1)
echo "$out" | grep -q 'etl_dissector.so' && ok "tshark $ws_version loads etl_dissector.so" ||
    { echo "$out" | tail -n 5; bad "tshark $ws_version does not list etl_dissector.so"; }
if [ "$reader" = yes ]; then
    echo "$out" | grep -q 'etl_reader.so' && ok "tshark $ws_version loads etl_reader.so" ||
        bad "tshark $ws_version does not list etl_reader.so"
fi
out=$(inroot 300 "runuser -u etlsharktest -- env HOME=/tmp WIRESHARK_PLUGIN_DIR=/srv/etlshark/build/plugins tshark -G fields" 2>&1)
n=$(echo "$out" | grep -c "	etl\.")
[ "$n" -gt 20 ] && ok "the dissector registers its fields ($n etl.* fields)" ||
    bad "only $n etl.* fields in tshark -G fields"

# --- the tshark suite -------------------------------------------------------------------------------
start=$(date +%s)
out=$(inroot 3000 "cd /srv/etlshark/build && ctest -R '^plugin_' -E '^plugin_gui\$' --output-on-failure -j$JOBS" 2>&1)
echo "$out" | sed 's/^/    /'
if ! counts=$(echo "$out" | sh "$repo/tests/ctest-counts.sh"); then
    bad "ctest of the plugin tests gave no summary (timeout?)"
else
    set -- $counts
    pass=$((pass + $1))
    fail=$((fail + $2))
    skip=$((skip + $3))
    echo "  [$label] plugin tests: $1 passed, $2 failed, $3 skipped ($(($(date +%s) - start)) s)"
fi

# --- decoded values equal the host's ---------------------------------------------------------------
if [ -n "$values_ref" ] && [ "$reader" = yes ]; then
    start=$(date +%s)
    if inroot 2400 "nice python3 /srv/etlshark/src/tests/versions/values.py dump \
            --plugins /srv/etlshark/build/plugins --captures /srv/etlshark/shared/captures \
            --manifests /srv/etlshark/shared/manifests --out /srv/etlshark/values.json" \
            >"$srv/values-dump.log" 2>&1; then
        sed 's/^/    /' "$srv/values-dump.log"
        python3 "$here/values.py" compare "$values_ref" "$srv/values.json" >"$srv/values-compare.log" 2>&1
        grep -v '^  ok' "$srv/values-compare.log" | sed 's/^/    /'
        if grep -q 'all equal' "$srv/values-compare.log"; then
            ok "decoded values of every capture equal the host's ($(($(date +%s) - start)) s)"
        else
            bad "decoded values differ from the host's (above)"
        fi
    else
        sed 's/^/    /' "$srv/values-dump.log"
        bad "values.py dump failed in the root"
    fi
elif [ -n "$values_ref" ]; then
    echo "  skip [$label] decoded values: no file reader here, nothing opens the captures"
    skip=$((skip + 1))
fi

# --- the pcapng form of every capture, through the dissector alone ---------------------------------
if [ -n "$pcapng_ref" ] && [ "$reader" = yes ]; then
    echo "  note [$label] values-pcapng not run: the reader is built here, the values step reads the .etl files"
elif [ -n "$pcapng_ref" ]; then
    start=$(date +%s)
    # The plugins without the reader: only a file Wireshark opens by itself gets frames here.
    rm -rf "$srv/plugins-dissector" "$srv/pcapng"
    mkdir -p "$srv/plugins-dissector/$xy"
    cp -R "$plugins/$xy/epan" "$srv/plugins-dissector/$xy/epan"
    mkdir -p "$srv/pcapng"
    cp "$pcapng_ref"/*.pcapng "$pcapng_ref/expected.json" "$srv/pcapng/"
    chmod -R a+rX "$srv/plugins-dissector" "$srv/pcapng"
    want=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$pcapng_ref/expected.json")
    if inroot 2400 "nice python3 /srv/etlshark/src/tests/versions/values.py dump --user-dlt \
            --plugins /srv/etlshark/plugins-dissector --captures /srv/etlshark/pcapng \
            --manifests /srv/etlshark/shared/manifests --out /srv/etlshark/values-pcapng.json" \
            >"$srv/values-pcapng-dump.log" 2>&1; then
        sed 's/^/    /' "$srv/values-pcapng-dump.log"
        python3 "$here/values.py" compare "$pcapng_ref/values.json" "$srv/values-pcapng.json" \
            >"$srv/values-pcapng-compare.log" 2>&1
        grep -v '^  ok' "$srv/values-pcapng-compare.log" | sed 's/^/    /'
        # equal values, and on every capture of the reference (none left out)
        n=$(grep -c '^  ok ' "$srv/values-pcapng-compare.log")
        if grep -q 'all equal' "$srv/values-pcapng-compare.log" && [ "$n" -eq "$want" ] && [ "$n" -gt 0 ]; then
            ok "values-pcapng: the dissector alone reads the pcapng form of $n captures, values equal the host's ($(($(date +%s) - start)) s)"
        else
            bad "values-pcapng: $n of $want captures' values equal the host's (above)"
        fi
    else
        sed 's/^/    /' "$srv/values-pcapng-dump.log"
        bad "values-pcapng: values.py dump --user-dlt failed in the root"
    fi
fi
finish
