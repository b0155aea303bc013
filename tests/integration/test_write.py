#!/usr/bin/env python3
"""test_write.py - etldump --write on every shared capture (docs/writing.md).

For each capture (the empty one must be refused with exit status 2):
  * all:    `etldump --write OUT FILE`; both files through etldump: the same records in the
            same order with identical JSON, except the logfile header record (record 0), whose
            payload differs in BuffersWritten and the compressed-mode bit of LogFileMode, and
            except "position" and "stack_of" (a record's position names its place in its file;
            stack_of is a position);
  * every7: `--every=7`: each selected record's JSON (the same fields left out) is in the
            output, decoded the same (fields, names, process names);
  * both:   the written file reads with zero damage reports (etldump --summary, exit status 0)
            and the shared scanner etlscan.py agrees on its record count, header types and
            buffers, reporting no anomaly.

Usage: test_write.py ETLDUMP SHARED_DIR [all|every7]
Exit status 0 = pass, 1 = failure.
"""
import json
import os
import subprocess
import sys
import tempfile

SKIP_KEYS = ("position", "stack_of")


def dump(etldump, path):
    r = subprocess.run([etldump, path], capture_output=True, text=True)
    return [json.loads(line) for line in r.stdout.splitlines()], r.returncode


def key(rec):
    rec = {k: v for k, v in rec.items() if k not in SKIP_KEYS}
    return json.dumps(rec, sort_keys=True)


def summary(etldump, path):
    r = subprocess.run([etldump, "--summary", path], capture_output=True, text=True)
    return json.loads(r.stdout), r.returncode


def scan(shared, path):
    r = subprocess.run([sys.executable, os.path.join(shared, "tools", "etlscan.py"), "--json", path],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)[0]


def check_file(etldump, shared, out, failures, name):
    s, rc = summary(etldump, out)
    if rc != 0 or s["skipped"]["problems"] or s["records_damaged"]:
        failures.append("%s: written file reads with damage (rc %d): %s" % (name, rc, s["skipped"]))
    sc = scan(shared, out)
    if sc["records"] != s["records"]:
        failures.append("%s: etlscan counts %d records, etldump %d" % (name, sc["records"], s["records"]))
    if sc["anomalies"]:
        failures.append("%s: etlscan anomalies %s" % (name, sc["anomalies"]))
    # etlscan names the WPP header by its marker byte
    scan_types = {k.split("(")[0]: v for k, v in sc["header_types"].items()}
    if scan_types != s["header_types"]:
        failures.append("%s: header types differ: etlscan %s, etldump %s" % (name, sc["header_types"], s["header_types"]))
    if sc["buffers"] != s["buffers"]:
        failures.append("%s: etlscan counts %d buffers, etldump %d" % (name, sc["buffers"], s["buffers"]))


def main():
    etldump, shared = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else "all"
    captures = os.path.join(shared, "captures")
    failures = []
    tmp = tempfile.mkdtemp(prefix="etlshark-write-")
    for name in sorted(os.listdir(captures)):
        if not name.endswith(".etl"):
            continue
        path = os.path.join(captures, name)
        out = os.path.join(tmp, name)
        args = [etldump, "--write", out] + (["--every=7"] if mode == "every7" else []) + [path]
        w = subprocess.run(args, capture_output=True, text=True)
        if os.path.getsize(path) == 0:
            if w.returncode != 2 or os.path.exists(out):
                failures.append("%s: an empty input must be refused (rc %d)" % (name, w.returncode))
            continue
        if w.returncode != 0:
            failures.append("%s: --write exit status %d: %s" % (name, w.returncode, w.stderr[-300:]))
            continue
        orig, _ = dump(etldump, path)
        written, _ = dump(etldump, out)
        if mode == "all":
            if len(orig) != len(written):
                failures.append("%s: %d records written, %d in the input" % (name, len(written), len(orig)))
            else:
                for i, (a, b) in enumerate(zip(orig, written)):
                    if i == 0:
                        if not b.get("is_logfile_header", True) or a["header_type"] != b["header_type"]:
                            failures.append("%s: record 0 is not the logfile header" % name)
                        continue
                    if key(a) != key(b):
                        failures.append("%s: record %d differs:\n  %s\n  %s" % (name, i, key(a)[:400], key(b)[:400]))
                        break
        else:
            have = set(key(b) for b in written)
            for i in range(7, len(orig), 7):
                if key(orig[i]) not in have:
                    failures.append("%s: selected record %d is not written as it was:\n  %s" % (name, i, key(orig[i])[:400]))
                    break
        check_file(etldump, shared, out, failures, name)
        os.remove(out)
    os.rmdir(tmp)
    for f in failures:
        print("FAIL", f)
    print("%s: %s" % (mode, "ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
