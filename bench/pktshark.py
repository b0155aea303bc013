#!/usr/bin/env python3
"""pktshark.py - what a packet frame costs tshark read from a pktmon .etl against the same frame
read from the equivalent pcapng (issue 12: at most 1.25x).  A bench, not a timed test.

    bench/pktshark.py BUILD_DIR [--records N] [--runs R]

Generates `etlgen --preset pktmon_large --records N` (default 100000 packet events), writes its
pcapng with `etldump --pcapng`, then, in one run, reads both R times, alternating (best CPU time
of each, user + system, of tshark and its children, output to /dev/null), and a tiny pcapng for
tshark's start-up (loading the plugins, registering fields).  Per frame = (best - start-up) /
packet frames; the ratio is .etl per frame / pcapng per frame.  Modes:

  summary   tshark -r FILE                       (summary lines: no protocol tree)
  filter    tshark -r FILE -Y "udp.srcport >= 0"   (summary lines of a display filter: a
                                                 tree that is built but not shown)
  fields    tshark -r FILE -T fields -e ip.src -e udp.srcport   (Wireshark 4.0's tshark builds
                                                 a shown tree for -T fields, as for -V and JSON)
  verbose   tshark -r FILE -V                    (every item of the tree printed)

tshark runs with the build's plugins (BUILD_DIR/plugins) for both files, as the unprivileged
user etlsharktest when run as root (tshark_run.py).  Python 3 standard library only.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tshark_run import bench  # noqa: E402

MODES = {
    "summary": [],
    "filter": ["-Y", "udp.srcport >= 0"],
    "fields": ["-T", "fields", "-e", "ip.src", "-e", "udp.srcport"],
    "verbose": ["-V"],
}


def _args(ap):
    ap.add_argument("--records", type=int, default=100000)


def _prepare(ts, args):
    etlgen = os.path.join(ts.build, "tests", "etlgen", "etlgen")
    etldump = os.path.join(ts.build, "etldump")
    for p in (etlgen, etldump):
        if not os.path.exists(p):
            sys.exit(f"pktshark: {p} is missing (build the project first)")
    etl, pcap = ts.path("large.etl"), ts.path("large.pcapng")
    tiny_etl, tiny = ts.path("tiny.etl"), ts.path("tiny.pcapng")
    subprocess.run([etlgen, "--preset", "pktmon_large", "--records", str(args.records), "-o", etl], check=True)
    subprocess.run([etlgen, "--preset", "pktmon_large", "--records", "1", "-o", tiny_etl], check=True)
    for src, dst in ((etl, pcap), (tiny_etl, tiny)):
        p = subprocess.run([etldump, "--pcapng", dst, src], capture_output=True)
        if p.returncode not in (0, 1):
            sys.exit(f"pktshark: etldump --pcapng {src}: {p.stderr.decode()[:300]}")
    # the packet frames of each file: every pcapng frame; the .etl's frames with a packet
    files = {"etl": (etl, "etl.pkt.link_type"), "pcapng": (pcap, "frame")}

    def describe(n):
        return (f"pktmon_large --records {args.records}: .etl {os.path.getsize(etl)} bytes, {n['etl']} "
                f"packet frames; pcapng {os.path.getsize(pcap)} bytes, {n['pcapng']} frames")
    return files, tiny, describe


if __name__ == "__main__":
    bench(__doc__, MODES, _args, _prepare)
