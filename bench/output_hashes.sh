#!/bin/sh
# output_hashes.sh - one line per (capture, mode): the sha256 of etldump's stdout, of its stderr,
# and its exit status, for every capture in ../shared/captures and captures/, every etlgen preset
# and the 1 M-record kernel trace, in seven modes.  Not a test: what a speed change must leave
# alone, checked by comparing two builds' lines (diff).  stdout and stderr are hashed apart:
# with threads only their interleaving on one pipe differs (docs/parallel.md).
#
#   sh bench/output_hashes.sh build/etldump > after.txt   (and the same with the old build)
#
# ETLGEN (default: etlgen beside ETLDUMP, under tests/etlgen) makes the generated captures, in
# one fixed folder (--summary prints the path: two runs must name the same one), emptied first
# and removed at the end; SHARED (default ../shared) holds the shared captures, manifests, TMFs.
set -eu
E=$1
HERE=$(cd "$(dirname "$0")/.." && pwd)
S=${SHARED:-$HERE/../shared}
G=${ETLGEN:-$(dirname "$E")/tests/etlgen/etlgen}
T=${TMPDIR:-/tmp}/etlshark-output-hashes
rm -rf "$T"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
for p in $("$G" --list | awk '{print $1}'); do
    "$G" --preset "$p" -o "$T/$p.etl" > /dev/null
done
"$G" --preset large_kernel --records 1000000 -o "$T/large_kernel_1m.etl" > /dev/null
for f in "$S"/captures/*.etl "$HERE"/captures/*.etl "$T"/*.etl; do
    for m in "--threads 1" "--threads 2" "--threads 3" \
             "--threads 1 --manifest-path $S/manifests --tmf-path $S/tmf" \
             "--threads 2 --manifest-path $S/manifests --tmf-path $S/tmf" \
             "--summary" "--no-payload --threads 1"; do
        rc=0
        # shellcheck disable=SC2086 # the mode is words
        "$E" $m "$f" > "$T/out" 2> "$T/err" || rc=$?
        echo "$(sha256sum < "$T/out" | cut -c1-16) $(sha256sum < "$T/err" | cut -c1-16) rc=$rc $(basename "$f") $m"
    done
done
