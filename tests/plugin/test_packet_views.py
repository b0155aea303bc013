#!/usr/bin/env python3
"""End-to-end tests of the network views on packets carried in ETW traces (issue 12): a TCP
conversation logged by pktmon reads in Wireshark as it does from a pcapng of the same frames -
Follow TCP Stream, the http filter, Conversations and Protocol Hierarchy.

The trace and its pcapng twin come from the generator (`etlgen --preset pktmon_tcp -o X.etl
--pcapng X.pcapng`), which writes the frames and their times itself, independently of the
decoder and of etldump --pcapng.  Same harness, arguments and sandbox as test_plugin.py (tools
run as the unprivileged user etlsharktest, fresh HOME per run).

    test_packet_views.py --reader ... --dissector ... --captures ... --etlgen ... TEST [TEST ...]
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_plugin as tp  # noqa: E402
from test_plugin import check, SKIP  # noqa: E402

# What the generator's conversation carries (tests/etlgen/etlgen_packets.c, pktmon_tcp).
CLIENT, SERVER = "10.0.0.1:49152", "10.0.0.2:80"
REQUEST_LINE = "GET /index.html HTTP/1.1"
BODY_END = "</body></html>"
TCP_FRAMES = 11


def _generated(env):
    etl = env.capture("pktmon_tcp_gen.etl")
    pcap = env.capture("pktmon_tcp_gen.pcapng")
    subprocess.run([env.args.etlgen, "--preset", "pktmon_tcp", "-o", etl, "--pcapng", pcap],
                   check=True, capture_output=True)
    os.chmod(etl, 0o644)
    os.chmod(pcap, 0o644)
    return etl, pcap


def _follow(env, path):
    _, out, _ = env.run([env.args.tshark, "-r", path, "-q", "-z", "follow,tcp,ascii,0"])
    return out


def _conv_rows(text):
    """The rows of a -z conv,tcp table: (A, B, frames B->A, frames A->B, frames total,
    duration); the byte columns and the relative start are Wireshark's frame-level figures
    (an ETW frame is the whole record, and the .etl's first frame is its logfile header)."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+(.*)$", line)
        if not m:
            continue
        nums = m.group(3).replace("bytes", "").replace("kB", "").split()
        # frames, bytes for <-, ->, total, then relative start and duration
        rows.append((m.group(1), m.group(2), nums[0], nums[2], nums[4], nums[-1]))
    return rows


def _phs_under(text, proto):
    """The Protocol Hierarchy from `proto` down: (depth below it, name, frames, bytes) each."""
    rows = []
    for l in text.splitlines():
        m = re.match(r"^(\s*)(\S+)\s+frames:(\d+) bytes:(\d+)", l)
        if m:
            rows.append((len(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))))
    for i, (depth, name, _, _) in enumerate(rows):
        if name == proto:
            sub = []
            for d, n, fr, by in rows[i:]:
                if sub and d <= depth:
                    break
                sub.append((d - depth, n, fr, by))
            return sub
    return []


def test_pkttcp(env):
    """A pktmon trace of one TCP conversation (handshake, an HTTP GET, a response in two
    segments, FIN both ways) and the pcapng of the same frames: `-z follow,tcp,ascii,0` gives the
    same stream (request and whole response, both directions, in order); `-Y http` the same
    request and response; `-z conv,tcp` the same conversation (endpoints, frames each way,
    duration); `-z io,phs` the same hierarchy from eth down (frames and bytes of each layer)."""
    if not env.args.etlgen or not os.path.exists(env.args.etlgen):
        print("SKIP: --etlgen not given")
        return SKIP
    etl, pcap = _generated(env)

    # the twin is the same frames at the same times (100 ns), so what follows compares views only
    _, ta, _ = env.run([env.args.tshark, "-r", etl, "-Y", "tcp", "-T", "fields", "-e", "frame.time_epoch",
                        "-e", "tcp.len", "-e", "tcp.flags"])
    _, tb, _ = env.run([env.args.tshark, "-r", pcap, "-T", "fields", "-e", "frame.time_epoch",
                        "-e", "tcp.len", "-e", "tcp.flags"])
    check(ta == tb and len(ta.splitlines()) == TCP_FRAMES,
          f"the .etl's TCP frames and the pcapng's differ (time, length, flags): {ta!r} {tb!r}")

    a, b = _follow(env, etl), _follow(env, pcap)
    check(a == b, f"follow,tcp,ascii,0 differs:\n.etl:\n{a[:1500]}\npcapng:\n{b[:1500]}")
    check(f"Node 0: {CLIENT}" in a and f"Node 1: {SERVER}" in a, f"follow: endpoints {a[:400]!r}")
    check(REQUEST_LINE in a and "HTTP/1.1 200 OK" in a and BODY_END in a,
          f"follow: the stream lacks the request or the whole response: {a[:1500]!r}")
    check(a.index(REQUEST_LINE) < a.index("HTTP/1.1 200 OK") < a.index(BODY_END),
          "follow: request, response and body out of order")
    print(f"  ok follow,tcp,ascii,0: {len(a.splitlines())} lines, the same from the .etl and the pcapng")

    fields = ["-T", "fields", "-e", "ip.src", "-e", "tcp.srcport", "-e", "http.request.method",
              "-e", "http.request.uri", "-e", "http.response.code", "-e", "http.content_length",
              "-e", "tcp.stream"]
    _, ha, _ = env.run([env.args.tshark, "-r", etl, "-Y", "http"] + fields)
    _, hb, _ = env.run([env.args.tshark, "-r", pcap, "-Y", "http"] + fields)
    check(ha == hb, f"-Y http differs: .etl {ha!r}, pcapng {hb!r}")
    rows = [l.split("\t") for l in ha.splitlines()]
    check(len(rows) == 2 and rows[0][2:4] == ["GET", "/index.html"] and rows[1][4] == "200",
          f"-Y http: expected the GET and its 200 response, got {rows}")
    print(f"  ok -Y http: {rows[0][2]} {rows[0][3]} -> {rows[1][4]} ({rows[1][5]}-byte body) from both")

    _, ca, _ = env.run([env.args.tshark, "-r", etl, "-q", "-z", "conv,tcp"])
    _, cb, _ = env.run([env.args.tshark, "-r", pcap, "-q", "-z", "conv,tcp"])
    ra, rb = _conv_rows(ca), _conv_rows(cb)
    check(len(ra) == 1 and ra == rb, f"conv,tcp differs: .etl {ra}, pcapng {rb}\n{ca}\n{cb}")
    check({ra[0][0], ra[0][1]} == {CLIENT, SERVER} and ra[0][4] == str(TCP_FRAMES),
          f"conv,tcp: {ra[0]}, expected {CLIENT} <-> {SERVER}, {TCP_FRAMES} frames")
    print(f"  ok conv,tcp: {ra[0][0]} <-> {ra[0][1]}, {ra[0][2]} + {ra[0][3]} frames, "
          f"duration {ra[0][5]} s from both")

    _, pa, _ = env.run([env.args.tshark, "-r", etl, "-q", "-z", "io,phs"])
    _, pb, _ = env.run([env.args.tshark, "-r", pcap, "-q", "-z", "io,phs"])
    sa, sb = _phs_under(pa, "eth"), _phs_under(pb, "eth")
    shape = lambda rows: [r[:3] for r in rows]  # noqa: E731
    check(sa and shape(sa) == shape(sb), f"io,phs from eth down differs:\n.etl:\n{pa}\npcapng:\n{pb}")
    check(any(r[1] == "http" for r in sa) and sa[0][2] == TCP_FRAMES, f"io,phs: {sa}")
    check(_phs_under(pa, "etl") and _phs_under(pa, "etl")[1][1] == "eth", f"io,phs of the .etl: eth under etl\n{pa}")
    # Protocol Hierarchy counts frame bytes: a packet frame of the .etl is its whole ETW record,
    # so eth's bytes exceed the pcapng's by exactly the records' bytes around the packets
    _, lens, _ = env.run([env.args.tshark, "-r", etl, "-Y", "eth", "-T", "fields", "-e", "frame.len",
                          "-e", "etl.pkt.original_len"])
    around = sum(int(x) - int(y) for x, y in (l.split("\t") for l in lens.splitlines()))
    check(sa[0][3] - sb[0][3] == around, f"io,phs eth bytes: .etl {sa[0][3]}, pcapng {sb[0][3]}, "
                                         f"ETW record bytes around the packets {around}")
    print(f"  ok io,phs: {' > '.join(r[1] for r in sa)} with the same frames under etl as in the pcapng; "
          f"bytes differ by the ETW records' own {around}")


PACKET_VIEWS_TESTS = {
    "pkttcp": test_pkttcp,
}


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update(PACKET_VIEWS_TESTS)
    sys.exit(tp.main())
