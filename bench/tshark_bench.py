#!/usr/bin/env python3
"""tshark_bench.py - what an ETW frame fully decoded costs tshark against a DNS frame (issue 16:
at most 1.0x, summary lines and -V).  A bench, not a timed test.

    bench/tshark_bench.py BUILD_DIR [--capture FILE.etl] [--manifests DIR] [--dns N] [--runs R]

The ETW side is a capture decoded with every schema it has (default: the shared net452,
`perfview_net452_x64_merged_compressed.etl`, with the shared manifests on
ETLSHARK_MANIFEST_PATH); the yardstick is a pcap of N (default 100000) small DNS queries over
Ethernet/IPv4/UDP written here, each a different name, and a one-query pcap for tshark's
start-up.  In one run every file is read R times, alternating (best CPU time of each, user +
system, output to /dev/null), the same environment for all (the manifests are loaded by every
run, the .etl's own per-file prescan counts as its frames' cost).  Per frame = (best - start-up)
/ frames; the ratio is ETW per frame / DNS per frame.  Modes:

  summary   tshark -r FILE        (summary lines)
  verbose   tshark -r FILE -V     (every item of the tree printed)

tshark runs with the build's plugins (BUILD_DIR/plugins), as the unprivileged user etlsharktest
when run as root (tshark_run.py).  Python 3 standard library only.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tshark_run import bench  # noqa: E402

MODES = {
    "summary": [],
    "verbose": ["-V"],
}

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared")


def _ip_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def write_dns_pcap(path, n):
    """A classic pcap (Ethernet) of n DNS A queries, host<i % 1000>.example.com, one per ms."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(n):
            qname = b"".join(bytes([len(p)]) + p for p in (b"host%d" % (i % 1000), b"example", b"com")) + b"\0"
            dns = struct.pack("!HHHHHH", i & 0xFFFF, 0x0100, 1, 0, 0, 0) + qname + struct.pack("!HH", 1, 1)
            udp = struct.pack("!HHHH", 1024 + i % 50000, 53, 8 + len(dns), 0) + dns
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF, 0, 64, 17, 0,
                             bytes([10, 0, 0, 1]), bytes([10, 0, 0, 53]))
            ip = ip[:10] + struct.pack("!H", _ip_checksum(ip)) + ip[12:]
            frame = bytes.fromhex("001122334455" "66778899aabb" "0800") + ip + udp
            out.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(frame), len(frame)))
            out.write(frame)


def _args(ap):
    ap.add_argument("--capture", default=os.path.join(SHARED, "captures", "perfview_net452_x64_merged_compressed.etl"))
    ap.add_argument("--manifests", default=os.path.join(SHARED, "manifests"),
                    help="manifest folder for ETLSHARK_MANIFEST_PATH ('' for none)")
    ap.add_argument("--dns", type=int, default=100000)


def _prepare(ts, args):
    if args.manifests:
        ts.env["ETLSHARK_MANIFEST_PATH"] = ts.copy_in(args.manifests, "manifests")
    etl = ts.copy_in(args.capture, "trace.etl")
    dns, tiny = ts.path("dns.pcap"), ts.path("tiny.pcap")
    write_dns_pcap(dns, args.dns)
    write_dns_pcap(tiny, 1)
    files = {"etl": (etl, "frame"), "dns": (dns, "dns")}

    def describe(n):
        return (f"{os.path.basename(args.capture)}: {n['etl']} frames, manifests "
                f"{args.manifests or '(none)'}; DNS pcap: {n['dns']} queries")
    return files, tiny, describe


if __name__ == "__main__":
    bench(__doc__, MODES, _args, _prepare)
