#!/bin/sh
# make-root.sh - a Debian root (debootstrap --variant=minbase) with one suite's own Wireshark and
# what building and testing etlshark there needs, made once and cached outside the clone.
#
# usage: tests/versions/make-root.sh SUITE [CACHE_DIR]
#   SUITE      trixie (Wireshark 4.4) or sid (Wireshark 4.6), or any Debian suite
#   CACHE_DIR  default $ETLSHARK_ROOTS_CACHE, else /var/cache/etlshark/roots
# Prints the root's path on standard output.  The root is named <suite>-<hash of the package
# list, mirror and this script's version>, so a changed package list makes a new root and the
# old one is left to be removed by hand.  A root is complete only when its .etlshark-ready stamp
# exists (an interrupted debootstrap is thrown away and started again).
#
# The mirror is the one this machine's apt uses (first URIs: of /etc/apt/sources.list.d/*.sources
# or the first deb line of /etc/apt/sources.list), else http://deb.debian.org/debian; override
# with ETLSHARK_DEBIAN_MIRROR.  Exit status: 0 ready; 3 the archive cannot be reached (the
# caller skips); 1 any other failure.  Needs root (debootstrap, chroot).
set -eu
suite=${1:?usage: make-root.sh SUITE [CACHE_DIR]}
cache=${2:-${ETLSHARK_ROOTS_CACHE:-/var/cache/etlshark/roots}}
say() { echo "make-root: $*" >&2; }

# What the root holds: the suite's Wireshark (tshark, capinfos, development files), a C
# toolchain, CMake, GLib, Python for tests/plugin/test_plugin.py, passwd for the test user, and
# what the reader's header download needs (dpkg-source and the tarballs' decompressors), so that
# a suite whose source package is not served shows the real failure, not a missing tool.
PKGS="tshark wireshark-dev libwireshark-dev libwiretap-dev cmake gcc libc6-dev make pkg-config
libglib2.0-dev python3 passwd util-linux dpkg-dev bzip2 xz-utils"
ROOT_FORMAT=2   # bump when the way a root is made changes

mirror_of_system() {
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        u=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$f" | grep '/debian$' | head -n 1)
        [ -n "$u" ] && { echo "$u"; return; }
    done
    if [ -f /etc/apt/sources.list ]; then
        u=$(sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\/debian\)[[:space:]].*/\2/p' \
            /etc/apt/sources.list | head -n 1)
        [ -n "$u" ] && { echo "$u"; return; }
    fi
    echo http://deb.debian.org/debian
}
mirror=${ETLSHARK_DEBIAN_MIRROR:-$(mirror_of_system)}

[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot)"; exit 1; }
command -v debootstrap >/dev/null 2>&1 || { say "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }

hash=$(printf '%s\n' "$ROOT_FORMAT" "$suite" "$mirror" $PKGS | sha256sum | cut -c1-12)
root="$cache/$suite-$hash"
if [ -f "$root/.etlshark-ready" ]; then
    echo "$root"
    exit 0
fi

# Reachable at all?  (A bounded probe, so an offline machine skips in seconds.)
if command -v curl >/dev/null 2>&1; then
    if ! curl -fsS --max-time 20 -o /dev/null "$mirror/dists/$suite/Release" 2>/dev/null; then
        say "cannot reach $mirror/dists/$suite/Release"
        exit 3
    fi
fi

mkdir -p "$cache"
exec 9>"$cache/.$suite-$hash.lock"
flock 9
if [ -f "$root/.etlshark-ready" ]; then echo "$root"; exit 0; fi
rm -rf "$root" "$root.tmp"
log="$cache/$suite-$hash.log"
# debootstrap only makes the base system; apt inside the root installs the packages, because
# debootstrap's own resolver does not follow virtual packages (sid's libfalcosecurity depends on
# one, provided by libre2) and leaves such a root half configured.
say "debootstrap --variant=minbase $suite from $mirror into $root (once)"
if ! timeout 1800 debootstrap --variant=minbase "$suite" "$root.tmp" "$mirror" >"$log" 2>&1 ||
   ! { cp /etc/resolv.conf "$root.tmp/etc/resolv.conf" 2>/dev/null || true
       say "apt-get install in the root: $(echo $PKGS)"
       # Valid-Until off: a mirror may be a snapshot whose Release (sid's) has expired.
       timeout 1800 chroot "$root.tmp" sh -c 'apt-get -o Acquire::Check-Valid-Until=false update -q &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" &&
           apt-get clean' sh $PKGS >>"$log" 2>&1; }; then
    tail -n 20 "$cache/$suite-$hash.log" >&2
    rm -rf "$root.tmp"
    if grep -qiE 'Failed getting release file|Couldn.t download|Temporary failure|timed out|Failed to fetch' \
            "$log"; then
        exit 3
    fi
    exit 1
fi
# The unprivileged user the tshark tests run as (Wireshark ignores WIRESHARK_PLUGIN_DIR for root).
chroot "$root.tmp" sh -c 'id etlsharktest >/dev/null 2>&1 || useradd -m etlsharktest'
chroot "$root.tmp" dpkg-query -W -f='${Package} ${Version}\n' tshark libwiretap-dev > "$root.tmp/.etlshark-packages"
touch "$root.tmp/.etlshark-ready"
mv "$root.tmp" "$root"
echo "$root"
