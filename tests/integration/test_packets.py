#!/usr/bin/env python3
"""Packets carried in ETW traces, end to end through etldump --pcapng.

Usage: test_packets.py ETLDUMP SHARED_DIR TEST [ETLGEN]
TEST is one of:
  golden     the shared pktmon capture against pktmon's own pcapng of it: the same 114 frames,
             the same bytes, the same microsecond times, the same order; interfaces named from
             the rundown; the options (direction, packet id, comment); tshark reads it
  first      --first-appearance writes each pktmon packet once
  ndiscap    the generated ndiscap trace: the frames expected of each case, bad inputs counted
  pktmon     the generated pktmon trace: the same, drops with verdicts, built-in layouts
  large      pktmon_large (5000 packets): every appearance, and first appearances
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
    check(not any(7 in a["opts"] for a in got), "no drop verdict (the capture has no drops)")
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
    p = subprocess.run([ETLDUMP, "--first-appearance", CAPTURE], capture_output=True, text=True)
    check(p.returncode == 2 and "--pcapng" in p.stderr and not p.stdout, "--first-appearance alone is refused")
    p = subprocess.run([ETLDUMP, "--pcapng", "/nonexistent-dir/x.pcapng", CAPTURE], capture_output=True, text=True)
    check(p.returncode == 2 and "cannot write" in p.stderr, "an unwritable OUT: exit 2 with a message")


# ---- generated traces (tests/etlgen/etlgen_packets.c) --------------------------------------------
# The frames are rebuilt here from the same recipe as the generator's, so the check is on bytes.
UDP_PORT = 40001


def ip4_udp(length, seq):
    f = bytearray([0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2])
    f[2:4] = struct.pack(">H", length)
    f[4:6] = struct.pack(">H", seq)
    f += struct.pack(">HHHH", seq, UDP_PORT, length - 20, 0)
    f += bytes(i & 0xFF for i in range(28, length))
    return bytes(f)


def ip6_udp(length, seq):
    f = bytearray(48)
    f[0] = 0x60
    f[4:6] = struct.pack(">H", length - 40)
    f[6], f[7] = 17, 64
    f[8], f[23], f[24], f[39] = 0xFD, 1, 0xFD, 2
    f[40:46] = struct.pack(">HHH", seq, UDP_PORT, length - 40)
    f += bytes(i & 0xFF for i in range(48, length))
    return bytes(f)


MACS = bytes([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB])


def eth_udp4(ip_len, seq):
    return MACS + b"\x08\x00" + ip4_udp(ip_len, seq)


def wifi_udp4(ip_len, seq, protected=True):
    head = bytes([0x08, 0x41 if protected else 0x01, 0, 0]) + bytes([0x00, 0x11, 0x22, 0x33, 0x44, 0x55]) + \
        bytes([0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB]) + bytes([0x00, 0x11, 0x22, 0x33, 0x44, 0x56]) + b"\x10\x00" + \
        bytes([0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00])
    return head + ip4_udp(ip_len, seq)


ETH, RAW, WLAN = 1, 101, 105
IN, OUT = 1, 2
# (case, frame bytes, original length, link type, direction)
NDISCAP_FRAMES = [
    ("802.3", eth_udp4(60, 1), 74, ETH, IN),
    ("802.11, Protected cleared", wifi_udp4(80, 2, protected=False), 112, WLAN, IN),
    ("WWAN IPv4", ip4_udp(70, 3), 70, RAW, OUT),
    ("WWAN IPv6", ip6_udp(90, 4), 90, RAW, IN),
    ("three fragments", eth_udp4(286, 5), 300, ETH, OUT),
    ("VMSwitch VLAN", eth_udp4(50, 6), 64, ETH, IN),
    ("truncated", eth_udp4(1000, 7)[:64], 1014, ETH, IN),
    ("FragmentSize past the payload", eth_udp4(46, 8), 60, ETH, IN),
    ("PacketEnd without start", eth_udp4(46, 9), 60, ETH, IN),
]
NDISCAP_PROBLEMS = {"FragmentSize past the payload": 1, "end without start": 1, "start without end": 0,
                    "not written: 0 without a link type, 1": None}
PKTMON_FRAMES = [
    ("appearance 1", eth_udp4(60, 1), 74, ETH, IN),
    ("appearance 2", eth_udp4(60, 1), 74, ETH, IN),
    ("drop", eth_udp4(60, 2), 74, ETH, IN),
    ("128-byte snaplen", eth_udp4(500, 3)[:128], 514, ETH, OUT),
    ("Wi-Fi", wifi_udp4(40, 4, protected=False), 72, WLAN, IN),
    ("raw IP drop", ip4_udp(40, 5), 40, RAW, OUT),
    ("LoggedPayloadSize past the event", ip4_udp(40, 5), 200, RAW, IN),
]
PKTMON_PROBLEMS = {"LoggedPayloadSize past the event": 1, "unknown PacketType": 1, "not written: 1 without a link type": None}


def gen(preset, d, *extra):
    path = os.path.join(d, preset + ".etl")
    subprocess.run([ETLGEN, "--preset", preset, "-o", path, *extra], check=True, capture_output=True)
    return path


def compare(name, p, ifaces, got, frames, problems):
    check(len(got) == len(frames), f"{name}: {len(frames)} frames (got {len(got)})")
    for i, (a, (case, data, orig, link, direction)) in enumerate(zip(got, frames)):
        what = f"{name} frame {i} ({case})"
        check(a["data"] == data, f"{what}: bytes")
        check(a["orig_len"] == orig, f"{what}: original length {orig} (got {a['orig_len']})")
        check(ifaces[a["iface"]]["link"] == link, f"{what}: link type {link} (got {ifaces[a['iface']]['link']})")
        flags = struct.unpack("<I", a["opts"][2][0])[0] & 3 if 2 in a["opts"] else 0
        check(flags == direction, f"{what}: direction {direction} (got {flags})")
    check(p.returncode == 1, f"{name}: bad inputs make exit status 1 (got {p.returncode})")
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    for k, v in problems.items():
        text = k if v is None else f"{k} {v}"
        check(text in last, f"{name}: counted: '{text}' in '{last}'")
    # the problems before the count, one line each with an offset
    lines = [l for l in p.stderr.splitlines() if ": event " in l]
    check(lines and all(": offset 0x" in l for l in lines),
          f"{name}: every bad packet event reported with its offset")


def test_ndiscap():
    with tempfile.TemporaryDirectory() as d:
        path = gen("ndiscap", d)
        p, ifaces, got, out = pcapng(path)
        t = tshark("-r", out, "-T", "fields", "-e", "frame.protocols", "-e", "wlan.fc.protected")
        os.unlink(out)
        protos = [l.split("\t") for l in t.stdout.splitlines()]
        want = ["eth:ethertype:ip:udp", "wlan:llc:ip:udp", "raw:ip:udp", "raw:ipv6:udp"]
        check(t.returncode == 0 and [r[0].rsplit(":", 1)[0] for r in protos[:4]] == want,
              f"tshark dissects Ethernet, 802.11 (decrypted), raw IPv4 and raw IPv6 ({protos[:4]})")
        check(len(protos) > 1 and protos[1][1] == "0", "tshark: the 802.11 frame is not Protected")
        compare("ndiscap", p, ifaces, got, NDISCAP_FRAMES, NDISCAP_PROBLEMS)
        check(all(i["name"].startswith("ndiscap ifindex") for i in ifaces), "ndiscap interfaces named by ifindex")
        check(any("medium 16" in i["description"] for i in ifaces), "the media rundown reaches the descriptions")
        vms = [i for i in ifaces if "VMSwitch port 77, VLAN 100" in i["description"]]
        check(len(vms) == 1, "the VMSwitch interface is per port and VLAN")
        comments = [a["opts"].get(1, [b""])[0].decode() for a in got]
        check("radio 2437 MHz -42 dBm rate 108" in comments[1], f"the 802.11 frame's comment has its radio metadata ({comments[1]})")
        check("fragments 3" in comments[4], "the joined packet's comment says 3 fragments")
        check("VLAN 100 priority 5" in comments[5], "the VMSwitch frame's comment has its VLAN")
        check(all(c.startswith("PID 4 TID 100") for c in comments), "PID/TID in every comment")
        links = sorted({(i["name"], i["link"]) for i in ifaces})
        check(len(links) == len(ifaces), f"one interface per ifindex and link type ({links})")


def test_pktmon_generated():
    with tempfile.TemporaryDirectory() as d:
        path = gen("pktmon", d)
        p, ifaces, got, out_keep = pcapng(path)
        compare("pktmon", p, ifaces, got, PKTMON_FRAMES, PKTMON_PROBLEMS)
        names = [i["name"] for i in ifaces]
        # one interface per component and link type: wifi.sys carries Wi-Fi and raw IP
        check(names == ["netvsc.sys", "tcpip.sys", "wifi.sys", "wifi.sys", "netvsc.sys"],
              f"components named from the rundown at the trace's end ({names})")
        verdicts = [a for a in got if 7 in a["opts"]]
        check(len(verdicts) == 2, f"the two drops carry a verdict (got {len(verdicts)})")
        check(all(struct.unpack_from("<BI", v["opts"][7][0])[1] in (0x386, 0x38B) for v in verdicts),
              "the verdict holds the DropReason")
        # Wireshark reads every option: packet id, verdict, direction, comment
        t = tshark("-r", out_keep, "-T", "fields", "-e", "frame.protocols", "-e", "frame.packet_id",
                   "-e", "frame.verdict.hw", "-e", "frame.len", "-e", "frame.cap_len")
        check(t.returncode == 0, f"tshark reads the pktmon pcapng ({t.stderr.strip()[:200]})")
        rows = [l.split("\t") for l in t.stdout.splitlines()]
        check(len(rows) == len(PKTMON_FRAMES), f"tshark: {len(PKTMON_FRAMES)} frames (got {len(rows)})")
        verdicts_hw = [r[2].replace(":", "").replace(" ", "") for r in rows if len(r) > 2 and r[2]]
        check(verdicts_hw == ["860300000a0400e0", "8b0300000a0400e0"],
              "tshark shows the two verdicts: hardware, DropReason then DropLocation")
        check(rows and rows[3][3:5] == ["514", "128"], "tshark: the 128-byte snaplen is a cut frame (len 514, cap_len 128)")
        check(rows and rows[4][0].startswith("wlan") and rows[5][0].startswith("raw:ip"), "tshark: Wi-Fi and raw IP frames")
        # no schema carried: the built-in layouts decode the events' fields
        j = subprocess.run([ETLDUMP, "--no-payload", path], capture_output=True, text=True)
        import json
        evs = [json.loads(l) for l in j.stdout.splitlines()]
        drops = [e for e in evs if e.get("event_id") == 170]
        check(drops and drops[0].get("fields", {}).get("DropReason") == "Not locally destined",
              "etldump decodes pktmon's fields with no manifest (built-in layouts)")
        os.unlink(out_keep)


def test_large():
    with tempfile.TemporaryDirectory() as d:
        path = gen("pktmon_large", d, "--records", "5000")
        p, ifaces, got, out = pcapng(path)
        os.unlink(out)
        check(p.returncode == 0 and len(got) == 5000, f"pktmon_large: 5000 frames (got {len(got)})")
        p, ifaces, first, out = pcapng(path, "--first-appearance")
        os.unlink(out)
        check(len(first) == 2500, f"pktmon_large: 2500 first appearances (got {len(first)})")


TESTS = {"golden": test_golden, "first": test_first, "ndiscap": test_ndiscap, "pktmon": test_pktmon_generated,
         "large": test_large}
TESTS[WHICH]()
finish()
