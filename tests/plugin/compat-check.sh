#!/usr/bin/env bash
# compat-check.sh - compile the etlshark Wireshark plugins against the development headers of a
# Wireshark release other than the installed one, so that plugin/compat.h's branches for that
# release are really compiled (the installed Wireshark only ever exercises one branch).
#
# usage: tests/plugin/compat-check.sh VERSION_LABEL [options]
#   VERSION_LABEL   4.4 (headers of Debian trixie) or 4.6 (headers of Debian sid)
#
# What it does, for the release asked for:
#   1. indexes that Debian suite with a private apt configuration kept in the cache folder
#      (nothing on the system is read as package state or changed; /etc/apt is not touched);
#   2. downloads (`apt-get download`) the packages that hold the headers: libwireshark-dev,
#      libwiretap-dev, libwsutil-dev and wireshark-dev (ws_version.h, wireshark.h, config.h live
#      in libwsutil-dev / wireshark-dev) and extracts them with `dpkg-deb -x` (never installs);
#   3. when that release does not install wiretap/wtap-int.h and wsutil/file_util.h (4.4 and
#      older), takes them from the Debian source package of exactly the same version through
#      cmake/fetch-wireshark-private-headers.sh --suite (or from --wireshark-source DIR);
#   4. compiles plugin/etl_wiretap.c, etl_wiretap_dump.c and the dissector's sources (packet-etl.c, etl_event_data.c,
#      etl_fields.c, etl_process.c) to object files (no linking) with the real build's flags,
#      the extracted headers, the installed GLib and decoder/, and checks that no header of the
#      installed Wireshark slipped in.
# Downloads are cached in the cache folder and reused while the suite keeps the same version.
#
# options:
#   --cache DIR              cache folder (default: $ETLSHARK_COMPAT_CACHE, else
#                            ${TMPDIR:-/tmp}/etlshark-wireshark-compat); ctest passes
#                            <build>/wireshark-compat
#   --suite SUITE            Debian suite to take the headers from (default: by label)
#   --mirror URI             Debian archive (default http://deb.debian.org/debian)
#   --keyring FILE           keyring the suite is verified with (default: Debian's archive
#                            keyring when present, else apt's trusted keys)
#   --wireshark-source DIR   Wireshark source tree of the same version: take the private
#                            headers from it instead of downloading the source package
#   --offline                use only what the cache holds (no network)
#   --cc COMPILER            C compiler (default: $CC, else cc)
#   --reader-flags FILE      compile options and defines of the etl_reader target, one per
#   --dissector-flags FILE   line (tests/plugin/CMakeLists.txt generates them from the real
#                            targets); without them the defaults below, which mirror
#                            plugin/CMakeLists.txt and the top-level warning flags, are used
#   --only reader|dissector  check one plugin source; for the reader, when the private headers
#                            cannot be obtained the check is skipped (77) and says why, since
#                            the dissector needs no private header and is checked on its own
#
# exit status: 0 compiled cleanly; 1 a plugin source does not compile against these headers;
# 2 usage; 3 the headers could not be obtained (archive unreachable, version missing, ...);
# 77 this is not a Debian-based system (no apt-get / dpkg-deb), or (--only reader) the private
# headers of that version are not to be had: nothing could be checked.
set -euo pipefail

self=compat-check
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

say() { echo "$self: $*" >&2; }
fail() { local rc=$1; shift; say "ERROR: $*"; exit "$rc"; }
usage() { sed -n '/^# usage:/,/^# 77 /p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# ---- arguments -------------------------------------------------------------------------------
[ $# -ge 1 ] || usage
label=$1
shift
cache=${ETLSHARK_COMPAT_CACHE:-${TMPDIR:-/tmp}/etlshark-wireshark-compat}
suite=
mirror=http://deb.debian.org/debian
keyring=
ws_source=
offline=0
cc=${CC:-cc}
reader_flags=
dissector_flags=
only=
while [ $# -gt 0 ]; do
    case $1 in
        --cache) cache=$2; shift 2 ;;
        --suite) suite=$2; shift 2 ;;
        --mirror) mirror=$2; shift 2 ;;
        --keyring) keyring=$2; shift 2 ;;
        --wireshark-source) ws_source=$2; shift 2 ;;
        --offline) offline=1; shift ;;
        --cc) cc=$2; shift 2 ;;
        --reader-flags) reader_flags=$2; shift 2 ;;
        --dissector-flags) dissector_flags=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        -h|--help) usage ;;
        *) say "unknown argument: $1"; usage ;;
    esac
done

case $only in
    ""|reader|dissector) ;;
    *) fail 2 "--only takes 'reader' or 'dissector', not '$only'" ;;
esac
case $label in
    4.4) default_suite=trixie ;;
    4.6) default_suite=sid ;;
    *) fail 2 "unknown VERSION_LABEL '$label' (known: 4.4 = Debian trixie, 4.6 = Debian sid)" ;;
esac
suite=${suite:-$default_suite}
if [ -z "$keyring" ] && [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
fi

for tool in apt-get apt-cache dpkg-deb; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "SKIP: '$tool' is missing; this check needs a Debian-based system (apt, dpkg)"
        exit 77
    fi
done
command -v "$cc" >/dev/null 2>&1 || fail 2 "C compiler '$cc' not found"
command -v pkg-config >/dev/null 2>&1 || fail 2 "pkg-config not found (apt-get install pkg-config)"
glib_cflags=$(pkg-config --cflags glib-2.0) || fail 2 "GLib development files not found (apt-get install libglib2.0-dev)"

t_start=$(date +%s)
dir="$cache/$label"
mkdir -p "$dir"
cache=$(cd "$cache" && pwd)
dir="$cache/$label"

# One run per label and cache folder at a time (two runs would fight over the apt state).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$dir/.lock"
    flock 9
fi

packages="libwireshark-dev libwiretap-dev libwsutil-dev wireshark-dev"
entry="deb ${keyring:+[signed-by=$keyring] }$mirror $suite main"

# ---- 1. private apt configuration and index ------------------------------------------------
apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/preferences.d" \
         "$apt_dir/sources.list.d"
echo "$entry" > "$apt_dir/sources.list"
: > "$apt_dir/status"  # no installed packages: the suite's own versions are the candidates
apt_opts=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::State::status=$apt_dir/status"
    -o "Dir::Cache=$apt_dir/cache"
    -o "APT::Get::List-Cleanup=0"
    -o "Acquire::Languages=none"
    -o "Debug::NoLocking=1"
)
if [ "$(id -u)" = 0 ]; then
    # apt drops to the _apt user for downloads; that user cannot write into a build tree.
    apt_opts+=(-o "APT::Sandbox::User=root")
fi

unreachable() {
    # $1: log file of the failed apt step, $2: what failed
    say "----- apt output -----"
    sed 's/^/    /' "$1" >&2 || true
    say "----------------------"
    say "tried: private apt source entry '$entry'"
    say "       (apt configuration in $apt_dir; the system's apt.conf, e.g. a proxy, applies)"
    if [ -d "$dir/root" ]; then
        say "a previous run's headers are cached in $dir; --offline reuses them without the network"
    fi
    fail 3 "$2. The Wireshark $label compile check needs Debian's archive (suite $suite)."
}

if [ "$offline" = 0 ]; then
    say "indexing $suite from $mirror (private apt configuration in $apt_dir)"
    apt-get "${apt_opts[@]}" -q update >"$dir/apt-update.log" 2>&1 ||
        unreachable "$dir/apt-update.log" "apt-get update of '$entry' failed"
    # apt-get update succeeds with only warnings when a Release file cannot be fetched.
    if grep -Eq '^(W|E): .*(Failed to fetch|does not have a Release file|not signed|NO_PUBKEY)' \
            "$dir/apt-update.log"; then
        unreachable "$dir/apt-update.log" "the index of '$entry' could not be fetched or verified"
    fi
fi

# ---- 2. the -dev packages: download (cached) and extract ------------------------------------
debs="$dir/debs"
mkdir -p "$debs"
deb_of() { # newest cached .deb of package $1 with version $2 (empty when none)
    local f
    for f in "$debs/$1"_*.deb; do
        [ -f "$f" ] || continue
        if [ "$(dpkg-deb -f "$f" Version)" = "$2" ]; then
            echo "$f"
            return
        fi
    done
}

declare -A want_version=()
if [ "$offline" = 0 ]; then
    for p in $packages; do
        v=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$p" 2>/dev/null |
            awk '/^Version: / && v == "" { v = $2 } END { print v }' || true)
        [ -n "$v" ] || unreachable "$dir/apt-update.log" "$suite has no package $p"
        want_version[$p]=$v
    done
    missing=()
    for p in $packages; do
        [ -n "$(deb_of "$p" "${want_version[$p]}")" ] || missing+=("$p=${want_version[$p]}")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        say "downloading ${missing[*]}"
        (cd "$debs" && apt-get "${apt_opts[@]}" -q download "${missing[@]}") \
            >"$dir/apt-download.log" 2>&1 ||
            unreachable "$dir/apt-download.log" "apt-get download ${missing[*]} failed"
    else
        say "packages of $suite unchanged; using the cached .debs"
    fi
    # Keep only the wanted versions, so the cache does not grow with every Debian update.
    for f in "$debs"/*.deb; do
        [ -f "$f" ] || continue
        p=$(dpkg-deb -f "$f" Package)
        if [ "$(dpkg-deb -f "$f" Version)" != "${want_version[$p]:-}" ]; then rm -f "$f"; fi
    done
else
    for p in $packages; do
        f=$(ls -t "$debs/$p"_*.deb 2>/dev/null | head -n 1 || true)
        [ -n "$f" ] || fail 3 "--offline: no cached $p in $debs; run once with the network"
        want_version[$p]=$(dpkg-deb -f "$f" Version)
    done
fi

# All four must come from one source upload of Wireshark.
stamp=""
src_name=""
src_version=""
for p in $packages; do
    f=$(deb_of "$p" "${want_version[$p]}")
    [ -n "$f" ] || fail 3 "$p ${want_version[$p]} was not downloaded (see $dir/apt-download.log)"
    s=$(dpkg-deb -f "$f" Source)
    sn=${s%% *}
    sn=${sn:-$p}
    sv=$(printf '%s\n' "$s" | sed -n 's/^[^ ]* (\(.*\))$/\1/p')
    sv=${sv:-${want_version[$p]}}
    if [ -z "$src_name" ]; then
        src_name=$sn
        src_version=$sv
    elif [ "$sn $sv" != "$src_name $src_version" ]; then
        fail 3 "$suite mixes Wireshark uploads ($p is from $sn $sv, others from $src_name $src_version); retry later"
    fi
    stamp="$stamp$p=${want_version[$p]} "
done

root="$dir/root"
if [ "$(cat "$root/.etlshark-stamp" 2>/dev/null || true)" != "$stamp" ]; then
    say "extracting $stamp"
    rm -rf "$root"
    mkdir -p "$root"
    for p in $packages; do
        dpkg-deb -x "$(deb_of "$p" "${want_version[$p]}")" "$root"
    done
    echo "$stamp" > "$root/.etlshark-stamp"
fi
ws_inc="$root/usr/include/wireshark"
[ -f "$ws_inc/ws_version.h" ] || fail 3 "the packages of $suite hold no include/wireshark/ws_version.h"
ws_major=$(sed -n 's/^#define WIRESHARK_VERSION_MAJOR \([0-9]*\).*/\1/p' "$ws_inc/ws_version.h")
ws_minor=$(sed -n 's/^#define WIRESHARK_VERSION_MINOR \([0-9]*\).*/\1/p' "$ws_inc/ws_version.h")
ws_micro=$(sed -n 's/^#define WIRESHARK_VERSION_MICRO \([0-9]*\).*/\1/p' "$ws_inc/ws_version.h")
if [ "$ws_major.$ws_minor" != "$label" ]; then
    fail 3 "Debian $suite now ships Wireshark $ws_major.$ws_minor.$ws_micro, not $label: update the" \
        "suite of label $label in tests/plugin/compat-check.sh (or pass --suite)"
fi
say "headers: Wireshark $ws_major.$ws_minor.$ws_micro from Debian $suite ($src_name $src_version)"

# ---- 3. private headers of the file reader (releases without wiretap/wtap_module.h) ---------
priv_inc=""
private_headers="wiretap/wtap-int.h wsutil/file_util.h"
if [ "$only" != dissector ] && [ ! -f "$ws_inc/wiretap/wtap_module.h" ] &&
   { [ ! -f "$ws_inc/wiretap/wtap-int.h" ] || [ ! -f "$ws_inc/wsutil/file_util.h" ]; }; then
    if [ -n "$ws_source" ]; then
        priv_inc="$dir/private-headers/from-source-tree"
        rm -rf "$priv_inc"
        for h in $private_headers; do
            [ -f "$ws_source/$h" ] || fail 3 "--wireshark-source $ws_source has no $h"
            mkdir -p "$priv_inc/$(dirname "$h")"
            cp "$ws_source/$h" "$priv_inc/$h"
        done
        say "private headers: from $ws_source (must be Wireshark $ws_major.$ws_minor.$ws_micro)"
    else
        safe_version=$(printf '%s' "$src_version" | tr -c 'A-Za-z0-9.+_-' '_')
        priv_inc="$dir/private-headers/$src_name-$safe_version"
        if [ "$(cat "$priv_inc/VERSION" 2>/dev/null || true)" = "$src_name $src_version" ]; then
            say "private headers: cached in $priv_inc"
        elif [ "$offline" = 1 ]; then
            fail 3 "--offline: the private headers of $src_name $src_version are not cached in $priv_inc"
        else
            say "private headers: fetching $src_name=$src_version from the $suite sources (once)"
            rm -rf "$dir/private-headers"
            fetch_args=(--suite "$suite" --mirror "$mirror")
            [ -z "$keyring" ] || fetch_args+=(--keyring "$keyring")
            if ! sh "$repo/cmake/fetch-wireshark-private-headers.sh" "${fetch_args[@]}" \
                    "$src_name" "$src_version" "$priv_inc" "$dir/private-headers.work"; then
                rm -rf "$priv_inc"
                say "tried: deb-src ${keyring:+[signed-by=$keyring] }$mirror $suite main, source package $src_name=$src_version"
                if [ "$only" = reader ]; then
                    say "SKIP: the reader needs $private_headers of Wireshark $ws_major.$ws_minor.$ws_micro, which" \
                        "Debian installs only from 4.6 on and this archive does not serve the $src_name=$src_version" \
                        "source package; the dissector is checked against these headers by its own test." \
                        "To check the reader, pass a source tree: -DETLSHARK_COMPAT_${label/./_}_WIRESHARK_SOURCE_DIR=DIR"
                    exit 77
                fi
                fail 3 "could not obtain $private_headers of Wireshark $ws_major.$ws_minor.$ws_micro" \
                    "(Debian does not install them before 4.6; they come from the source package)." \
                    "With an unpacked Wireshark $ws_major.$ws_minor.$ws_micro source tree, pass" \
                    "--wireshark-source DIR (CMake: -DETLSHARK_COMPAT_${label/./_}_WIRESHARK_SOURCE_DIR=DIR)."
            fi
        fi
    fi
fi

# ---- 4. compile -----------------------------------------------------------------------------
# Defaults, used when no flags file is given: plugin/CMakeLists.txt (hidden visibility, the three
# defines, -Wall -Wextra -Wno-unused-parameter) plus the top-level warning flags.
default_flags=(
    -std=gnu11 -fvisibility=hidden
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 -Wvla -Werror -Wall -Wextra
    -Wno-unused-parameter
    -DWS_BUILD_DLL '-DWS_LOG_DOMAIN="etlshark"' '-DPLUGIN_VERSION="0.1.0"'
)
read_flags() { # $1: flags file (one argument per line) -> FLAGS array
    FLAGS=()
    if [ -z "$1" ]; then
        FLAGS=("${default_flags[@]}")
        return
    fi
    [ -f "$1" ] || fail 2 "flags file $1 does not exist (configure the build first)"
    local line
    while IFS= read -r line || [ -n "$line" ]; do
        [ -z "$line" ] || FLAGS+=("$line")
    done < "$1"
}

# GLib comes from the system, as an imported (system) include directory in the real build.
glib=()
for f in $glib_cflags; do
    case $f in
        -I*) glib+=(-isystem "${f#-I}") ;;
        *) glib+=("$f") ;;
    esac
done

obj="$dir/obj"
rm -rf "$obj"
mkdir -p "$obj"
# Always: position-independent like a MODULE, optimised like the default build type (some
# warnings only appear with the optimiser), and warnings are errors whatever the build says.
common=(-c -fPIC -O2 -g -Werror)

compile() { # $1 source, $2 flags file, rest: include arguments
    local src=$1 ff=$2 base
    shift 2
    base=$(basename "$src" .c)
    read_flags "$ff"
    local cmd=("$cc" "${common[@]}" "${FLAGS[@]}" "$@" "${glib[@]}"
               -MD -MF "$obj/$base.d" -o "$obj/$base.o" "$repo/plugin/$src")
    printf '%q ' "${cmd[@]}" > "$obj/$base.cmd"
    echo >> "$obj/$base.cmd"
    if ! "${cmd[@]}" > "$obj/$base.log" 2>&1; then
        cat "$obj/$base.log" >&2
        say "command: $(cat "$obj/$base.cmd")"
        say "FAILED: plugin/$src does not compile against Wireshark $ws_major.$ws_minor.$ws_micro" \
            "(Debian $suite, $src_name $src_version): fix plugin/compat.h"
        return 1
    fi
    [ ! -s "$obj/$base.log" ] || cat "$obj/$base.log" >&2
    # The installed Wireshark's headers must not have been used instead of the extracted ones.
    # (One path per line into a file first: `grep -q` in a pipe trips pipefail.)
    tr ' \\' '\n\n' < "$obj/$base.d" | sed '/^$/d' > "$obj/$base.deps"
    if grep -q '^/usr/include/wireshark/' "$obj/$base.deps"; then
        grep '^/usr/include/wireshark/' "$obj/$base.deps" | head -n 5 >&2 || true
        say "FAILED: plugin/$src picked up headers of the installed Wireshark (above)"
        return 1
    fi
    # A source that includes no Wireshark header at all (etl_packet_len.c) has nothing to check.
    if grep -qF "$ws_inc/" "$obj/$base.deps" && ! grep -qxF "$ws_inc/ws_version.h" "$obj/$base.deps"; then
        say "FAILED: plugin/$src did not include $ws_inc/ws_version.h"
        return 1
    fi
    say "ok: plugin/$src"
}

rc=0
# Every source of a plugin target, as plugin/CMakeLists.txt lists it (etlshark_plugin(TARGET KIND
# a.c b.c ...), possibly over several lines): a file added there is checked here too.
plugin_sources() {
    awk -v t="$1" '
        $0 ~ "etlshark_plugin\\(" t " " { on = 1 }
        on { for (i = 1; i <= NF; i++) if ($i ~ /\.c\)?$/) { f = $i; sub(/\)$/, "", f); print f }
             if ($0 ~ /\)/) on = 0 }' "$repo/plugin/CMakeLists.txt"
}
# Include directories in the order the real targets have them (plugin/CMakeLists.txt): the
# reader names the Wireshark folders itself (-I, private headers first), the dissector gets them
# from the imported epan target (system include).
reader_private=()
[ -z "$priv_inc" ] || reader_private=(-I"$priv_inc")
if [ "$only" != dissector ]; then
    for src in $(plugin_sources etl_reader); do
        compile "$src" "$reader_flags" "${reader_private[@]}" \
            -I"$repo/plugin" -I"$ws_inc" -I"$ws_inc/wiretap" -I"$repo/decoder/include" || rc=1
    done
fi
if [ "$only" != reader ]; then
    for src in $(plugin_sources etl_dissector); do
        compile "$src" "$dissector_flags" \
            -I"$repo/plugin" -I"$ws_inc/wiretap" -I"$repo/decoder/include" -isystem "$ws_inc" || rc=1
    done
fi

t_end=$(date +%s)
if [ $rc -ne 0 ]; then
    say "Wireshark $label compile check FAILED ($((t_end - t_start)) s); logs in $obj"
    exit 1
fi
say "Wireshark $label ($ws_major.$ws_minor.$ws_micro, Debian $suite) compile check passed" \
    "($((t_end - t_start)) s)"
