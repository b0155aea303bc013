#!/usr/bin/env python3
"""Write fuzz_tmf seeds: each TMF of the given folder after a u16 length and a payload that
holds a little of everything WPP arguments are (an NTSTATUS, a pointer, a NUL-terminated string,
a counted UTF-16 string, a double).
Usage: tmf_seeds.py OUT_DIR TMF_DIR"""
import os
import struct
import sys

out, src = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
payload = (struct.pack("<IQ", 0xC0000001, 0xFFFF95820BE02120) + b"name\0" + struct.pack("<H", 6) +
           "abc".encode("utf-16-le") + struct.pack("<dB", 2.5, 2))
n = 0
for name in sorted(os.listdir(src)):
    if not name.endswith(".tmf"):
        continue
    tmf = open(os.path.join(src, name), "rb").read()
    with open(os.path.join(out, name), "wb") as f:
        f.write(len(payload).to_bytes(2, "little") + payload + tmf)
    n += 1
print(f"{n} seeds")
