#!/bin/sh
# fetch-wireshark-private-headers.sh - obtain wiretap/wtap-int.h and wsutil/file_util.h from the
# Debian source package of the exact Wireshark version installed, for building the etlshark
# file-reader plugin.  Called by cmake/FetchWiresharkPrivateHeaders.cmake (read the comment
# there for why this exists); can also be run by hand.
#
# usage: fetch-wireshark-private-headers.sh [--suite SUITE [--mirror URI] [--keyring FILE]]
#                                          SOURCE_PACKAGE VERSION OUT_DIR WORK_DIR
#   SOURCE_PACKAGE  Debian source package name (wireshark)
#   VERSION         exact Debian version (e.g. 4.0.17-0+deb12u3)
#   OUT_DIR         receives wiretap/wtap-int.h, wsutil/file_util.h and a VERSION stamp
#   WORK_DIR        scratch space (emptied and removed at the end)
#   --suite SUITE   take the source package from this suite of the Debian archive (e.g. trixie)
#                   instead of the system's own suites: for the headers of a Wireshark version
#                   that is not the installed one (tests/plugin/compat-check.sh uses this).
#   --mirror URI    archive for --suite (default http://deb.debian.org/debian; component main)
#   --keyring FILE  keyring the --suite entry is verified with (default: Debian's archive
#                   keyring, /usr/share/keyrings/debian-archive-keyring.gpg, when present;
#                   otherwise apt's trusted keys)
#
# ETLSHARK_APT_SOURCES=FILE (environment): use this one-line-format source list (deb-src
# lines) instead of the system's entries; e.g. a private mirror.  The degraded-build test points
# it at an address that serves nothing.
#
# Nothing on the system is changed: apt runs with a private configuration rooted in WORK_DIR
# whose source list is the system's own `deb` entries turned into `deb-src` entries (same
# mirrors, same suites, same signing keys), or with --suite the one `deb-src` entry for that
# suite, so the download is verified like any apt download.  Works as root or as an ordinary
# user.
set -eu

suite=
mirror=http://deb.debian.org/debian
keyring=
while [ $# -gt 0 ]; do
    case $1 in
        --suite) suite=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --keyring) keyring=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "fetch-wireshark-private-headers: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -ne 4 ]; then
    echo "usage: $0 [--suite SUITE [--mirror URI] [--keyring FILE]] SOURCE_PACKAGE VERSION OUT_DIR WORK_DIR" >&2
    exit 2
fi
if [ -z "$keyring" ] && [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
fi

pkg=$1
version=$2
out=$3
work=$4

headers="wiretap/wtap-int.h wsutil/file_util.h"

say() { echo "fetch-wireshark-private-headers: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

for tool in apt-get dpkg-source tar; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is not installed (apt-get install apt dpkg-dev tar)"
done

rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" \
         "$work/apt/sources.list.d" "$work/apt/preferences.d" "$work/dl"

# --- 1. private source list: every configured `deb` entry as a `deb-src` entry, or the one
#        suite asked for ------------------------------------------------------------------------
srcs="$work/apt/sources.list.d"
oneline="$work/apt/sources.list"   # outside $srcs, or apt would read it twice
: > "$oneline"
if [ -n "${ETLSHARK_APT_SOURCES:-}" ]; then
    cp "$ETLSHARK_APT_SOURCES" "$oneline" || die "cannot read ETLSHARK_APT_SOURCES=$ETLSHARK_APT_SOURCES"
    say "source entries: $ETLSHARK_APT_SOURCES"
elif [ -n "$suite" ]; then
    opts=
    [ -z "$keyring" ] || opts="[signed-by=$keyring] "
    echo "deb-src $opts$mirror $suite main" > "$oneline"
    say "source entry: deb-src $opts$mirror $suite main"
else
    n=0
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        # deb822: rewrite each stanza's Types line to exactly deb-src (keeps URIs, Suites,
        # Components, Signed-By); stanzas are separated by blank lines, so this is line-local.
        sed -e 's/^[Tt]ypes:.*/Types: deb-src/' "$f" > "$srcs/etlshark-$n.sources"
        n=$((n + 1))
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        # one-line format: "deb [opts] uri suite comps" -> "deb-src [opts] uri suite comps"
        sed -n -e 's/^[[:space:]]*deb\(-src\)\{0,1\}[[:space:]]/deb-src /p' "$f" >> "$oneline"
    done
    sort -u -o "$oneline" "$oneline"
fi

set -- \
    -o "Dir::Etc::SourceList=$oneline" \
    -o "Dir::Etc::SourceParts=$srcs" \
    -o "Dir::Etc::Preferences=/dev/null" \
    -o "Dir::Etc::PreferencesParts=$work/apt/preferences.d" \
    -o "Dir::State::Lists=$work/apt/lists" \
    -o "Dir::Cache=$work/apt/cache" \
    -o "Dir::Cache::pkgcache=" \
    -o "Dir::Cache::srcpkgcache=" \
    -o "Acquire::Languages=none" \
    -o "Acquire::http::Timeout=30" \
    -o "Acquire::https::Timeout=30" \
    -o "Acquire::Retries=1" \
    -o "Debug::NoLocking=1"
if [ "$(id -u)" = 0 ]; then
    # apt drops to the _apt user for downloads; that user cannot write into a build tree.
    set -- "$@" -o "APT::Sandbox::User=root"
fi

# --- 2. index the source packages, download the exact version ------------------------------
say "downloading source package index (private apt configuration in $work/apt)"
apt-get "$@" -q update >"$work/apt-update.log" 2>&1 ||
    { cat "$work/apt-update.log" >&2; die "apt-get update of the deb-src entries failed"; }
say "downloading $pkg=$version source package"
(cd "$work/dl" && apt-get "$@" -q source --download-only "$pkg=$version") >"$work/apt-source.log" 2>&1 || {
    cat "$work/apt-source.log" >&2
    say "versions of $pkg these entries offer: $(apt-cache "$@" showsrc "$pkg" 2>/dev/null |
        sed -n 's/^Version: //p' | tr '\n' ' ')"
    die "apt-get source --download-only $pkg=$version failed: $(grep '^E:' "$work/apt-source.log" | head -n 1 | cut -c4-)"
}

dsc=$(ls "$work"/dl/*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || die "no .dsc was downloaded"

# --- 3. unpack (with Debian's patches applied) and copy the two headers ---------------------
say "unpacking $(basename "$dsc")"
dpkg-source --no-check -x "$dsc" "$work/src" >"$work/dpkg-source.log" 2>&1 ||
    { cat "$work/dpkg-source.log" >&2; die "dpkg-source -x failed"; }

for h in $headers; do
    [ -f "$work/src/$h" ] || die "$h is not in the $pkg $version source"
    mkdir -p "$out/$(dirname "$h")"
    cp "$work/src/$h" "$out/$h"
done
echo "$pkg $version" > "$out/VERSION"

rm -rf "$work"
say "headers of $pkg $version are in $out"
