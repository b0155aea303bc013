#!/usr/bin/env python3
"""Write fuzz_tl seeds: one file per distinct TraceLogging event of the given captures, in the
target's input form (u16 metadata length, flags byte with bit 0 for 32-bit records, metadata,
payload).  Usage: tl_seeds.py ETLDUMP OUT_DIR CAPTURE..."""
import hashlib
import json
import os
import subprocess
import sys

etldump, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
seen = set()
for cap in sys.argv[3:]:
    if not os.path.isfile(cap) or os.path.getsize(cap) == 0:
        continue
    p = subprocess.run([etldump, cap], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        r = json.loads(line)
        meta = next((e.get("data_hex") for e in r["ext"] if e["type"] == "EVENT_SCHEMA_TL"), None)
        if meta is None:
            continue
        m = bytes.fromhex(meta)
        payload = bytes.fromhex(r.get("payload_hex", ""))
        seed = len(m).to_bytes(2, "little") + bytes([1 if r["header_type"].endswith("32") else 0]) + m + payload
        h = hashlib.sha1(seed).hexdigest()
        if h not in seen:
            seen.add(h)
            with open(os.path.join(out, h), "wb") as f:
                f.write(seed)
print(f"{len(seen)} seeds")
