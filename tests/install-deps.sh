#!/bin/sh
# Install what building and testing etlshark needs on Debian 12 (and later), from Debian's
# packages only.  Runs apt-get as root, or through sudo for a normal user.  Quiet when every
# package is already there.
#
# Every name is one that Debian 12 and 13 both have (tests/setup/test_install.py checks them
# against the archive indexes at hand): no versioned LLVM package, the clang runtime
# (sanitizers, libFuzzer) is libclang-rt-dev, which follows the default clang's major version
# (14 on Debian 12, 19 on 13); the GUI is `wireshark` (on 12 it pulls in wireshark-qt; 13 has
# no wireshark-qt).  debootstrap makes the Debian 13 and sid roots the tshark suite runs in on
# Wireshark 4.4 and 4.6 (tests/versions/make-root.sh); without it those steps skip.
set -eu
PKGS="build-essential cmake pkg-config python3 libglib2.0-dev
      clang libclang-rt-dev
      tshark wireshark-dev libwireshark-dev libwiretap-dev dpkg-dev
      wireshark xvfb x11-utils xauth strace xdotool imagemagick debootstrap"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
# As root apt-get runs directly; a normal user goes through sudo, which must keep the
# environment variable below (sudo's -E). An empty "$SUDO -E" would run "-E" as the command.
if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    # tshark asks whether non-root users may capture; the answer does not matter here.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
