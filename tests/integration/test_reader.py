#!/usr/bin/env python3
"""End-to-end tests of the decoder through etldump, on the real captures in ../shared.

Usage: test_reader.py ETLDUMP SHARED_DIR TEST
TEST is one of: corpus, timestamps, damage, positions, order.  Each prints what it checked and
ends with an "N passed, N failed" line; the exit status is non-zero on any failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
CAPTURES = os.path.join(SHARED, "captures")
GOLDENS = os.path.join(SHARED, "goldens")


def run(*args):
    return subprocess.run([ETLDUMP, *args], capture_output=True, text=True)


def summary(path, *extra):
    p = run("--summary", *extra, path)
    return p, (json.loads(p.stdout) if p.stdout.strip() else None)


def records(path, *extra):
    p = run("--no-payload", *extra, path)
    return p, [json.loads(line) for line in p.stdout.splitlines()]


def captures():
    return sorted(f for f in os.listdir(CAPTURES) if f.endswith(".etl"))


# ---- corpus: every capture agrees with expected.json ---------------------------------------
def test_corpus():
    expected = json.load(open(os.path.join(CAPTURES, "expected.json")))
    check(len(captures()) == len(expected), "every capture has an expected.json entry")
    for name in captures():
        e = expected[name]
        p, s = summary(os.path.join(CAPTURES, name))
        if e["records"] == 0:
            # the empty file: unusable input, one clear line, exit 2
            check(p.returncode == 2, f"{name}: exit 2 for an empty file (got {p.returncode})")
            check("empty file" in p.stderr and p.stderr.count("\n") == 1, f"{name}: one clear line: {p.stderr!r}")
            continue
        check(p.returncode == 0, f"{name}: exit 0 (got {p.returncode}: {p.stderr[:300]})")
        check(s["records"] == e["records"], f"{name}: records {s['records']} == {e['records']}")
        check(s["header_types"] == e["header_types"], f"{name}: header_types {s['header_types']} == {e['header_types']}")
        # expected.json names ext types "11 EVENT_SCHEMA_TL"; etldump names them "EVENT_SCHEMA_TL"
        exts = {k.split(" ", 1)[1]: v for k, v in e["ext_types"].items()}
        check(s["ext_types"] == exts, f"{name}: ext_types {s['ext_types']} == {exts}")
        check(s["providers"] == e["providers"], f"{name}: providers agree")
        check(s["skipped"]["problems"] == 0 and s["records_damaged"] == 0, f"{name}: no damage reported")
        lf = s["logfile"]
        check(lf["logger_name"] == (e["logger_name"] or ""), f"{name}: logger name {lf['logger_name']!r}")
        check(lf["pointer_size"] == e["pointer_size"], f"{name}: pointer size")
        check(lf["perf_freq"] == e["perf_freq"], f"{name}: perf_freq")
        check(lf["start_time_filetime"] == e["start_time_filetime"], f"{name}: start time")
        check(s["buffers_compressed"] == e["compressed_buffers"], f"{name}: compressed buffers")
        print(f"ok {name}: {s['records']} records")


# ---- timestamps: relative milliseconds of the goldens' listed events ----------------------
GOLDEN_OF = {
    "primitive-types.baseline.txt": "perfview_primitive-types_tracelogging.etl",
    "gcevents.baseline.txt": "perfview_gcevents_clr.etl",
    "gcrundownevents.baseline.txt": "perfview_gcrundownevents_clrrundown.etl",
    "net.4.5.2.x64.baseline.txt": "perfview_net452_x64_merged_compressed.etl",
}
EVENT_RE = re.compile(r"^EVENT ([\d,]+\.\d+): (\S+) PID=(-?\d+); TID=(-?\d+); PName=[^;]*; ProceNum=(\d+); DataLen=(\d+);")


def test_timestamps():
    """Every listed golden event has a record with the same pid, tid, cpu and payload length
    whose time since the trace's logfile header is the golden's, to the golden's microsecond."""
    for golden, cap in GOLDEN_OF.items():
        p, recs = records(os.path.join(CAPTURES, cap))
        check(p.returncode == 0, f"{cap}: read cleanly")
        header = next(r for r in recs if r["header_type"].startswith("SYSTEM") and r["group"] == 0 and r["opcode"] == 0)
        t0 = header["timestamp"]

        def ticks(ts):  # ISO with 7 digits -> 100 ns ticks within the day is enough for deltas
            d, t = ts[:-1].split("T")
            h, m, s = t.split(":")
            from datetime import date
            days = date.fromisoformat(d).toordinal()
            sec, frac = s.split(".")
            return ((days * 86400 + int(h) * 3600 + int(m) * 60 + int(sec)) * 10_000_000) + int(frac)

        base = ticks(t0)
        index = {}
        for r in recs:
            if r["timestamp"] is None:
                continue
            key = (r["pid"] if r["pid"] is not None else -1, r["tid"] if r["tid"] is not None else -1, r["cpu"])
            index.setdefault(key, []).append(((ticks(r["timestamp"]) - base) / 10_000.0, r))
        n = matched = 0
        for line in open(os.path.join(GOLDENS, golden), encoding="utf-8-sig"):
            m = EVENT_RE.match(line)
            if not m:
                continue
            n += 1
            ms = float(m.group(1).replace(",", ""))
            pid, tid, cpu, dlen = int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6))
            cands = index.get((pid, tid, cpu), [])
            ok = any(abs(rel - ms) <= 0.0015 for rel, r in cands)
            if ok:
                matched += 1
            else:
                near = min(cands, key=lambda c: abs(c[0] - ms), default=None)
                check(False, f"{golden}: no record at {ms} ms for pid {pid} tid {tid} cpu {cpu} "
                             f"(nearest {near[0] if near else None})")
        check(n > 0 and matched == n, f"{golden}: {matched}/{n} listed events found at their golden time")
        print(f"ok {golden}: {matched}/{n} events at the golden's time")


# ---- damage: truncation, corruption, junk ---------------------------------------------------
def test_damage():
    tmp = tempfile.mkdtemp(prefix="etl-damage-")
    try:
        # not an .etl file, missing file, too short
        junk = os.path.join(tmp, "junk.etl")
        with open(junk, "wb") as f:
            f.write(b"\x00\x00\x01\xba" + bytes(range(256)) * 8)  # MPEG pack header and noise
        p = run("--summary", junk)
        check(p.returncode == 2 and "not an ETW trace" in p.stderr, f"junk: exit 2 with reason: {p.stderr!r}")
        p = run("--summary", os.path.join(tmp, "missing.etl"))
        check(p.returncode == 2 and "No such file" in p.stderr, f"missing: exit 2 ({p.stderr!r})")
        short = os.path.join(tmp, "short.etl")
        with open(short, "wb") as f:
            f.write(b"\x00" * 40)
        p = run("--summary", short)
        check(p.returncode == 2 and "too short" in p.stderr, f"short: exit 2 ({p.stderr!r})")

        # truncations at many points of several captures: no crash, prefix kept, exit 1 (or 0
        # when the cut only removes unused slack)
        for cap in ["perfview_net452_x64_merged_compressed.etl", "etlparser_AMSITrace_tracelogging.etl",
                    "perfview_diaghub_user_paged_clr_tl.etl", "syzygy_sawbuck_image_data_32_v2_win7x86.etl",
                    "perfview_smallEtlFile_32bit_compressed.etl", "tx_HTTP_Server_manifest.etl"]:
            data = open(os.path.join(CAPTURES, cap), "rb").read()
            full = summary(os.path.join(CAPTURES, cap))[1]["records"]
            cuts = sorted(set([0x48 - 5, 0x48 + 3, 0x48 + 0x1C, 0x48 + 0x70, 0x48 + 0x120, 0x200 + 0x30,
                               0x200 + 0x49, 0x200 + 0x90] + [len(data) * k // 37 for k in range(1, 37)]))
            prev = -1
            for cut in cuts:
                if cut <= 0 or cut >= len(data):
                    continue
                path = os.path.join(tmp, "cut.etl")
                with open(path, "wb") as f:
                    f.write(data[:cut])
                p, s = summary(path)
                if cut < 0x48:
                    check(p.returncode == 2, f"{cap} cut at {cut}: unusable, exit 2")
                    continue
                check(p.returncode in (0, 1) and s is not None, f"{cap} cut at {cut}: read (rc {p.returncode})")
                if s is None:
                    continue
                check(s["records"] <= full, f"{cap} cut at {cut}: no invented records")
                check(s["records"] >= prev or prev < 0, f"{cap} cut at {cut}: a longer prefix keeps at least as much")
                if p.returncode == 1:
                    check("offset 0x" in p.stderr, f"{cap} cut at {cut}: damage names an offset: {p.stderr[:200]!r}")
                prev = s["records"]
            check(prev > 0, f"{cap}: truncated prefixes still decode records")

        # a corrupted buffer in the middle: reported, skipped, the buffers after it decoded
        for cap, nbuf_size in [("tx_HTTP_Server_manifest.etl", 8192), ("etlparser_ShutdownPerfDiagLogger_kernel.etl", 65536)]:
            data = bytearray(open(os.path.join(CAPTURES, cap), "rb").read())
            full = summary(os.path.join(CAPTURES, cap))[1]["records"]
            bad_off = nbuf_size * (len(data) // nbuf_size // 2)
            before = summary(os.path.join(CAPTURES, cap))
            data[bad_off:bad_off + 0x48] = b"\xA5" * 0x48  # an impossible buffer header
            path = os.path.join(tmp, "corrupt.etl")
            with open(path, "wb") as f:
                f.write(data)
            p, s = summary(path)
            check(p.returncode == 1, f"{cap}: corrupt buffer gives exit 1")
            check(f"0x{bad_off:x}" in p.stderr and "skipped" in p.stderr, f"{cap}: names the offset: {p.stderr[:300]!r}")
            check(s["skipped"]["buffers"] == 1, f"{cap}: one buffer skipped ({s['skipped']})")
            check(s["skipped"]["bytes"] == nbuf_size, f"{cap}: skipped bytes {s['skipped']['bytes']} == {nbuf_size}")
            check(0 < s["records"] < full, f"{cap}: the other buffers decode ({s['records']} of {full})")
            # the buffers after the bad one are there: records from the last buffer still come out
            p2, recs = records(path, "--order=file")
            check(any(r["position"] >> 21 > bad_off for r in recs), f"{cap}: records after the bad buffer")
            # records inside a buffer overwritten with junk: the buffer's records up to there kept
            data = bytearray(open(os.path.join(CAPTURES, cap), "rb").read())
            _, recs = records(os.path.join(CAPTURES, cap), "--order=file")
            in_buf = [(r["position"] & 0x1FFFFF) << 3 for r in recs if r["position"] >> 21 == bad_off]
            rec_off = in_buf[len(in_buf) // 2]  # a record in the middle of that buffer
            data[bad_off + rec_off: bad_off + rec_off + 8] = b"\x11" * 8
            with open(path, "wb") as f:
                f.write(data)
            p, s = summary(path)
            check(p.returncode == 1 and "rest of the buffer" in p.stderr, f"{cap}: bad record reported: {p.stderr[:300]!r}")
            lost = len(in_buf) - len(in_buf) // 2
            check(s["records"] == full - lost, f"{cap}: only that buffer's tail lost ({s['records']} == {full} - {lost})")
            check(f"0x{bad_off + rec_off:x}" in p.stderr, f"{cap}: the bad record's file offset is named")

        # a corrupt compressed stream: reported, the other buffers decode
        cap = "perfview_net452_x64_merged_compressed.etl"
        data = bytearray(open(os.path.join(CAPTURES, cap), "rb").read())
        full = summary(os.path.join(CAPTURES, cap))[1]["records"]
        off = 0x3ca8  # the third buffer (compressed)
        data[off + 0x48 + 40: off + 0x48 + 48] = b"\xff\xff\xff\xff\xff\xff\xff\xff"
        path = os.path.join(tmp, "badlzx.etl")
        with open(path, "wb") as f:
            f.write(data)
        p, s = summary(path)
        check(p.returncode == 1 and "0x3ca8" in p.stderr, f"bad compressed buffer reported: {p.stderr[:300]!r}")
        check(full - 2000 < s["records"] < full, f"bad compressed buffer: the rest decodes ({s['records']} of {full})")

        # zero-filled tail (a preallocated file's unused space) is not damage
        data = open(os.path.join(CAPTURES, "tx_HTTP_Server_manifest.etl"), "rb").read() + b"\0" * 20000
        with open(path, "wb") as f:
            f.write(data)
        p, s = summary(path)
        check(p.returncode == 0 and s["records"] == 2042, f"zero tail: clean read ({p.returncode}, {p.stderr[:200]!r})")
    finally:
        shutil.rmtree(tmp)


# ---- positions: every record reads back identically by position ------------------------------
def test_positions():
    for name in captures():
        path = os.path.join(CAPTURES, name)
        if os.path.getsize(path) == 0:
            continue
        for order in ("time", "file"):
            p = run("--verify-positions", "--order=" + order, path)
            m = re.search(r"(\d+) records re-read by position, (\d+) mismatches", p.stderr)
            check(p.returncode == 0 and m and int(m.group(1)) > 0 and m.group(2) == "0",
                  f"{name} ({order} order): positions read back: {p.stderr[-200:]!r}")
        print(f"ok {name}")


# ---- order: time order is really sorted; file order is the stored order ----------------------
def test_order():
    for name in ["perfview_net452_x64_merged_compressed.etl", "tx_HTTP_Server_manifest.etl",
                 "perfview_diaghub_user_paged_clr_tl.etl", "etlparser_ShutdownPerfDiagLogger_kernel.etl"]:
        path = os.path.join(CAPTURES, name)
        _, timed = records(path)
        _, stored = records(path, "--order=file")
        check(len(timed) == len(stored) and sorted(r["position"] for r in timed) == sorted(r["position"] for r in stored),
              f"{name}: both orders deliver the same records")
        raw = [r["timestamp_raw"] for r in timed if r["header_type"] != "MESSAGE"]
        check(all(a <= b for a, b in zip(raw, raw[1:])), f"{name}: time order is sorted")
        # file order: buffer by buffer as stored, records within a buffer in offset order
        offs = [r["position"] for r in stored]
        check(offs == sorted(offs), f"{name}: file order is ascending position")
        s = summary(path)[1]
        check(s["order_fallbacks"] == 0, f"{name}: no out-of-order deliveries with the default window")
        # a window of one buffer still delivers everything, counting what came out of order
        s1 = summary(path, "--window=1")[1]
        check(s1["records"] == s["records"], f"{name}: window 1 delivers every record")
        print(f"ok {name}: {len(timed)} records, window-1 fallbacks {s1['order_fallbacks']}")


{"corpus": test_corpus, "timestamps": test_timestamps, "damage": test_damage, "positions": test_positions,
 "order": test_order}[WHICH]()
finish()
