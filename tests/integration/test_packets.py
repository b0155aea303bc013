#!/usr/bin/env python3
"""Packets carried in ETW traces, end to end through etldump --pcapng.

Usage: test_packets.py ETLDUMP SHARED_DIR TEST [ETLGEN]
TEST is one of:
  golden     the shared pktmon capture against pktmon's own pcapng of it: the same 114 frames,
             the same bytes, the same microsecond times, the same order; interfaces named from
             the rundown; the options (direction, packet id, comment); tshark reads it
  first      --first-appearance writes each pktmon packet once
  ndiscap    the generated ndiscap traces: the frames expected of each case, bad inputs counted
"""
import os
import struct
import subprocess
import sys
import tempfile

from checks import check, finish
import pcapng_read

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
ETLGEN = sys.argv[4] if len(sys.argv) > 4 else None
CAPTURE = os.path.join(SHARED, "captures", "pktmon_demikernel_ws2022.etl")
GOLDEN = os.path.join(SHARED, "goldens", "pktmon_demikernel_ws2022.reference.pcapng")


def pcapng(path, *extra):
    out = tempfile.NamedTemporaryFile(suffix=".pcapng", delete=False)
    out.close()
    p = subprocess.run([ETLDUMP, "--pcapng", out.name, *extra, path], capture_output=True, text=True)
    try:
        ifaces, packets = pcapng_read.read(out.name) if os.path.getsize(out.name) else ([], [])
    finally:
        keep = out.name
    return p, ifaces, packets, keep


def tshark(*args):
    """tshark as the unprivileged test user when run as root (as tests/plugin does: Wireshark
    is not meant to run as root); files are copied to a folder that user can read."""
    import pwd
    import shutil
    kw = {}
    d = tempfile.mkdtemp(prefix="etlshark-packets-")
    os.chmod(d, 0o755)
    files = []
    for a in args:
        if os.path.isfile(a):
            dst = os.path.join(d, os.path.basename(a))
            shutil.copyfile(a, dst)
            os.chmod(dst, 0o644)
            files.append(dst)
        else:
            files.append(a)
    if os.geteuid() == 0:
        try:
            u = pwd.getpwnam("etlsharktest")
        except KeyError:
            subprocess.run(["useradd", "-m", "etlsharktest"], capture_output=True)
            u = pwd.getpwnam("etlsharktest")
        kw.update(user=u.pw_uid, group=u.pw_gid, extra_groups=[], env={"HOME": u.pw_dir, "PATH": os.environ["PATH"]})
    try:
        return subprocess.run(["tshark", *files], capture_output=True, text=True, cwd=d, **kw)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def usec(t):
    return int(t * 1000000)


def test_golden():
    p, ifaces, got, path = pcapng(CAPTURE)
    check(p.returncode == 0, f"etldump --pcapng exits 0 (got {p.returncode}: {p.stderr.strip()})")
    gifaces, want = pcapng_read.read(GOLDEN)
    check(len(want) == 114, f"the golden holds 114 frames (got {len(want)})")
    check(len(got) == len(want), f"{len(want)} frames written (got {len(got)})")
    same_bytes = sum(1 for a, b in zip(got, want) if a["data"] == b["data"])
    check(same_bytes == len(want), f"every frame byte-identical, in order ({same_bytes} of {len(want)})")
    same_time = sum(1 for a, b in zip(got, want) if usec(a["time"]) == usec(b["time"]))
    check(same_time == len(want), f"every time equal to the microsecond ({same_time} of {len(want)})")
    bad = [(i, usec(a["time"]), usec(b["time"])) for i, (a, b) in enumerate(zip(got, want)) if usec(a["time"]) != usec(b["time"])]
    if bad:
        print("first time differences:", bad[:5])
    check(all(a["orig_len"] == b["orig_len"] for a, b in zip(got, want)), "original lengths equal")
    check(all(ifaces[a["iface"]]["link"] == gifaces[b["iface"]]["link"] == 1 for a, b in zip(got, want)),
          "every frame on an Ethernet interface, as in the golden")
    # one interface per component, named from the rundown (event 20 comes at the end of the trace)
    names = {i["name"] for i in ifaces}
    check(all(i["name"] and not i["name"].startswith("pktmon component") for i in ifaces),
          f"every interface named from the component rundown ({sorted(names)})")
    check(all("pktmon component" in i["description"] for i in ifaces), "descriptions name the component id")
    keys = [(a["iface"]) for a in got]
    check(len(set(keys)) == len(ifaces), "every interface written is used")
    # per packet: direction flag, the PktGroupId as packet id, PID/TID in the comment
    check(all(2 in a["opts"] and struct.unpack("<I", a["opts"][2][0])[0] & 3 in (1, 2) for a in got),
          "every packet has an epb_flags direction")
    check(all(5 in a["opts"] and len(a["opts"][5][0]) == 8 for a in got), "every packet has an epb_packetid")
    check(all(1 in a["opts"] and a["opts"][1][0].startswith(b"PID ") for a in got), "every packet has a PID/TID comment")
    check(not any(6 in a["opts"] for a in got), "no drop verdict (the capture has no drops)")
    # other tools read it
    fields = ["-T", "fields", "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst", "-e", "icmp.seq"]
    t = tshark("-r", path, *fields)
    if t.returncode == 0:
        lines = t.stdout.splitlines()
        g = tshark("-r", GOLDEN, *fields).stdout.splitlines()
        check(lines == g, f"tshark: the same time/ip.src/icmp.seq lines as on the golden ({len(lines)} vs {len(g)})")
    else:
        print("tshark not usable here; skipped the cross-check:", t.stderr.strip()[:200])
    os.unlink(path)


def test_first():
    p, ifaces, every, path = pcapng(CAPTURE)
    os.unlink(path)
    p, ifaces, first, path = pcapng(CAPTURE, "--first-appearance")
    os.unlink(path)
    check(p.returncode == 0, "--first-appearance exits 0")
    ids = [a["opts"][5][0] for a in first]
    check(len(ids) == len(set(ids)), "each packet id once")
    check(0 < len(first) < len(every), f"fewer frames than every appearance ({len(first)} of {len(every)})")
    check(set(ids) == {a["opts"][5][0] for a in every}, "every packet is there once")


# ---- generated ndiscap traces -----------------------------------------------------------------
# Each case: the etlgen preset, the frames expected (link type, captured bytes' length, original
# length, direction), and the bad-input counters expected in etldump's last stderr line.
def gen(preset, d):
    path = os.path.join(d, preset + ".etl")
    subprocess.run([ETLGEN, "--preset", preset, "-o", path], check=True, capture_output=True)
    return path


def test_ndiscap():
    import json
    with tempfile.TemporaryDirectory() as d:
        path = gen("ndiscap", d)
        p, ifaces, got, out = pcapng(path)
        os.unlink(out)
        expect = json.load(open(path + ".expect.json")) if os.path.exists(path + ".expect.json") else None
        check(expect is not None, "etlgen wrote the expected frames beside the trace")
        if expect is None:
            return
        check(len(got) == len(expect["frames"]), f"{len(expect['frames'])} frames (got {len(got)})")
        for i, (a, e) in enumerate(zip(got, expect["frames"])):
            what = f"frame {i} ({e['case']})"
            check(a["data"].hex() == e["hex"], f"{what}: bytes")
            check(a["orig_len"] == e["orig_len"], f"{what}: original length {e['orig_len']} (got {a['orig_len']})")
            check(ifaces[a["iface"]]["link"] == e["link"], f"{what}: link type {e['link']} (got {ifaces[a['iface']]['link']})")
            flags = struct.unpack("<I", a["opts"][2][0])[0] & 3 if 2 in a["opts"] else 0
            check(flags == e["dir"], f"{what}: direction {e['dir']} (got {flags})")
        check(p.returncode == 1, f"bad inputs make exit status 1 (got {p.returncode})")
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        for k, v in expect["problems"].items():
            check(f"{k} {v}" in last, f"counted: '{k} {v}' in '{last}'")
        # interfaces: named, one per LowerIfIndex and link type, media from the 1014/1015 rundown
        check(all(i["name"].startswith("ndiscap ifindex") for i in ifaces), "ndiscap interfaces named by ifindex")
        check(any("medium" in i["description"] for i in ifaces), "the media rundown reaches an interface description")


TESTS = {"golden": test_golden, "first": test_first, "ndiscap": test_ndiscap}
TESTS[WHICH]()
finish()
