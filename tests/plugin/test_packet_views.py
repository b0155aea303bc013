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


def _frames(env, path, flt, extra=()):
    _, out, _ = env.run([env.args.tshark, "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"]
                        + list(extra))
    return [int(x) for x in out.split()]


def _verbose(env, path, frame, extra=()):
    _, out, _ = env.run([env.args.tshark, "-r", path, "-V", "-Y", f"frame.number == {frame}"] + list(extra))
    return out


FULL = ["-o", "etl.full_packet_record:TRUE"]


def test_pktbrief(env):
    """A packet frame shows its ETW record in brief by default (etl.pkt, the provider and event
    names, event id, pid, tid, CPU) and in full with the preference etl.full_packet_record; the
    full record's fields still filter and print (-Y, -T fields -e) on the frames and with the
    values they did before the brief form existed (the frame lists below were taken from main
    at c576368, before it); held events, malformed events and non-packet frames keep their full
    record."""
    for tool, what in ((env.args.etlgen, "--etlgen"), (env.args.etldump, "--etldump")):
        if not tool or not os.path.exists(tool):
            print(f"SKIP: {what} not given")
            return SKIP
    pm, _ = tp._pkt_generated(env, "pktmon")
    nd, _ = tp._pkt_generated(env, "ndiscap")

    # frame 2: a pktmon 160 Ethernet packet, frame 4: a 170 drop; frame 9: a malformed 160
    for frame in (2, 4):
        brief = _verbose(env, pm, frame)
        check("Packet: pktmon" in brief and "in brief (preference etl.full_packet_record" in brief,
              f"pktmon frame {frame}: no Packet subtree or brief note in the default -V:\n{brief[:2000]}")
        for line in ("Event id: 1", "Process id: 4", "Thread id: 100", "CPU: ",
                     "[Provider name: Microsoft-Windows-PktMon]", "[Event name: "):
            check(line in brief, f"pktmon frame {frame}: {line!r} missing from the brief record")
        for line in ("Event data", "Trace header:", "Record context", "Payload size:", "[Message:"):
            check(line not in brief, f"pktmon frame {frame}: {line!r} in the default -V (brief expected)")
        full = _verbose(env, pm, frame, FULL)
        for line in ("Packet: pktmon", "Event data", "Trace header: EVENT_HEADER64", "Record context",
                     "PktGroupId: ", "Payload size:"):
            check(line in full, f"pktmon frame {frame}: {line!r} missing with the preference on")
        check("in brief" not in full, f"pktmon frame {frame}: brief with the preference on")
    print("  ok default -V of a pktmon packet frame: etl.pkt and the brief header, no Event data; "
          "the preference shows both")

    # not in brief: the logfile header (no packet), a malformed packet event, held ndiscap events
    check(_verbose(env, pm, 1) == _verbose(env, pm, 1, FULL), "pktmon frame 1 (no packet) differs with the preference")
    bad = _verbose(env, pm, 9)
    check("Event data" in bad and "Trace header:" in bad and "Bad packet event" in bad and "in brief" not in bad,
          f"pktmon frame 9 (malformed): not its full record:\n{bad[:1500]}")
    held = _frames(env, nd, "etl.pkt.held")
    check(held and all("Event data" in _verbose(env, nd, f) for f in held),
          f"ndiscap held events {held}: not their full record")
    print(f"  ok full record on a non-packet frame, a malformed packet event and held events {held}")

    # filters on the full record's fields select the frames they did before (main c576368)
    before = {
        (pm, "etl.data.PktGroupId"): [2, 3, 4, 5, 6, 7, 8, 9],
        (pm, "etl.data.DropReason == 0 && etl.data.PktGroupId"): [2, 3, 5, 6, 8, 9],
        (pm, "etl.data.AppearanceCount == 2"): [3, 4],
        (pm, 'etl.kv contains "PktNumber"'): [2, 3, 4, 5, 6, 7, 8, 9],
        (pm, 'etl.message contains "Drop"'): [4, 7],
        (pm, "etl.pid == 4"): list(range(2, 16)),
        (pm, "etl.position"): list(range(1, 16)),
        (pm, "etl.payload_size > 100"): [1, 2, 3, 4, 5, 6],
        (nd, "etl.data.FragmentSize > 0"): [6] + list(range(8, 18)),
        (nd, "etl.data.LowerIfIndex"): list(range(2, 19)),
        (nd, "etl.tid"): list(range(1, 19)),
    }
    for (path, flt), want in before.items():
        got = _frames(env, path, flt)
        check(got == want, f"{os.path.basename(path)}: -Y {flt!r} selects {got}, before {want}")
        two = _frames(env, path, flt, ["-2"])
        check(two == want, f"{os.path.basename(path)}: -2 -Y {flt!r} selects {two}, before {want}")
    print(f"  ok {len(before)} filters on header and Event data fields select the frames they did before, "
          "in one and two passes")

    # -T fields -e of header, context and Event data fields: the values of the full record
    for path in (pm, nd):
        for fields in (["etl.pid", "etl.tid", "etl.cpu", "etl.event_id", "etl.provider_name", "etl.event_name"],
                       ["etl.position", "etl.header_type", "etl.timestamp", "etl.data.PktNumber"],
                       ["etl.pkt.group_id", "_ws.expert.message"]):
            ef = ["frame.number"] + fields
            cmd = [env.args.tshark, "-r", path, "-T", "fields"] + [a for f in ef for a in ("-e", f)]
            _, a, _ = env.run(cmd)
            _, b, _ = env.run(cmd + FULL)
            check(a == b and a.strip(), f"{os.path.basename(path)}: -e {fields}: default and full record differ")
    _, out, _ = env.run([env.args.tshark, "-r", pm, "-T", "fields", "-e", "etl.pid", "-e", "etl.tid",
                         "-e", "etl.event_id", "-e", "etl.position", "-e", "etl.data.PktNumber",
                         "-Y", "frame.number >= 2 && frame.number <= 4"])
    want = ("4\t100\t160\t0x0000002000000009\t1\n4\t100\t160\t0x0000002000000021\t1\n"
            "4\t100\t170\t0x0000002000000039\t1\n")
    check(out == want, f"pktmon: -e etl.pid/tid/event_id/position/data.PktNumber of frames 2-4: {out!r}, before {want!r}")
    print("  ok -T fields -e of header, context and Event data fields: the values of the full record")


PACKET_VIEWS_TESTS = {
    "pkttcp": test_pkttcp,
    "pktbrief": test_pktbrief,
}


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update(PACKET_VIEWS_TESTS)
    sys.exit(tp.main())
