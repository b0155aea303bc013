#!/usr/bin/env python3
"""TraceLogging field decoding end to end: etldump's "provider_name", "event_name" and "fields"
on the real captures in ../shared.

Usage: test_tracelogging.py ETLDUMP SHARED_DIR TEST
TEST is one of:
  golden   every event listed in goldens/primitive-types.baseline.txt (TraceEvent's decode on
           Windows) has a record whose fields - names, order and values - equal the golden's,
           allowing for how the golden prints (goldens/README.md) and for TraceEvent's own
           quirks, each spelled out below where it is allowed;
  corpus   every TraceLogging event of the AMSI, lxcore, diaghub user and SelfDescribingSingleEvent
           captures decodes with no placeholder and no leftover bytes, under the event name and
           provider name that captures/expected.json lists.
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import collections
import datetime
import json
import os
import re
import subprocess
import sys

from checks import check, finish
from goldens import golden_date, same_text, truncated
import goldens

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
CAPTURES = os.path.join(SHARED, "captures")
GOLDENS = os.path.join(SHARED, "goldens")


def records(path, *extra):
    p = subprocess.run([ETLDUMP, *extra, path], capture_output=True, text=True)
    check(p.returncode == 0, f"{os.path.basename(path)}: etldump exit 0 (got {p.returncode}: {p.stderr[:300]})")
    return [json.loads(line) for line in p.stdout.splitlines()]


# ---- golden -----------------------------------------------------------------------------------
def golden_events(path):
    """[(provider, event, {header}, [(field, value)])] for the golden's EVENT lines."""
    return goldens.read(path)[1]


def golden_int(g):
    """Integers print with thousands separators."""
    return int(g.replace(",", ""))


def compare_value(name, g, ours, notes):
    """True when the golden's printed value g is the same value as our JSON value."""
    if isinstance(ours, bool):
        # TraceEvent prints booleans as False/True
        return g == ("True" if ours else "False")
    if isinstance(ours, int):
        return golden_int(g) == ours
    if isinstance(ours, str) and re.fullmatch(r"\d+", ours) and re.fullmatch(r"-?[\d,]+", g):
        # A 64-bit integer beyond +-2^53 (our JSON writes it as a decimal string).  The one case
        # here: int64_type is declared UINT64 (in-meta 0x0A) in this capture's metadata, so the
        # value -204 is 18446744073709551412 as Windows' TDH reads the type; TraceEvent reads
        # every 64-bit integer as a signed long.  Same 64 bits: compare modulo 2^64.
        if golden_int(g) % (1 << 64) == int(ours):
            notes.append(f"{name}: {g} (TraceEvent, signed) == {ours} (UINT64 per the metadata)")
            return True
        return False
    if isinstance(ours, str) and len(ours) == 1 and re.fullmatch(r"-?[\d,]+", g):
        # A UINT8 with the STRING out-type is a character: Windows shows 'M', TraceEvent its code.
        notes.append(f"{name}: {g} (TraceEvent, code) == {ours!r} (char)")
        return golden_int(g) == ord(ours)
    if isinstance(ours, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z", ours):
        when, frac = golden_date(g)
        mine = datetime.datetime.strptime(ours[:19], "%Y-%m-%dT%H:%M:%S")
        if when != mine:
            return False
        ours_frac = ours[20:27]
        if ours_frac.startswith(frac):
            return True
        # TraceEvent prints ".03" as the fraction of every SYSTEMTIME in this golden, whose
        # milliseconds are 799, 239, 671, 48 and 484 (the same instants as file_time_type, which
        # it prints right): its fraction is not the SYSTEMTIME's.  Compare those to the second.
        if name == "system_time_type":
            notes.append(f"{name}: fraction .{frac} (TraceEvent) vs .{ours_frac} (milliseconds)")
            return True
        return False
    if isinstance(ours, str):
        # strings, and GUIDs (the golden prints them lower-case without braces, like etldump)
        return same_text(g, ours)
    return False


def test_golden():
    cap = "perfview_primitive-types_tracelogging.etl"
    golden = os.path.join(GOLDENS, "primitive-types.baseline.txt")
    recs = [r for r in records(os.path.join(CAPTURES, cap)) if "event_name" in r]
    events = [e for e in golden_events(golden) if e[0] != "Windows Kernel"]
    check(len(events) == 5, f"golden lists 5 TraceLogging events (got {len(events)})")
    counts = {}
    for line in open(golden, encoding="utf-8-sig"):
        m = re.match(r"^COUNT ([^/]+)/(\S+):(\d+)$", line.strip())
        if m:
            counts[(m.group(1), m.group(2))] = int(m.group(3))
    # the kernel's EventTrace events are decoded too (classic kernel classes); TraceEvent does not
    # list the undocumented EventTrace type 80 (PartitionInfoExtension), which we name and decode
    not_in_golden = {("Windows Kernel", "EventTrace/PartitionInfoExtension")}
    ours = collections.Counter((r.get("provider_name"), r["event_name"]) for r in recs
                               if (r.get("provider_name"), r["event_name"]) not in not_in_golden)
    check(dict(ours) == counts, f"event counts by provider/name {dict(ours)} == {counts}")
    notes = []
    used = set()
    for provider, event, header, fields in events:
        # the record: same pid, tid, processor and payload length, in order
        cands = [i for i, r in enumerate(recs) if i not in used and r["pid"] == int(header["PID"])
                 and r["tid"] == int(header["TID"]) and r["cpu"] == int(header["ProceNum"])
                 and len(r["payload_hex"]) // 2 == golden_int(header["DataLen"])]
        check(len(cands) >= 1, f"{event}: a record for golden line PID={header['PID']} DataLen={header['DataLen']}")
        if not cands:
            continue
        i = cands[0]
        used.add(i)
        r = recs[i]
        check(r.get("provider_name") == provider, f"{event}: provider_name {r.get('provider_name')!r} == {provider!r}")
        check(r["event_name"] == event, f"{event}: event_name {r['event_name']!r}")
        check("fields_placeholder" not in r and "fields_trailing_hex" not in r, f"{event}: decoded to the end")
        names = [k for k, _ in fields]
        check(list(r["fields"]) == names, f"{event}: field names and order {list(r['fields'])} == {names}")
        for name, g in fields:
            if name not in r["fields"]:
                continue
            v = r["fields"][name]
            check(compare_value(name, g, v, notes), f"{event}: {name}: golden {g!r} vs ours {v!r}")
        print(f"ok {event} {r['fields'].get('string_type')}: {len(fields)} fields match the golden")
    for n in sorted(set(notes)):
        print("  allowed:", n)


# ---- corpus -----------------------------------------------------------------------------------
CORPUS = ["etlparser_AMSITrace_tracelogging.etl", "etlparser_lxcore_kernel_tracelogging.etl",
          "perfview_diaghub_user_paged_clr_tl.etl", "perfview_SelfDescribingSingleEvent_tl_compressed.etl"]


def test_corpus():
    expected = json.load(open(os.path.join(CAPTURES, "expected.json")))
    for cap in CORPUS:
        e = expected[cap]
        recs = records(os.path.join(CAPTURES, cap), "--no-payload")
        tl = [r for r in recs if any(x["type"] == "EVENT_SCHEMA_TL" for x in r["ext"])]
        check(len(tl) == e["tl_events"], f"{cap}: {len(tl)} TraceLogging events == {e['tl_events']}")
        names = collections.Counter(r.get("event_name") for r in tl)
        check(dict(names) == e["tl_event_names"], f"{cap}: event names {dict(names)} == {e['tl_event_names']}")
        bad = [r for r in tl if "fields_placeholder" in r or "fields_trailing_hex" in r or "fields_error" in r
               or not isinstance(r.get("fields"), dict)]
        check(not bad, f"{cap}: every TraceLogging event decodes to the end ({len(bad)} do not: "
                       f"{[b.get('fields_placeholder') for b in bad[:2]]})")
        # provider names: from PROV_TRAITS, and remembered for the provider's other events
        for guid, name in e["provider_names_in_trace"].items():
            mine = {r.get("provider_name") for r in recs if r["provider"] == guid}
            check(mine == {name}, f"{cap}: provider {guid} named {mine} == {{{name!r}}}")
        empty = sum(1 for r in tl if not r["fields"])
        check(empty == 0, f"{cap}: every event has fields ({empty} empty)")
        print(f"ok {cap}: {len(tl)} TraceLogging events, {dict(names)}")
    # a few values, checked by hand against the payload bytes
    recs = records(os.path.join(CAPTURES, "etlparser_lxcore_kernel_tracelogging.etl"), "--no-payload")
    bp = [r for r in recs if r.get("event_name") == "BreakPoint"]
    check(bp and bp[0]["fields"]["Function"] == "LxpDrvFsTypeMount" and bp[0]["fields"]["LxPid"] == -1
          and bp[0]["fields"]["instanceId"] == "00000000-0000-0000-0000-000000000000",
          f"lxcore BreakPoint fields {bp[0]['fields'] if bp else None}")
    recs = records(os.path.join(CAPTURES, "perfview_SelfDescribingSingleEvent_tl_compressed.etl"), "--no-payload")
    te = [r for r in recs if r.get("event_name") == "TestEvent"]
    check(te and te[0]["fields"] == {"a": {"b": "Hello", "c": "World!"}}, f"TestEvent struct {te[0]['fields'] if te else None}")
    recs = records(os.path.join(CAPTURES, "perfview_diaghub_user_paged_clr_tl.etl"), "--no-payload")
    st = [r for r in recs if r.get("event_name") == "Activity1Start"]
    check(st and st[0]["fields"]["Arguments"][1] == {"Key": "IsAsync", "Value": "False"},
          f"Activity1Start arguments {st[0]['fields'] if st else None}")
    amsi = records(os.path.join(CAPTURES, "etlparser_AMSITrace_tracelogging.etl"), "--no-payload")
    a = [r for r in amsi if r.get("event_name") == "AmsiScript"]
    # "Raw Script" is a UINT16 array with the STRING out-type: one string, equal to "Script"
    check(a and all(r["fields"]["Raw Script"] == r["fields"]["Script"] for r in a),
          "AMSI: the char array 'Raw Script' reads as the same text as 'Script'")


TESTS = {"golden": test_golden, "corpus": test_corpus}
if WHICH not in TESTS:
    print(f"unknown test {WHICH!r}; one of {sorted(TESTS)}")
    sys.exit(2)
TESTS[WHICH]()
finish()
