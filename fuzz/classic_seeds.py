#!/usr/bin/env python3
"""Write fuzz_classic seeds: one file per distinct classic event (class, type, version, bitness)
of the given captures, in the target's input form (16-byte class GUID in Windows layout, type,
version, flags byte with bit 0 for 32-bit records, payload).
Usage: classic_seeds.py ETLDUMP OUT_DIR CAPTURE..."""
import json
import os
import subprocess
import sys
import uuid

CLASSIC = ("SYSTEM", "COMPACT", "PERFINFO", "FULL_HEADER", "INSTANCE")
etldump, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
seen = set()
for cap in sys.argv[3:]:
    if not os.path.isfile(cap) or os.path.getsize(cap) == 0:
        continue
    p = subprocess.run([etldump, cap], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        r = json.loads(line)
        if not r["header_type"].startswith(CLASSIC) or not r.get("provider"):
            continue
        bits32 = r["header_type"].endswith("32")
        # the image load (hook 0x030A) is keyed with the Image class, as the decoder does
        cls = r["provider"]
        if r.get("group") == 3 and r["opcode"] == 10:
            cls = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518"
        k = (cls, r["opcode"], r["version"], bits32)
        if k in seen:
            continue
        seen.add(k)
        seed = uuid.UUID(cls).bytes_le + bytes([r["opcode"], r["version"], 1 if bits32 else 0])
        seed += bytes.fromhex(r.get("payload_hex", ""))
        name = "%s-%d-%d-%d" % (cls, r["opcode"], r["version"], 32 if bits32 else 64)
        with open(os.path.join(out, name), "wb") as f:
            f.write(seed)
print(f"{len(seen)} seeds")
