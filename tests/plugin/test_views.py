#!/usr/bin/env python3
"""End-to-end tests of the views around the decode (issue 14): expert notes, Capture File
Properties, Source/Destination and conversations, Statistics > ETW.

Same harness, arguments and sandbox as test_plugin.py (tools run as the unprivileged user
etlsharktest, fresh HOME per run); these tests are kept in their own file so that the views
can grow without touching the decode tests.

    test_views.py --reader ... --dissector ... --captures ... --etldump ... TEST [TEST ...]
"""

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_plugin as tp  # noqa: E402
from test_plugin import check, Failure, SKIP, MF_ENV  # noqa: E402,F401

NET452 = "perfview_net452_x64_merged_compressed.etl"


def _pre(env, name, oracle=False):
    if name not in env.expected:
        print(f"SKIP: {name} is not in the corpus")
        return False
    if oracle and (not env.args.etldump or not os.path.exists(env.args.etldump)):
        print("SKIP: --etldump not given")
        return False
    return True


def test_views_expert(env):
    """The "Too many distinct fields" note is only for a field the registry refused: none on
    net452 with the manifests, where every field gets its typed field (before: 179,198 notes,
    one per frame dissected without a visible tree by the expert tap).  The refused case itself
    (a full field store: one note) is checked by test_plugin.py's tlstore."""
    if not _pre(env, NET452):
        return SKIP
    mf = tp._manifests(env)
    extra = {MF_ENV: mf} if mf else None
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-q", "-z", "expert,note"],
                        extra_env=extra)
    check("Too many distinct fields" not in out,
          f"spurious untyped-field notes: {[l for l in out.splitlines() if 'distinct' in l]}")
    m = re.search(r"^Notes \((\d+)\)", out, re.M)
    check(m is not None, f"no Notes section in -z expert,note output: {out[:400]!r}")
    # the same with a tree (-V path): the typed items are there, still no note
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-c", "2000", "-T", "fields",
                         "-e", "etl.expert.field_untyped"], extra_env=extra)
    check(not out.strip().replace("\n", ""), f"untyped-field expert item on visible trees: {out[:200]!r}")
    print(f"  ok {NET452}: {m.group(1)} notes, none about untyped fields")


VIEWS_TESTS = {
    "views_expert": test_views_expert,
}


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update(VIEWS_TESTS)
    sys.exit(tp.main())
