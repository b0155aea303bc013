#!/usr/bin/env python3
"""check_etlgen.py - check etlgen's output against an independent reader.

For every preset:
  * `etlgen --preset NAME -o FILE` twice, once through the file sink and once through
    the memory sink (--memory): the two files must be byte-identical;
  * the shared scanner `etlscan.py --json FILE` must agree with `etlgen --preset NAME
    --expect` on records, header_types, ext_types, providers, buffers and
    compressed_buffers, report no anomaly and decompress every compressed buffer;
  * buffer headers and record timestamps are walked here as well (invariants the
    scanner does not look at: SavedOffset == Offset, CPU numbers, sequence numbers,
    0xFF fill, 8-byte alignment, for `interleaved` a file order that is not the
    timestamp order and payload sequence numbers that sort by timestamp);
  * if the repository's captures/NAME.etl exists it must equal the fresh output.
Then the LZXpress compressor (`etlgen --lzx-compress`) is fed assorted inputs whose
streams must inflate back exactly with etlscan's lzxpress_plain_decompress.

etlscan does not attribute MESSAGE and ERROR records to providers; MESSAGE GUIDs are
taken from its wpp_message_guids and ERROR ProviderIds from a one-method extension of
its Scan class, so the provider counts are compared in full.

Usage: check_etlgen.py [--etlgen PATH] [--etlscan PATH] [--records N]
Exit status 0 = pass, 1 = failure, 77 = etlscan.py not found (skip).
"""
import argparse
import importlib.util
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_ETLSCAN = os.path.join(os.path.dirname(REPO), "shared", "tools", "etlscan.py")
DEFAULT_ETLGEN = [os.path.join(REPO, "build", "tests", "etlgen", "etlgen"), "/tmp/etlgen-build/etlgen"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def load_etlscan(path):
    spec = importlib.util.spec_from_file_location("etlscan", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout


def scan_with_error_providers(etlscan, path):
    """etlscan's Scan, also counting ERROR records under their ProviderId."""
    class Scan(etlscan.Scan):
        def on_record(self, rec, htype, size, marker):
            super().on_record(rec, htype, size, marker)
            if htype == 0x0D and size >= 0x28:
                self.r["providers"][etlscan.guid_at(rec, 0x18)] += 1
    sc = Scan(path, {}, 15)
    sc.run()
    return sc.summary()


def ext_key(scan_key):
    """etlscan names ext types "11 EVENT_SCHEMA_TL" (or "48 ?"); etlgen "EVENT_SCHEMA_TL"."""
    num, name = scan_key.split(" ", 1)
    return "UNKNOWN_%s" % num if name == "?" else name


def header_key(scan_key):
    return "MESSAGE" if scan_key.startswith("MESSAGE(") else scan_key


def compare_counts(preset, expect, scan, full_scan):
    got = {
        "records": scan["records"],
        "header_types": {header_key(k): v for k, v in scan["header_types"].items()},
        "ext_types": {ext_key(k): v for k, v in scan["ext_types"].items()},
        "buffers": scan["buffers"],
        "compressed_buffers": scan["compressed_buffers"],
    }
    providers = {p["guid"]: p["count"] for p in full_scan["providers"]}
    for g, n in scan["wpp_message_guids"].items():
        providers[g] = providers.get(g, 0) + n
    got["providers"] = providers
    # The extension may only add ERROR providers to what the command-line scan found.
    for p in scan["providers"]:
        if providers.get(p["guid"], 0) < p["count"]:
            fail("%s: extended scan lost provider %s" % (preset, p["guid"]))
    for key in ("records", "header_types", "ext_types", "providers", "buffers", "compressed_buffers"):
        if got[key] != expect[key]:
            fail("%s: %s: etlscan %r != expect %r" % (preset, key, got[key], expect[key]))
    if not expect.get("providers_complete", True):
        fail("%s: writer provider table overflowed" % preset)
    anomalies = dict(scan["anomalies"])
    if scan["compressed_buffers"]:
        # Compressed buffers have their own sizes, as in real compressed files.
        anomalies.pop("buffer size varies", None)
    if anomalies:
        fail("%s: etlscan anomalies %r" % (preset, anomalies))
    if scan.get("error"):
        fail("%s: etlscan error %r" % (preset, scan["error"]))
    if scan["decompressed_ok"] != scan["compressed_buffers"]:
        fail("%s: %d of %d compressed buffers inflated" % (preset, scan["decompressed_ok"],
                                                         scan["compressed_buffers"]))
    if scan["saved_offset_differs"]:
        fail("%s: SavedOffset != Offset in %d buffers" % (preset, scan["saved_offset_differs"]))
    if scan["size"] != expect["file_size"]:
        fail("%s: file size %d != expect %d" % (preset, scan["size"], expect["file_size"]))
    if expect["dropped"]:
        fail("%s: writer dropped %d records" % (preset, expect["dropped"]))
    lf = scan.get("logfile_header", {})
    if lf.get("BuffersWritten") != scan["buffers"]:
        fail("%s: BuffersWritten %r != %d buffers" % (preset, lf.get("BuffersWritten"), scan["buffers"]))
    if not lf.get("EndTime", 0) > lf.get("StartTime", 0):
        fail("%s: EndTime not after StartTime" % preset)


SYSTEMISH = {0x01: 0x20, 0x02: 0x20, 0x03: 0x18, 0x04: 0x18, 0x10: 0x10, 0x11: 0x10}


def record_timestamp(rec, htype):
    """Raw timestamp and payload offset, or (None, None) for records that have none."""
    if htype in (0x01, 0x02, 0x03, 0x04):
        return struct.unpack_from("<q", rec, 0x10)[0], SYSTEMISH[htype]
    if htype in (0x10, 0x11):
        return struct.unpack_from("<q", rec, 0x08)[0], 0x10
    if htype in (0x0A, 0x0B, 0x0D, 0x12, 0x13, 0x14, 0x15):
        return struct.unpack_from("<q", rec, 0x10)[0], None
    return None, None


def walk(etlscan, path, preset):
    """Buffer-header invariants; returns [(timestamp, header type, record bytes)] in file order."""
    blob = open(path, "rb").read()
    lf_bufsize = struct.unpack_from("<I", blob, 0x48 + 0x20)[0]
    ncpu = struct.unpack_from("<I", blob, 0x48 + 0x20 + 0x0C)[0]
    compressed = bool(struct.unpack_from("<I", blob, 0x48 + 0x20 + 0x20)[0] & 0x04000000)
    records = []
    off, idx, last_seq = 0, 0, -1
    while off < len(blob):
        (bsize, saved, cur, _ref, ts, seq, _clk, proc, _logger, state, filled, flag,
         btype) = struct.unpack_from("<IIIIQqQHHIIHH", blob, off)
        where = "%s buffer %d @0x%x" % (preset, idx, off)
        if saved != filled or cur != saved or state != 3:
            fail("%s: SavedOffset/CurrentOffset/Offset/State %x/%x/%x/%d" % (where, saved, cur, filled, state))
        if (btype == 4) != (idx == 0):
            fail("%s: BufferType %d" % (where, btype))
        if idx > 0 and (seq <= last_seq or proc >= ncpu):
            fail("%s: sequence %d after %d, cpu %d" % (where, seq, last_seq, proc))
        last_seq = seq
        if flag & 0x40:
            payload = etlscan.lzxpress_plain_decompress(blob[off + 0x48:off + bsize])
            if len(payload) != filled - 0x48:
                fail("%s: inflated %d bytes, Offset says %d" % (where, len(payload), filled - 0x48))
        else:
            payload = blob[off + 0x48:off + filled]
            fill = blob[off + filled:off + bsize]
            if fill.strip(b"\xff"):
                fail("%s: slack after Offset is not 0xFF" % where)
            expected_size = lf_bufsize if not compressed else ((filled + 0x1FF) & ~0x1FF)
            if bsize != min(expected_size, lf_bufsize):
                fail("%s: BufferSize 0x%x" % (where, bsize))
        if compressed and idx > 0 and not flag & 0x40:
            fail("%s: not compressed" % where)
        pos = 0
        while pos + 4 <= len(payload):
            marker = struct.unpack_from("<I", payload, pos)[0]
            htype = (marker >> 16) & 0xFF if marker >> 24 == 0xC0 else 0x0F
            size = struct.unpack_from("<H", payload, pos + 4)[0] if htype in SYSTEMISH else marker & 0xFFFF
            rec = payload[pos:pos + size]
            pad = payload[pos + size:pos + ((size + 7) & ~7)]
            if pad.strip(b"\0"):
                fail("%s: non-zero alignment pad at 0x%x" % (where, pos))
            t, _ = record_timestamp(rec, htype)
            records.append((t, htype, bytes(rec), idx, proc))
            pos += (size + 7) & ~7
        if pos != len(payload):
            fail("%s: records end at 0x%x, data at 0x%x" % (where, pos, len(payload)))
        off += bsize
        idx += 1
    return records


def check_interleaved(records):
    timed = [(t, h, rec, b, cpu) for (t, h, rec, b, cpu) in records if t is not None]
    body = timed[1:]  # skip the logfile header
    stamps = [t for t, *_ in body]
    if stamps == sorted(stamps):
        fail("interleaved: file order equals timestamp order")
    if len(set(stamps)) != len(stamps):
        fail("interleaved: duplicate timestamps")
    merged = sorted(body, key=lambda r: r[0])
    seqs = []
    for t, h, rec, b, cpu in merged:
        off = 0x10 if h in (0x10, 0x11) else 0x50
        seq, rcpu = struct.unpack_from("<QI", rec, off)
        seqs.append(seq)
        if rcpu != cpu:
            fail("interleaved: record seq %d says cpu %d, buffer cpu %d" % (seq, rcpu, cpu))
    if seqs != list(range(len(seqs))):
        fail("interleaved: payload sequence is not the timestamp order")
    # Buffers whose time ranges overlap another CPU's: the point of the preset.
    ranges = {}
    for t, h, rec, b, cpu in body:
        lo, hi, c = ranges.get(b, (t, t, cpu))
        ranges[b] = (min(lo, t), max(hi, t), cpu)
    overlaps = sum(1 for a in ranges.values() for b in ranges.values()
                   if a[2] != b[2] and a[0] < b[1] and b[0] < a[1])
    if overlaps == 0:
        fail("interleaved: no buffers of different CPUs overlap in time")


def check_per_cpu_order(preset, records):
    """Inside one CPU's buffers, timestamps never go backwards (one clock per CPU)."""
    last = {}
    for t, h, rec, b, cpu in records[1:]:
        if t is None:
            continue
        if t < last.get(cpu, t):
            fail("%s: timestamps go backwards on cpu %d" % (preset, cpu))
        last[cpu] = t


# ---- TraceLogging: metadata must describe the payload exactly (format doc 5.1-5.6) ----

TL_FIXED = {3: 1, 4: 1, 5: 2, 6: 2, 7: 4, 8: 4, 9: 8, 10: 8, 11: 4, 12: 8, 13: 4, 15: 16,
            17: 8, 18: 16, 20: 4, 21: 8}


def cstr(b, pos):
    end = b.index(b"\0", pos)
    return b[pos:end].decode("utf-8"), end + 1


def parse_tl_metadata(m):
    size = struct.unpack_from("<H", m, 0)[0]
    if size != len(m):
        raise ValueError("metadata size %d, item data %d" % (size, len(m)))
    pos = 2
    while m[pos] & 0x80:
        pos += 1
    name, pos = cstr(m, pos + 1)
    fields = []
    while pos < size:
        fname, pos = cstr(m, pos)
        inmeta = m[pos]
        pos += 1
        outmeta = 0
        if inmeta & 0x80:
            outmeta = m[pos]
            pos += 1
            if outmeta & 0x80:
                while m[pos] & 0x80:
                    pos += 1
                pos += 1
        kind = inmeta & 0x60
        ccount = None
        if kind == 0x20:
            ccount = struct.unpack_from("<H", m, pos)[0]
            pos += 2
        elif kind == 0x60:
            pos += 2 + struct.unpack_from("<H", m, pos)[0]
        fields.append((fname, inmeta & 0x1F, kind, outmeta & 0x7F, ccount))
    if pos != size:
        raise ValueError("metadata fields overrun")
    return name, fields


def tl_skip(fields, i, n):
    for _ in range(n):
        f = fields[i]
        i = tl_skip(fields, i + 1, f[3]) if f[1] == 24 and f[2] != 0x60 else i + 1
    return i


def tl_value(intype, p, pos):
    if intype in TL_FIXED:
        return pos + TL_FIXED[intype]
    if intype == 1:
        while p[pos:pos + 2] != b"\0\0":
            pos += 2
        return pos + 2
    if intype == 2:
        return p.index(b"\0", pos) + 1
    if intype in (14, 22, 23, 25):
        return pos + 2 + struct.unpack_from("<H", p, pos)[0]
    if intype == 19:
        return pos + 8 + 4 * p[pos + 1]
    raise ValueError("intype %d" % intype)


def tl_decode(fields, i, n, p, pos):
    for _ in range(n):
        name, intype, kind, out, ccount = fields[i]
        count = 1
        if kind == 0x20:
            count = ccount
        elif kind == 0x40:
            count = struct.unpack_from("<H", p, pos)[0]
            pos += 2
        if kind == 0x60:
            pos += 2 + struct.unpack_from("<H", p, pos)[0]
            i += 1
        elif intype == 24:
            end = tl_skip(fields, i + 1, out)
            for _ in range(count):
                _, pos = tl_decode(fields, i + 1, out, p, pos)
            i = end
        else:
            for _ in range(count):
                pos = tl_value(intype, p, pos)
            i += 1
        if pos > len(p):
            raise ValueError("payload overrun at field %s" % name)
    return i, pos


def ext_items(rec):
    """(type, data) of each extended item, and the payload offset."""
    items, pos = [], 0x50
    if struct.unpack_from("<H", rec, 4)[0] & 1:
        while True:
            size, etype, link, dsize = struct.unpack_from("<HHHH", rec, pos)
            items.append((etype, rec[pos + 8:pos + 8 + dsize]))
            pos += size
            if not link & 1:
                break
    return items, pos


def check_self_describing(preset, records):
    tl_events = 0
    chunks = []
    for t, h, rec, b, cpu in records:
        if h not in (0x12, 0x13):
            continue
        items, pos = ext_items(rec)
        payload = rec[pos:]
        for etype, data in items:
            if etype == 12:
                tsize = struct.unpack_from("<H", data, 0)[0]
                _, tpos = cstr(data, 2)
                while tpos < tsize:
                    tpos += struct.unpack_from("<H", data, tpos)[0]
                if tsize != len(data) or tpos != tsize:
                    fail("%s: malformed PROV_TRAITS" % preset)
            if etype == 11:
                tl_events += 1
                try:
                    name, fields = parse_tl_metadata(data)
                    n, i = 0, 0
                    while i < len(fields):  # top-level logical fields
                        i = tl_skip(fields, i, 1)
                        n += 1
                    _, end = tl_decode(fields, 0, n, payload, 0)
                    if end != len(payload):
                        fail("%s: TL event %s: fields cover %d of %d payload bytes"
                             % (preset, name, end, len(payload)))
                except (ValueError, IndexError, struct.error) as e:
                    fail("%s: TL event: %r" % (preset, e))
        if struct.unpack_from("<H", rec, 0x28)[0] == 0xFFFE:
            fmt, major, minor, magic, total, number = struct.unpack_from("<BBBBHH", payload, 0)
            if (fmt, major, minor, magic) != (1, 1, 0, 0x5B) or rec[0x2D] != 0xFE or \
                    struct.unpack_from("<H", rec, 0x2E)[0] != 0xFFFE:
                fail("%s: bad EventSource manifest envelope/descriptor" % preset)
            chunks.append((number, total, payload[8:]))
    if chunks:
        import xml.etree.ElementTree as ET
        chunks.sort()
        if [c[0] for c in chunks] != list(range(chunks[0][1])):
            fail("%s: manifest chunks %r" % (preset, [c[:2] for c in chunks]))
        try:
            root = ET.fromstring(b"".join(c[2] for c in chunks))
            ns = "{http://schemas.microsoft.com/win/2004/08/events}"
            if root.find(".//%sprovider" % ns) is None:
                fail("%s: manifest has no provider" % preset)
        except ET.ParseError as e:
            fail("%s: manifest XML: %s" % (preset, e))
    return tl_events


def check_lzx(etlgen, etlscan, tmp):
    rnd = random.Random(1234)
    cases = {
        "empty": b"",
        "one": b"x",
        "three": b"abc",
        "zeros_64k": bytes(65536),
        "zeros_300k": bytes(300000),  # length field past 0xFFFF: u32 form
        "random": bytes(rnd.getrandbits(8) for _ in range(5000)),
        "text": b"the quick brown fox jumps over the lazy dog. " * 400,
        "runs": b"".join(bytes([i % 256]) * (i % 300) for i in range(600)),
        "far": bytes(rnd.getrandbits(8) for _ in range(9000)) * 2,  # repeats beyond the window
    }
    # Lengths around every encoding boundary (3..9 inline, nibble, byte, u16 escapes).
    for n in (3, 9, 10, 24, 25, 26, 279, 280, 281, 65537, 65538, 65539):
        cases["len%d" % n] = b"Q" + b"\x07" * n + b"Z"
    # 32 symbols exactly fill a flag word: the end marker must still be right.
    cases["flags32"] = bytes(range(32))
    cases["flags64"] = bytes(range(64))
    for name, data in cases.items():
        src = os.path.join(tmp, "lzx_" + name)
        dst = src + ".lzx"
        with open(src, "wb") as fh:
            fh.write(data)
        run([etlgen, "--lzx-compress", src, "-o", dst])
        z = open(dst, "rb").read()
        try:
            back = etlscan.lzxpress_plain_decompress(z, limit=1 << 26)
        except (ValueError, IndexError) as e:
            fail("lzx %s: decompression raised %r" % (name, e))
            continue
        if back != data:
            fail("lzx %s: round trip differs (%d -> %d -> %d bytes)" % (name, len(data), len(z), len(back)))
    print("lzx: %d round trips checked" % len(cases))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--etlgen")
    ap.add_argument("--etlscan", default=os.environ.get("ETLSCAN", DEFAULT_ETLSCAN))
    ap.add_argument("--records", type=int, default=30000, help="records for the large presets")
    a = ap.parse_args()
    etlgen = a.etlgen or os.environ.get("ETLGEN") or next((p for p in DEFAULT_ETLGEN if os.path.exists(p)), None)
    if not etlgen or not os.path.exists(etlgen):
        print("etlgen binary not found (use --etlgen)")
        return 1
    if not os.path.exists(a.etlscan):
        print("SKIP: etlscan.py not found at %s (use --etlscan)" % a.etlscan)
        return 77
    etlscan = load_etlscan(a.etlscan)

    presets = [line.split()[0] for line in run([etlgen, "--list"]).decode().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        for preset in presets:
            extra = ["--records", str(a.records)] if preset.startswith("large") else []
            f1 = os.path.join(tmp, preset + ".etl")
            f2 = os.path.join(tmp, preset + ".again.etl")
            run([etlgen, "--preset", preset, "-o", f1] + extra)
            run([etlgen, "--preset", preset, "-o", f2, "--memory"] + extra)
            data = open(f1, "rb").read()
            if data != open(f2, "rb").read():
                fail("%s: two runs (file sink, memory sink) differ" % preset)
            expect = json.loads(run([etlgen, "--preset", preset, "--expect"] + extra))
            scan = json.loads(run([sys.executable, a.etlscan, "--json", f1]))[0]
            full = scan_with_error_providers(etlscan, f1)
            compare_counts(preset, expect, scan, full)
            records = walk(etlscan, f1, preset)
            if len(records) != expect["records"]:
                fail("%s: walk found %d records, expect %d" % (preset, len(records), expect["records"]))
            check_per_cpu_order(preset, records)
            tl = check_self_describing(preset, records)
            if tl != expect["ext_types"].get("EVENT_SCHEMA_TL", 0):
                fail("%s: decoded %d TraceLogging events" % (preset, tl))
            if preset == "interleaved":
                check_interleaved(records)
            committed = os.path.join(REPO, "captures", preset + ".etl")
            if os.path.exists(committed) and open(committed, "rb").read() != data:
                fail("%s: captures/%s.etl differs from the generator's output" % (preset, preset))
            print("%-13s records=%-6d buffers=%-4d compressed=%-3d size=%d" % (
                preset, expect["records"], expect["buffers"], expect["compressed_buffers"], len(data)))
        check_lzx(etlgen, etlscan, tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
