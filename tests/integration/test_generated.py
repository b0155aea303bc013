#!/usr/bin/env python3
"""The decoder on the project's own generated captures, where every byte is known.

Usage: test_generated.py ETLDUMP ETLGEN CAPTURES_DIR
For every etlgen preset: etldump --summary agrees with etlgen --expect (records, header kinds,
extended items, providers, buffers, compressed buffers); every record reads back by position in
both orders; the interleaved preset comes out in exact timestamp order (its payloads carry their
rank); times convert with the preset's clock; the committed captures are still what the
generator makes.  Ends with "N passed, N failed".
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

ETLDUMP, ETLGEN, CAPTURES = sys.argv[1:4]


def etldump(*args):
    return subprocess.run([ETLDUMP, *args], capture_output=True, text=True)


presets = [line.split()[0] for line in subprocess.run([ETLGEN, "--list"], capture_output=True, text=True,
                                                       check=True).stdout.splitlines() if line.strip()]
check(len(presets) >= 9, f"etlgen lists its presets ({presets})")
tmp = tempfile.mkdtemp(prefix="etlgen-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # 32 MB of presets: gone however the test ends
for preset in presets:
    args = ["--preset", preset] + (["--records", "20000"] if preset.startswith("large") else [])
    path = os.path.join(tmp, preset + ".etl")
    subprocess.run([ETLGEN, *args, "-o", path], check=True)
    expect = json.loads(subprocess.run([ETLGEN, *args, "--expect"], capture_output=True, text=True, check=True).stdout)
    p = etldump("--summary", path)
    check(p.returncode == 0, f"{preset}: clean read (rc {p.returncode}: {p.stderr[:300]})")
    s = json.loads(p.stdout)
    check(s["records"] == expect["records"], f"{preset}: records {s['records']} == {expect['records']}")
    check(s["header_types"] == expect["header_types"], f"{preset}: header kinds {s['header_types']} == {expect['header_types']}")
    # etlgen names an extended type outside evntcons.h "UNKNOWN_<n>"; etldump uses the number
    exts = {(k[len("UNKNOWN_"):] if k.startswith("UNKNOWN_") else k): v for k, v in expect["ext_types"].items()}
    check(s["ext_types"] == exts, f"{preset}: extended items {s['ext_types']} == {exts}")
    # A kernel group outside the known table has no class GUID: etldump gives it no provider
    # (null), etlgen counts it as "kernel-group-0xNN".
    provs = {k: v for k, v in expect["providers"].items() if not k.startswith("kernel-group-")}
    if expect.get("providers_complete", True):
        check(s["providers"] == provs, f"{preset}: providers {s['providers']} == {provs}")
    check(s["buffers"] == expect["buffers"], f"{preset}: buffers {s['buffers']} == {expect['buffers']}")
    check(s["buffers_compressed"] == expect["compressed_buffers"], f"{preset}: compressed buffers")
    check(s["order_fallbacks"] == 0, f"{preset}: exact time order")
    # every preset's clock: StartTime 2024-01-02T03:04:05Z is the logfile header's wall time
    check(s["logfile"]["start_time"] == "2024-01-02T03:04:05.0000000Z", f"{preset}: start time")
    check(s["first_timestamp"] == "2024-01-02T03:04:05.0000000Z", f"{preset}: header record at StartTime")
    for order in ("time", "file"):
        v = etldump("--verify-positions", "--order=" + order, path)
        check(v.returncode == 0 and ", 0 mismatches" in v.stderr, f"{preset} ({order}): positions read back: {v.stderr[-200:]}")
    if preset == "interleaved":
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        ranks = [int.from_bytes(bytes.fromhex(r["payload_hex"][:16]), "little") for r in recs
                 if r["header_type"] != "SYSTEM64"]
        check(ranks == list(range(len(ranks))), f"interleaved: records in exact timestamp order ({ranks[:12]}...)")
        fileorder = [json.loads(line) for line in etldump("--order=file", path).stdout.splitlines()]
        franks = [int.from_bytes(bytes.fromhex(r["payload_hex"][:16]), "little") for r in fileorder
                  if r["header_type"] != "SYSTEM64"]
        check(franks != ranks and sorted(franks) == ranks, "interleaved: file order differs, same records")
        ts = [r["timestamp"] for r in recs]
        check(ts == sorted(ts), "interleaved: converted times ascend")
    if preset == "large_kernel":
        # the benchmark's kernel events must all decode, or kbench and the JSON rate measure less
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        bad = [r for r in recs if r.get("event_unknown") or "fields_placeholder" in r or "fields_trailing_hex" in r
               or "fields" not in r]
        check(len(recs) == 20000 and not bad, f"large_kernel: every record decodes to its fields ({bad[:2]})")
        names = {r["event_name"] for r in recs}
        check({"Thread/CSwitch", "PerfInfo/Sample", "StackWalk/Stack", "Image/Load", "FileIo/Create"} <= names,
              f"large_kernel: the event mix ({sorted(names)})")
        large_kernel_events = [(r["timestamp"], r["event_name"], r["fields"]) for r in recs]
    if preset == "large_kernel_lzx":
        # the same records in compressed buffers (the bench input past the inflate cache)
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        events = [(r["timestamp"], r["event_name"], r["fields"]) for r in recs]
        mode = int(recs[0]["fields"]["LogFileMode"], 16)
        check(s["buffers_compressed"] == s["buffers"] - 1 and events[1:] == large_kernel_events[1:]
              and mode & 0x4000000, f"large_kernel_lzx: large_kernel's records, every buffer but the first "
              f"compressed ({s['buffers_compressed']} of {s['buffers']}, {len(events)} records, "
              f"log file mode {mode:#x}: COMPRESSED_MODE 0x4000000)")
    if preset == "kernel64":
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        kinds = {r["header_type"] for r in recs}
        check({"SYSTEM64", "COMPACT64", "PERFINFO64", "FULL_HEADER64", "INSTANCE64", "MESSAGE", "ERROR", "TIMED"} <= kinds,
              f"kernel64: every kind delivered ({kinds})")
        pmc = [r for r in recs if r.get("pmc")]
        check(len(pmc) == 1 and len(pmc[0]["pmc"]) == 2 and "pebs_index" in pmc[0], "kernel64: PEBS index and 2 PMC counters")
        msg = [r for r in recs if r["header_type"] == "MESSAGE"]
        check(any(r["provider"] and r["pid"] is not None for r in msg), "kernel64: WPP message GUID and system info")
        check(any(r["provider"] is None and "component_id" in r for r in msg), "kernel64: WPP component id instead of a GUID")
        check(all("sequence" in r for r in msg), "kernel64: WPP sequence numbers")
        perf = [r for r in recs if r["header_type"] == "PERFINFO64"]
        check(all(r["pid"] is None and r["tid"] is None for r in perf), "kernel64: PERFINFO has no pid/tid")
    if preset in ("tl64", "tl32"):
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        tagged = [r for r in recs if r.get("event_tags")]
        check(len(tagged) >= 1 and all(r["event_tags"] == "0xabcdef" for r in tagged), f"{preset}: event tags 0xabcdef")
        check(any({"field": "Tagged", "tag": "0x123456"} in r.get("field_tags", []) for r in tagged),
              f"{preset}: field tag 0x123456 on Tagged")
    if preset == "manifest64":
        recs = [json.loads(line) for line in etldump(path).stdout.splitlines()]
        items = [e for r in recs for e in r["ext"]]
        check(any(e["type"] == "SID" and e.get("sid", "").startswith("S-1-") for e in items), "manifest64: SID as S-1-...")
        check(any(e["type"] == "STACK_TRACE64" and e.get("addresses") for e in items), "manifest64: stack addresses")
        check(any(e["type"] == "TS_ID" and "session_id" in e for e in items), "manifest64: terminal session id")
        check(any(e["type"] == "RELATED_ACTIVITYID" and len(e.get("guid", "")) == 36 for e in items), "manifest64: related activity")
        check(any(e["type"] == 48 and "data_hex" in e for e in items), "manifest64: an unknown item kept raw")

# the committed captures are the generator's output, byte for byte
for name in sorted(os.listdir(CAPTURES)):
    if name.endswith(".etl"):
        preset = name[:-4]
        fresh = os.path.join(tmp, preset + ".etl")
        check(os.path.exists(fresh) and open(fresh, "rb").read() == open(os.path.join(CAPTURES, name), "rb").read(),
              f"captures/{name} is what 'etlgen --preset {preset}' writes")
finish()
