"""The integration tests' assertions: each check counts, a failure prints what was expected,
and finish() prints "N passed, N failed" and exits non-zero on any failure."""
import sys

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
