#!/usr/bin/env python3
"""Write fuzz_packet seeds: the pktmon and ndiscap events of the given traces, in the target's
input form (u8 selector: bit 0 ndiscap, bit 1 32-bit; u16 event id; u64 keyword; u16 length;
payload), one seed per trace (every event in order) and one per distinct event id.
Traces named ETLGEN:preset are generated first with the given etlgen.
Usage: packet_seeds.py ETLDUMP ETLGEN OUT_DIR TRACE..."""
import json
import os
import struct
import subprocess
import sys

PKTMON = "4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac"
NDISCAP = "2ed6006e-4729-4609-b423-3ee7bcd678ef"
etldump, etlgen, out = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
for t in sys.argv[4:]:
    if t.startswith("ETLGEN:"):
        preset = t.split(":", 1)[1]
        path = os.path.join(out, preset + ".etl.tmp")
        subprocess.run([etlgen, "--preset", preset, "-o", path], check=True, capture_output=True)
    else:
        path = t
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        continue
    p = subprocess.run([etldump, path], capture_output=True, text=True)
    whole, per_id = b"", {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        prov = r.get("provider")
        if prov not in (PKTMON, NDISCAP) or "payload_hex" not in r:
            continue
        payload = bytes.fromhex(r["payload_hex"])[:65535]
        sel = (1 if prov == NDISCAP else 0) | (2 if r["header_type"].endswith("32") else 0)
        rec = struct.pack("<BHQH", sel, r["event_id"], int(r["keyword"], 16), len(payload)) + payload
        whole += rec
        per_id.setdefault((sel, r["event_id"]), rec)
    base = os.path.basename(path).replace(".etl.tmp", "").replace(".etl", "")
    if whole:
        open(os.path.join(out, base + ".all"), "wb").write(whole[:131072])
    for (sel, eid), rec in per_id.items():
        open(os.path.join(out, f"{base}.{sel}.{eid}"), "wb").write(rec)
    if t.startswith("ETLGEN:"):
        os.unlink(path)
