#!/usr/bin/env python3
"""Write fuzz_manifest seeds: each manifest of the given folder, cut to its first 64 KiB of
events when larger (so runs stay fast), after a u16 length and a 64-byte payload pattern.
Usage: manifest_seeds.py OUT_DIR MANIFEST_DIR"""
import os
import sys

out, src = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
payload = bytes(range(64))
n = 0
for name in sorted(os.listdir(src)):
    if not name.endswith((".man", ".xml")):
        continue
    xml = open(os.path.join(src, name), "rb").read()
    if len(xml) > 65536:
        continue  # the large ones are too slow to mutate; the small ones cover the grammar
    with open(os.path.join(out, name), "wb") as f:
        f.write(len(payload).to_bytes(2, "little") + payload + xml)
    n += 1
print(f"{n} seeds")
