#!/usr/bin/env python3
"""End-to-end tests of manifest problems in Wireshark (issue 14): a manifest path entry that
does not exist, a manifest that does not parse and two manifests that disagree are shown once
each as expert info on the capture's first frame (Analyze > Expert Information, `-z expert`),
and still written to stderr for tshark.

Same harness, arguments and sandbox as test_plugin.py (tools run as the unprivileged user
etlsharktest, fresh HOME per run).

    test_manifest_problems.py --reader ... --dissector ... --captures ... TEST [TEST ...]
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_plugin as tp  # noqa: E402
from test_plugin import check, SKIP, MF_ENV  # noqa: E402

HTTP = "tx_HTTP_Server_manifest.etl"
# Two shared manifests of Microsoft-Windows-HttpService that define its events differently
# (the TDH-regenerated one and the original).
HTTP_MANIFESTS = ("Microsoft-Windows-HttpService.xml", "tx_HTTP_Server.man")


def _folder(env, name, files):
    """A folder the test user can read with `files` (name -> bytes, or a path to copy)."""
    d = os.path.join(env.root, name)
    os.makedirs(d)
    os.chmod(d, 0o755)
    for fname, content in files.items():
        dst = os.path.join(d, fname)
        if isinstance(content, bytes):
            with open(dst, "wb") as f:
                f.write(content)
        else:
            shutil.copyfile(content, dst)
        os.chmod(dst, 0o644)
    return d


def _expert(env, path_value):
    """(-z expert output, stderr, frames with etl.manifest_problem) of the HTTP capture with
    ETLSHARK_MANIFEST_PATH = path_value."""
    extra = {MF_ENV: path_value}
    _, out, err = env.run([env.args.tshark, "-r", env.capture(HTTP), "-q", "-z", "expert"],
                          extra_env=extra)
    _, frames, _ = env.run([env.args.tshark, "-r", env.capture(HTTP), "-Y", "etl.manifest_problem",
                            "-T", "fields", "-e", "frame.number", "-e", "etl.manifest_problem"],
                           extra_env=extra)
    return out, err, [l.split("\t") for l in frames.splitlines()]


def _entries(out, section):
    """The summaries of a -z expert section ("Errors", "Warns", ...) with their frequency."""
    m = re.search(r"^%s \(\d+\)\n=+\n(.*?)(?:\n\n|\Z)" % section, out, re.M | re.S)
    if not m:
        return []
    rows = []
    for line in m.group(1).splitlines():
        f = re.match(r"^\s*(\d+)\s+\S+\s+ETL\s+(.*)$", line)
        if f:
            rows.append((int(f.group(1)), f.group(2)))
    return rows


def _one(out, err, frames, section, want, stderr_want):
    hits = [(n, s) for n, s in _entries(out, section) if want in s]
    check(len(hits) == 1 and hits[0][0] == 1,
          f"-z expert: expected one {section} entry with {want!r} once, got {hits}\n{out[:1500]}")
    check(len(frames) == 1 and frames[0][0] == "1" and want.split(": ", 1)[-1][:40] in frames[0][1],
          f"etl.manifest_problem: expected one item on frame 1, got {frames}")
    check(err.count(stderr_want) == 1, f"stderr should name the problem once: {err[:800]!r}")
    return hits[0][1]


def test_mfproblems(env):
    """Each of the three problems - a path entry that does not exist, a manifest that does not
    parse, two manifests that disagree about the HTTP server's events - is one expert info on
    frame 1 (an error for the first two, a warning for the third) whose text names the file,
    one etl.manifest_problem item, and one line on stderr; a clean path gives none."""
    if HTTP not in env.expected:
        print(f"SKIP: {HTTP} is not in the corpus")
        return SKIP
    shared = env.args.manifests
    if not shared or not all(os.path.exists(os.path.join(shared, m)) for m in HTTP_MANIFESTS):
        print(f"SKIP: {HTTP_MANIFESTS} not in {shared}")
        return SKIP

    missing = os.path.join(env.root, "no-such-manifests")
    out, err, frames = _expert(env, missing)
    s = _one(out, err, frames, "Errors", f"manifest path entry {missing}: no such file or folder",
             f"manifest path entry {missing}: no such file or folder")
    print(f"  ok missing path: {s[:120]}")

    bad = _folder(env, "bad", {"broken.man": b"<instrumentationManifest><instrumentation><events>\n<provider"})
    out, err, frames = _expert(env, bad)
    hits = [(n, s) for n, s in _entries(out, "Errors") if "broken.man" in s]
    check(len(hits) == 1 and hits[0][0] == 1 and hits[0][1].startswith("Manifest error: "),
          f"-z expert: expected one error naming broken.man, got {hits}\n{out[:1500]}")
    check(len(frames) == 1 and frames[0][0] == "1" and "broken.man" in frames[0][1],
          f"etl.manifest_problem for broken.man: {frames}")
    check(err.count("broken.man") == 1, f"stderr should name broken.man once: {err[:800]!r}")
    print(f"  ok unparseable manifest: {hits[0][1][:120]}")

    both = _folder(env, "both", {m: os.path.join(shared, m) for m in HTTP_MANIFESTS})
    out, err, frames = _expert(env, both)
    s = _one(out, err, frames, "Warns", "define", "differently")
    check(all(m in s for m in HTTP_MANIFESTS) and "Microsoft-Windows-HttpService" in s,
          f"the disagreement names both files and the provider: {s}")
    print(f"  ok disagreeing manifests: {s[:120]}")

    clean = _folder(env, "clean", {HTTP_MANIFESTS[1]: os.path.join(shared, HTTP_MANIFESTS[1])})
    out, err, frames = _expert(env, clean)
    check(not frames and "Manifest" not in out, f"a clean path shows manifest problems: {frames} {out[:600]}")
    print("  ok a clean path: no manifest problem")


MANIFEST_PROBLEM_TESTS = {
    "mfproblems": test_mfproblems,
}


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update(MANIFEST_PROBLEM_TESTS)
    sys.exit(tp.main())
