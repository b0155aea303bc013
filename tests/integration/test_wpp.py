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
import atexit
import collections
import json
import os
import re
import shutil
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


# ---- the generated trace: etlgen's wpp preset, decoded with the shared TMFs -------------------

def read_tmfs(folder):
    """The shared TMFs read here, independently of the decoder: (GUID, number) -> message."""
    msgs, comps = {}, {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".tmf"):
            continue
        comp = src = None
        cur = None
        for line in open(os.path.join(folder, name), encoding="ascii"):
            line = line.rstrip("\r\n")
            m = re.match(r"^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) (\S+)(?: // SRC=(\S+))?", line)
            if m:
                guid, comp, src = m.group(1), m.group(2), m.group(3)
                comps[guid] = comp
                continue
            m = re.match(r'^#typev (\S+) (\d+) "(.*)" //(.*)$', line)
            if m:
                tags = dict(t.split("=", 1) for t in m.group(4).split() if "=" in t)
                cur = {"guid": guid, "component": comp, "src": src, "name": m.group(1), "number": int(m.group(2)),
                       "format": m.group(3), "level": tags.get("LEVEL"), "flags": tags.get("FLAGS"),
                       "func": tags.get("FUNC"), "items": []}
                msgs.setdefault((guid, cur["number"]), cur)
                continue
            m = re.match(r"^(.*), (Item\w+)(?:\((.*)\))? -- (\d+)$", line)
            if m and cur is not None:
                item = (m.group(1), m.group(2), int(m.group(4)), m.group(3).split(",") if m.group(3) else None)
                if msgs[(guid, cur["number"])] is cur:
                    cur["items"].append(item)
    return msgs, comps


STATUS = {0: "STATUS_SUCCESS", 0xC0000001: "STATUS_UNSUCCESSFUL", 0xC0000022: "STATUS_ACCESS_DENIED"}
WINERROR = {5: "ERROR_ACCESS_DENIED"}

L2CAP = "01e9b841-7d67-315a-7b92-23b2033356de"
DMFCORE = "0a9ab260-f7e4-311e-a23e-f8ab6856dc72"
SIDEBAND = "03fb1cb4-1c81-30e9-50db-4ecb4f47594e"
CONFIG = "13024be3-4b84-3755-d706-51020667de4f"
# What tests/etlgen/etlgen_wpp.c writes, record by record: (header, GUID, number, pointer size,
# argument values; None where the payload ends first), "extra" the bytes left over
GENERATED = [
    ("MESSAGE", L2CAP, 14, 8, [0xC0000001]),
    ("MESSAGE", L2CAP, 14, 8, [0]),
    ("MESSAGE", DMFCORE, 35, 8, [0xFFFF95820BE02120, 0xFFFF95820BE03000, 3]),
    ("MESSAGE", "028f1450-e0d5-3b03-31cd-6226d77778f9", 11, 8, [0x001A7DDA7100, "PLAYSTATION(R)3 Controller"]),
    ("MESSAGE", L2CAP, 18, 8, [5]),
    ("MESSAGE", "10ab5e95-3a19-3bea-8e73-829a95a5dd10", 28, 8, [5]),
    ("MESSAGE", SIDEBAND, 27, 8, ["\\??\\BTHPS3PSM", 26]),
    ("MESSAGE", CONFIG, 20, 8, [-5000000000]),
    ("MESSAGE", SIDEBAND, 30, 8, [2]),
    ("MESSAGE", CONFIG, 29, 8, [1.5, -0.25]),
    ("MESSAGE", "a3210761-4ce2-3dcc-7574-aabc25a63d48", 58, 8, ["Global\\DsHidMiniDisconnectEvent"]),
    ("MESSAGE", "87140dc3-05eb-3f8c-a1be-42661f4f939d", 15, 8, [0xFFFFB00012345678, 250]),
    ("MESSAGE", L2CAP, 15, 8, []),
    ("MESSAGE", DMFCORE, 35, 4, [0x8A001000, 0x8A002000, 1]),
    ("MESSAGE", DMFCORE, 35, 8, [0xFFFF95820BE02120, None, None]),
    ("MESSAGE", L2CAP, 18, 8, [7], "aabbccdd"),
    ("MESSAGE", SIDEBAND, 30, 8, [9]),
    ("MESSAGE", "11111111-2222-3333-4444-555555555555", 1, 8, None),
    ("MESSAGE", L2CAP, 999, 8, None),
    ("EVENT_HEADER64", L2CAP, 14, 8, [0xC0000022]),
]


def field_json(kind, value, ptr, names):
    """The value as etldump's JSON has it (docs/etldump-json.md)."""
    if kind == "ItemNTSTATUS":
        return f"0x{value:08X} ({STATUS[value]})"
    if kind == "ItemWINERROR":
        return f"{value} ({WINERROR[value]})"
    if kind == "ItemPtr":
        return f"0x{value:0{2 * ptr}X}"
    if kind == "ItemLongLongXX":
        return f"0x{value:X}"
    if kind == "ItemListByte":
        return names[value] if value < len(names) else value
    return value


def insert(kind, value, spec, ptr, names):
    """One %N!spec! insert by tracefmt's rules (docs/wpp.md "The formatted message")."""
    spec = spec or "s"
    conv = spec[-1]
    flags_width = re.sub(r"(I64|I32|ll|l|h|w|I)", "", spec[:-1])
    if conv == "p":
        return f"{value:0{2 * ptr}X}"  # MSVC printf: the digits, no 0x
    if conv in "diuxXo":
        bits = {"ItemLong": 32, "ItemLongLong": 64, "ItemULongLong": 64, "ItemLongLongXX": 64}.get(kind, 32)
        v = value & ((1 << bits) - 1) if conv != "d" and conv != "i" else value
        return ("%" + flags_width + ("d" if conv in "diu" else conv)) % v
    if kind in ("ItemNTSTATUS", "ItemWINERROR", "ItemListByte"):
        return str(field_json(kind, value, ptr, names))
    if kind == "ItemDouble":
        return repr(value)
    return str(value)


def tracefmt(msg, values, ptr):
    """The message part of tracefmt's line for `msg` with `values`."""
    by_no = {it[2]: (it, values[i] if i < len(values) else None) for i, it in enumerate(msg["items"])}
    fmt = msg["format"]
    if fmt.startswith("%0 "):
        fmt = fmt[3:]
    elif fmt.startswith("%0"):
        fmt = fmt[2:]
    tags = {"FUNC": msg["func"], "LEVEL": msg["level"], "FLAGS": msg["flags"], "FILE": msg["src"],
            "COMPNAME": msg["component"]}

    def sub(m):
        if m.group(0) == "%%":
            return "%"
        if m.group(1):
            return tags.get(m.group(1), m.group(0)) or ""
        it, v = by_no.get(int(m.group(2)), (None, None))
        if it is None or v is None:
            return m.group(0)
        return insert(it[1], v, m.group(3), ptr, it[3])
    return re.sub(r"%%|%!(\w+)!|%(\d+)(?:!([^!]*)!)?", sub, fmt)


def test_generated():
    msgs, comps = read_tmfs(TMF)
    tmp = tempfile.mkdtemp(prefix="etlshark-wpp-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    path = os.path.join(tmp, "wpp.etl")
    subprocess.run([ETLGEN, "--preset", "wpp", "-o", path], check=True)
    p, recs = etldump(path, "--tmf-path", TMF)
    check(p.returncode == 0, f"wpp.etl: exit {p.returncode}")
    wpp = [r for r in recs if r["header_type"] != "SYSTEM64"]
    check(len(wpp) == len(GENERATED), f"wpp.etl: {len(wpp)} WPP records, expected {len(GENERATED)}")
    covered = set()
    for i, (r, g) in enumerate(zip(wpp, GENERATED)):
        header, guid, number, ptr, values = g[:5]
        where = f"wpp.etl record {i + 1} ({guid} #{number})"
        check(r["header_type"] == header and r["provider"] == guid and r["event_id"] == number,
              f"{where}: {r['header_type']} {r['provider']} {r['event_id']}")
        if header == "MESSAGE":
            names = "GUID|TIMESTAMP|SYSTEMINFO|" + ("POINTER32" if ptr == 4 else "POINTER64")
            if i == 1:
                names = "SEQUENCE|" + names
            check(r.get("message_flags_names") == names, f"{where}: flags {r.get('message_flags_names')}")
        else:
            check(r["flags"] & 0x0008, f"{where}: TRACE_MESSAGE flag not kept: {r['flags']}")
        msg = msgs.get((guid, number))
        if values is None:  # no TMF for it
            check(r.get("event_name") == f"Message({number})" and "message" not in r and "fields" not in r,
                  f"{where}: {r.get('event_name')} {r.get('message')}")
            hint = r.get("schema_missing", {}).get("hint", "")
            if guid in comps:
                check(r.get("provider_name") == comps[guid] and f"{guid}.tmf defines no such message" in hint,
                      f"{where}: {r.get('provider_name')} {hint}")
            else:
                check(f"{guid}.tmf would decode" in hint, f"{where}: hint {hint}")
            continue
        check(msg is not None, f"{where}: not in the shared TMFs")
        if msg is None:
            continue
        check(r.get("provider_name") == msg["component"], f"{where}: provider_name {r.get('provider_name')}")
        check(r.get("event_name") == msg["func"], f"{where}: event_name {r.get('event_name')}")
        check(r.get("level_name") == msg["level"] and r.get("keywords_name") == msg["flags"],
              f"{where}: level/flags {r.get('level_name')} {r.get('keywords_name')}")
        want = tracefmt(msg, values, ptr)
        check(r.get("message") == want, f"{where}: message\n   got  {r.get('message')!r}\n   want {want!r}")
        fields = r.get("fields", {})
        for k, (expr, kind, argno, names) in enumerate(msg["items"]):
            v = values[k] if k < len(values) else None
            covered.add(kind)
            if v is None:
                check(expr not in fields, f"{where}: {expr} decoded from a short payload")
                continue
            want_v = field_json(kind, v, ptr, names)
            check(fields.get(expr) == want_v, f"{where}: field {expr} = {fields.get(expr)!r}, want {want_v!r}")
        check(list(fields) == [it[0] for it in msg["items"]][:len(fields)], f"{where}: field order {list(fields)}")
        if None in values:
            ph = r.get("fields_placeholder", {})
            check(ph.get("field") == msg["items"][values.index(None)][0] and ph.get("data_hex"),
                  f"{where}: placeholder {ph}")
        if len(g) > 5:
            check(r.get("fields_trailing_hex") == g[5], f"{where}: trailing {r.get('fields_trailing_hex')}")
    # every Item type the shared TMFs use, covered
    used = {it[1] for m in msgs.values() for it in m["items"]}
    check(used <= covered, f"Item types not covered: {sorted(used - covered)}")
    # stderr: one line per message GUID without a TMF, one for the number the TMF lacks
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(len(lines) == 2 and "11111111-2222-3333-4444-555555555555.tmf would decode" in lines[0]
          and "defines no such message" in lines[1], f"wpp.etl: stderr {lines}")
    # without the TMF path: every message named, nothing decoded
    p2, recs2 = etldump(path)
    bare = [r for r in recs2 if r["header_type"] != "SYSTEM64"]
    check(all(r.get("event_name") == f"Message({r['event_id']})" and "message" not in r for r in bare),
          "wpp.etl without TMFs: every message named Message(N), none decoded")
    guids = {r["provider"] for r in bare}
    tmf_lines = [l for l in p2.stderr.splitlines() if "would decode" in l]
    check(len(tmf_lines) == len(guids), f"wpp.etl without TMFs: {len(tmf_lines)} TMF lines for {len(guids)} GUIDs")
    print(f"wpp.etl: {len(wpp)} WPP records checked field by field and string by string; "
          f"Item types covered: {', '.join(sorted(covered))}")


if WHICH == "cldflt":
    test_cldflt()
elif WHICH == "generated":
    test_generated()
else:
    print("unknown test", WHICH)
    sys.exit(2)
finish()
