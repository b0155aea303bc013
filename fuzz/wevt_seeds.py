#!/usr/bin/env python3
"""Write fuzz_wevt seeds: libfwevt's bare CRIM blob, the same blob in a minimal PE32 and PE32+
(one .rsrc section: WEVT_TEMPLATE/1/en-US and a one-message MESSAGETABLE, the layout of
tests/unit/pe_build.h), and the first 128 KiB of clretwrc.dll (its headers and resource tree).
Usage: wevt_seeds.py OUT_DIR WEVT_DIR"""
import os
import struct
import sys

out, src = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
crim = open(os.path.join(src, "libfwevt_manifest.1"), "rb").read()


def messages():
    text = "metric %1 is %2\r\n\0".encode("utf-16-le")
    entry = struct.pack("<HH", 4 + len(text) + (-len(text) % 4), 1) + text + b"\0" * (-len(text) % 4)
    return struct.pack("<IIII", 1, 0xB0010001, 0xB0010001, 16) + entry


def image(wide):
    rva, raw_at = 0x1000, 0x200
    res = [(b"WEVT_TEMPLATE", crim), (11, messages())]
    # root directory, then per type: name dir, language dir, data entry; then names and data
    rs = bytearray(16 + 8 * len(res))
    struct.pack_into("<HH", rs, 12, 1, 1)
    fix = []
    for i, (typ, data) in enumerate(res):
        d2 = len(rs); rs += bytearray(24)
        d3 = len(rs); rs += bytearray(24)
        de = len(rs); rs += bytearray(16)
        struct.pack_into("<HHI", rs, d2 + 12, 0, 1, 1); struct.pack_into("<I", rs, d2 + 20, 0x80000000 | d3)
        struct.pack_into("<HHI", rs, d3 + 12, 0, 1, 1033); struct.pack_into("<I", rs, d3 + 20, de)
        fix.append((i, typ, d2, de, data))
    for i, typ, d2, de, data in fix:
        if isinstance(typ, bytes):
            name = len(rs); rs += struct.pack("<H", len(typ)) + typ.decode().encode("utf-16-le")
            struct.pack_into("<II", rs, 16 + 8 * i, 0x80000000 | name, 0x80000000 | d2)
        else:
            struct.pack_into("<II", rs, 16 + 8 * i, typ, 0x80000000 | d2)
        rs += bytearray(-len(rs) % 8)
        at = len(rs); rs += data
        struct.pack_into("<II", rs, de, rva + at, len(data))
    raw = len(rs); rs += bytearray(-len(rs) % 0x200)
    hdr = bytearray(raw_at)
    hdr[0:2] = b"MZ"; struct.pack_into("<I", hdr, 0x3C, 0x40)
    opt_size = 240 if wide else 224
    hdr[0x40:0x44] = b"PE\0\0"
    struct.pack_into("<HH", hdr, 0x44, 0x8664 if wide else 0x14C, 1)
    struct.pack_into("<H", hdr, 0x54, opt_size)
    opt = 0x58
    struct.pack_into("<H", hdr, opt, 0x20B if wide else 0x10B)
    struct.pack_into("<I", hdr, opt + (108 if wide else 92), 16)
    struct.pack_into("<II", hdr, opt + (112 if wide else 96) + 16, rva, raw)
    sec = opt + opt_size
    hdr[sec:sec + 5] = b".rsrc"
    struct.pack_into("<IIII", hdr, sec + 8, raw, rva, len(rs), raw_at)
    return bytes(hdr + rs)


seeds = {"manifest1.crim": crim, "manifest1_pe32.dll": image(False), "manifest1_pe64.dll": image(True),
         "clretwrc_head.dll": open(os.path.join(src, "clretwrc.dll"), "rb").read(131072)}
for name, data in seeds.items():
    open(os.path.join(out, name), "wb").write(data)
print(f"{len(seeds)} seeds")
