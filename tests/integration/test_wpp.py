#!/usr/bin/env python3
"""WPP software traces end to end through etldump (issue 17, docs/wpp.md).

Usage: test_wpp.py ETLDUMP SHARED_DIR TEST [ETLGEN]
TEST is one of:
  cldflt     the two real kernel WPP traces of the Cloud Files filter (no TMF exists for them):
             every MESSAGE record named with its message GUID, number ("Message(43)"), option
             flag names, time, CPU, thread and process, and its argument bytes; one "no TMF"
             line on stderr per message GUID naming the TMF file that would decode it; record
             counts per header kind and per provider equal to ../shared/captures/expected.json;
             the same with the 90 shared TMFs on --tmf-path and in ETLSHARK_TMF_PATH (none of
             them is cldflt's: nothing decodes, nothing is reported about them);
  generated  etlgen's wpp preset (messages built from the shared TMFs' own definitions)
             decoded with ../shared/tmf: see test_generated() below.
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
ETLGEN = sys.argv[4] if len(sys.argv) > 4 else None
CAPTURES = os.path.join(SHARED, "captures")
TMF = os.path.join(SHARED, "tmf")
CLDFLT_GUID = "2818ef08-6a54-396f-2244-5a6ea4a98cf0"


def etldump(path, *extra, env=None):
    e = dict(os.environ)
    e.pop("ETLSHARK_MANIFEST_PATH", None)
    e.pop("ETLSHARK_TMF_PATH", None)
    if env:
        e.update(env)
    p = subprocess.run([ETLDUMP, *extra, path], capture_output=True, text=True, env=e)
    return p, [json.loads(line) for line in p.stdout.splitlines()]


# (process, thread) of the messages, read off the records' SYSTEMINFO items by hand
THREADS = {"wpp_onedrive_cldflt0.etl": {(4, 244), (1164, 1208), (1164, 1280), (1880, 1884)},
           "wpp_onedrive_cldflt1.etl": {(4, 424)}}


def check_cldflt_run(name, p, recs, expected):
    check(p.returncode == 0, f"{name}: exit status {p.returncode}")
    check(len(recs) == expected["records"], f"{name}: {len(recs)} records, expected {expected['records']}")
    kinds = collections.Counter(r["header_type"] for r in recs)
    check(dict(kinds) == expected["header_types"], f"{name}: header kinds {dict(kinds)} != {expected['header_types']}")
    provs = collections.Counter(r["provider"] for r in recs)
    check(dict(provs) == expected["providers"], f"{name}: providers {dict(provs)} != {expected['providers']}")
    msgs = [r for r in recs if r["header_type"] == "MESSAGE"]
    for r in msgs:
        where = f"{name} @{r['position']}"
        check(r["provider"] == CLDFLT_GUID and r["event_id"] == 43, f"{where}: GUID/number {r['provider']} {r['event_id']}")
        check(r.get("event_name") == "Message(43)", f"{where}: event_name {r.get('event_name')}")
        check(r["message_flags"] == 0xAA and r.get("message_flags_names") == "GUID|TIMESTAMP|SYSTEMINFO|POINTER64",
              f"{where}: flags {r['message_flags']} {r.get('message_flags_names')}")
        check(r["timestamp"] and r["timestamp"].startswith("2025-12-19T01:28:"), f"{where}: timestamp {r['timestamp']}")
        check(isinstance(r["pid"], int) and isinstance(r["tid"], int) and r["cpu"] == 0,
              f"{where}: pid/tid/cpu {r['pid']} {r['tid']} {r['cpu']}")
        if r["pid"] == 4:
            check(r.get("process_name") == "System", f"{where}: process {r.get('process_name')}")
        # the size minus header (8), GUID (16), timestamp (8), thread and process (8): the arguments
        check(len(r.get("payload_hex", "")) == 2 * (r["size"] - 40), f"{where}: argument bytes {r.get('payload_hex')}")
        sm = r.get("schema_missing", {})
        check(sm.get("provider") == CLDFLT_GUID and sm.get("id") == 43, f"{where}: schema_missing {sm}")
        check(f"{CLDFLT_GUID}.tmf would decode" in sm.get("hint", "") and "--tmf-path" in sm.get("hint", ""),
              f"{where}: hint {sm.get('hint')}")
        check("fields" not in r and "message" not in r, f"{where}: decoded without a TMF?")
    f = name.split(" ")[0]
    got = {(r["pid"], r["tid"]) for r in msgs}
    check(got == THREADS[f], f"{name}: (pid, tid) {sorted(got)}")
    # the other records decode as they did: the logfile header and its rundown events
    for r in recs:
        if r["header_type"] != "MESSAGE":
            check(r.get("event_name", "").startswith("EventTrace"), f"{name} @{r['position']}: {r.get('event_name')}")
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    tmf_lines = [l for l in lines if "TMF" in l]
    check(len(tmf_lines) == 1 and CLDFLT_GUID + ".tmf" in tmf_lines[0], f"{name}: stderr TMF lines {tmf_lines}")
    check(len(lines) == len(tmf_lines), f"{name}: other stderr lines {lines}")
    return msgs


def test_cldflt():
    expected = json.load(open(os.path.join(CAPTURES, "expected.json")))
    for f, n_msgs in (("wpp_onedrive_cldflt0.etl", 13), ("wpp_onedrive_cldflt1.etl", 3)):
        path = os.path.join(CAPTURES, f)
        p, recs = etldump(path)
        msgs = check_cldflt_run(f, p, recs, expected[f])
        check(len(msgs) == n_msgs, f"{f}: {len(msgs)} messages, expected {n_msgs}")
        # --no-payload keeps every name and the flags, drops the bytes
        p, recs2 = etldump(path, "--no-payload")
        check(len(recs2) == len(recs) and all("payload_hex" not in r for r in recs2), f"{f}: --no-payload")
        check([r.get("event_name") for r in recs2] == [r.get("event_name") for r in recs], f"{f}: names under --no-payload")
        # the shared TMFs (none of them is cldflt's): every one loads, nothing else changes
        for how, extra, env in (("--tmf-path", ["--tmf-path", TMF], None), ("ETLSHARK_TMF_PATH", [], {"ETLSHARK_TMF_PATH": TMF})):
            p3, recs3 = etldump(path, *extra, env=env)
            check_cldflt_run(f"{f} ({how})", p3, recs3, expected[f])
            check(recs3 == recs, f"{f} ({how}): output differs from the run without TMFs")
        print(f"{f}: {len(recs)} records, {len(msgs)} WPP messages named, one TMF line")


if WHICH == "cldflt":
    test_cldflt()
else:
    print("unknown test", WHICH)
    sys.exit(2)
finish()
