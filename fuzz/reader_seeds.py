#!/usr/bin/env python3
"""Write fuzz_reader seeds that reach the loader threads and the header walk in parts
(reader.c, walk_part): a trace of 300 buffers of 400 bytes (within the fuzz runs' 128 KiB),
each event buffer with three EVENT_HEADER64 records on one of four CPUs, its last byte asking
the target for its threaded comparison (bit 3) with 1, 2 or 3 loader threads (bits 5-6), in
time and in file order (bit 0).  The real captures' buffers are 8-64 KiB: cut to 128 KiB they
have too few buffers for the walk to be split.
Usage: reader_seeds.py OUT_DIR"""
import os
import struct
import sys

BUF = 400
NBUF = 300
HEADER = 0x48
REC = 0x60


def buffer_header(filled, cpu, kind):
    h = bytearray(HEADER)
    struct.pack_into("<II", h, 0, BUF, filled)  # BufferSize, SavedOffset
    h[0x28] = cpu
    struct.pack_into("<I", h, 0x2C, 3)  # state
    struct.pack_into("<I", h, 0x30, filled)  # Offset: end of valid data
    h[0x36] = kind  # buffer type: 4 = the logfile header's
    return h


def logfile_buffer():
    size = 0x20 + 0x118 + 4
    r = bytearray(size)
    struct.pack_into("<HBB", r, 0, 2, 0x02, 0xC0)  # SYSTEM64 marker, version 2
    struct.pack_into("<H", r, 4, size)
    lf = 0x20
    struct.pack_into("<I", r, lf, BUF)  # BufferSize
    struct.pack_into("<I", r, lf + 0x2C, 8)  # PointerSize
    struct.pack_into("<Q", r, lf + 0x100, 10000000)  # PerfFreq
    struct.pack_into("<Q", r, lf + 0x108, 132756731728578510)  # StartTime
    struct.pack_into("<I", r, lf + 0x110, 1)  # QPC
    filled = HEADER + ((size + 7) & ~7)
    b = buffer_header(filled, 0, 4) + r
    return b + bytes(BUF - len(b))


def event_buffer(k):
    filled = HEADER + 3 * REC
    b = buffer_header(filled, k % 4, 0)
    for i in range(3):
        r = bytearray(REC)
        struct.pack_into("<HBB", r, 0, REC, 0x13, 0xC0)  # EVENT_HEADER64
        struct.pack_into("<IIQ", r, 8, 100 + k, 200 + k, (k // 4) * 4000 + i * 250 + k % 4)
        b += r
    return b + bytes(BUF - len(b))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    trace = logfile_buffer() + b"".join(event_buffer(k) for k in range(1, NBUF))
    n = 0
    for threads in range(3):
        for order in range(2):
            last = order | 8 | (threads << 5)
            with open(os.path.join(out, "small_buffers_%d_%d" % (threads + 1, order)), "wb") as f:
                f.write(trace[:-1] + bytes([last]))
            n += 1
    print(f"{n} seeds")


main()
