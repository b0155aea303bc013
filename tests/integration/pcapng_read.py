"""A small pcapng reader for the packet tests (standard library only): sections, interface
description blocks (link type, tsresol, name, description) and enhanced packet blocks (interface,
timestamp in seconds as a Fraction, captured bytes, original length, options)."""
import struct
from fractions import Fraction

SHB, IDB, EPB, SPB = 0x0A0D0D0A, 1, 6, 3


def _options(buf):
    opts = {}
    i = 0
    while i + 4 <= len(buf):
        code, n = struct.unpack_from("<HH", buf, i)
        if code == 0:
            break
        opts.setdefault(code, []).append(buf[i + 4:i + 4 + n])
        i += 4 + n + (-n % 4)
    return opts


def read(path):
    """Returns (interfaces, packets): interfaces a list of dicts (link, tsresol, name,
    description), packets a list of dicts (iface, time, data, orig_len, opts)."""
    data = open(path, "rb").read()
    ifaces, packets = [], []
    i = 0
    while i + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, i)
        if blen < 12 or i + blen > len(data):
            raise ValueError(f"bad block length {blen} at {i}")
        body = data[i + 8:i + blen - 4]
        if btype == SHB:
            if struct.unpack_from("<I", body, 0)[0] != 0x1A2B3C4D:
                raise ValueError("not little-endian pcapng")
            ifaces = []
        elif btype == IDB:
            link, _, snap = struct.unpack_from("<HHI", body, 0)
            o = _options(body[8:])
            res = 6
            if 9 in o:
                r = o[9][0][0]
                res = r if not r & 0x80 else -(r & 0x7F)  # negative: power of two (not used here)
            ifaces.append({"link": link, "snaplen": snap, "tsresol": res,
                           "name": o.get(2, [b""])[0].decode(), "description": o.get(3, [b""])[0].decode()})
        elif btype == EPB:
            ifc, hi, lo, cap, orig = struct.unpack_from("<IIIII", body, 0)
            ts = (hi << 32) | lo
            res = ifaces[ifc]["tsresol"]
            unit = Fraction(1, 10 ** res) if res >= 0 else Fraction(1, 2 ** -res)
            pkt = body[20:20 + cap]
            o = _options(body[20 + cap + (-cap % 4):])
            packets.append({"iface": ifc, "ticks": ts, "time": ts * unit, "data": pkt, "orig_len": orig, "opts": o})
        i += blen
    return ifaces, packets
