#!/bin/sh
# ctest-counts.sh - read ctest's output on standard input, print "PASSED FAILED SKIPPED".
# Exit 1 (printing nothing) when the output has no summary line (ctest did not finish).
# ctest counts a skipped test (exit 77, e.g. a check whose inputs are not to be had) as passed in
# its summary line; it is counted apart here.  Used by tests/run-all.sh and
# tests/versions/run-version.sh.
out=$(cat)
line=$(echo "$out" | grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" | tail -n 1)
[ -n "$line" ] || exit 1
failed=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
all=$(echo "$line" | sed -E 's/.* failed out of ([0-9]+).*/\1/')
skipped=$(echo "$out" | grep -c '(Skipped)$' || true)
echo "$((all - failed - skipped)) $failed $skipped"
