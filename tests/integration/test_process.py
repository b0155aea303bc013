#!/usr/bin/env python3
"""etldump's process context and stack links end to end, on
perfview_net452_x64_merged_compressed.etl against TraceEvent's golden net.4.5.2.x64.baseline.txt:

  - every EVENT line of the golden (all providers; ../shared/manifests on the path) whose record
    is found (same time in ms, name and processor) shows the golden's PID and PName:
    "process_id" (or "pid" when there is none) and "process_name" without its extension, and
    no pid where the golden has PID=-1 - but for the lines in KNOWN_DIFFERENCES, which must
    really differ; every kernel/KernelTraceControl line must be found;
  - "process_id" appears only when it differs from "pid";
  - every StackWalk event (Stack, StackKeyKernel, StackKeyUser) has "stack_of", naming a record
    with the walk's EventTimeStamp as its raw timestamp and StackThread as its thread.

Usage: test_process.py ETLDUMP SHARED_DIR
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

LINE_RE = re.compile(r"^EVENT ([\d,.]+): (.*?) PID=(-?\d+); TID=(-?\d+); PName=([^;]*); ProceNum=(\d+); DataLen=(\d+);")
KERNEL = ("Windows Kernel/", "KernelTraceControl/", "MSNT_SystemTrace/")
# (name, golden PID): where we knowingly differ from TraceEvent (reasons in
# tests/unit/test_procs.c, golden_differs)
KNOWN_DIFFERENCES = {
    ("Windows Kernel/Process/Defunct", 616),  # TraceEvent: Process(616); we name it from the event
    ("Windows Kernel/Process/Defunct", 988),
    ("Windows Kernel/DiskIO/FlushBuffers", -1),  # TraceEvent reads another value as the thread
}
THREAD_FIELDS = ("ThreadId", "TThreadId", "IssuingThreadId", "NewThreadId", "TTID")


def stem(name):
    return name.rsplit(".", 1)[0] if name and "." in name else (name or "")


def main():
    etldump, shared = sys.argv[1], sys.argv[2]
    capture = os.path.join(shared, "captures", "perfview_net452_x64_merged_compressed.etl")
    out = subprocess.run([etldump, "--no-payload", "--manifest-path", os.path.join(shared, "manifests"), capture],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    recs = [json.loads(line) for line in out.splitlines()]
    first = next(r["timestamp_raw"] for r in recs)
    by_key = {}
    for r in recs:
        name = f"{r.get('provider_name', '')}/{r.get('event_name', '')}"
        ms = round((r["timestamp_raw"] - first) / 10000.0, 3)  # QPC at 10 MHz in this capture
        by_key.setdefault((name, ms), []).append(r)

    # process_id only when it says something the header does not
    check(all(r["process_id"] != r["pid"] for r in recs if "process_id" in r), "process_id differs from pid")

    found = agree = known = kernel_lines = kernel_found = 0
    for line in open(os.path.join(shared, "goldens", "net.4.5.2.x64.baseline.txt"), encoding="utf-8-sig"):
        m = LINE_RE.match(line)
        if not m:
            continue
        ms, name = float(m.group(1).replace(",", "")), m.group(2)
        gpid, gname, cpu = int(m.group(3)), m.group(5), int(m.group(6))
        is_kernel = name.startswith(KERNEL)
        kernel_lines += is_kernel
        cands = [r for d in (0.0, 0.001, -0.001) for r in by_key.get((name, round(ms + d, 3)), [])
                 if r["cpu"] == cpu]
        if not cands:
            continue  # names the manifests spell otherwise (traceevent-own-names.txt)
        found += 1
        kernel_found += is_kernel
        ours = [(r.get("process_id", r["pid"]), stem(r.get("process_name"))) for r in cands]
        if gpid == -1:
            good = any(p is None for p, _ in ours)
        else:
            good = any(p == gpid and n == gname for p, n in ours)
        if (name, gpid) in KNOWN_DIFFERENCES:
            known += 1
            check(not good, f"{name} PID={gpid} is listed as differing but agrees")
            continue
        agree += good
        check(good, f"{ms} ms {name}: golden PID={gpid} PName={gname}, ours {ours[:3]}")
    print(f"golden: {found} EVENT lines found ({kernel_found} of {kernel_lines} kernel), {agree} agree on PID "
          f"and PName, {known} differ as listed")
    check(kernel_found == kernel_lines, "every kernel/KernelTraceControl line is found")
    check(found >= 440, "most golden lines are found")
    check(known == 4, "the four listed differences are all seen")

    by_pos = {r["position"]: r for r in recs}
    walks = linked = 0
    for r in recs:
        if r.get("event_name") not in ("StackWalk/Stack", "StackWalk/StackKeyKernel", "StackWalk/StackKeyUser"):
            continue
        walks += 1
        target = by_pos.get(r.get("stack_of"))
        if target is None:
            check(False, f"stack walk at {r['position']} is linked")
            continue
        f, tf = r["fields"], target.get("fields", {})
        tid = target["tid"] if target["tid"] is not None else next((tf[k] for k in THREAD_FIELDS if k in tf), None)
        ok = target["timestamp_raw"] == f["EventTimeStamp"] and tid == f["StackThread"]
        linked += ok
        check(ok, f"stack walk at {r['position']} names its event's time and thread")
    print(f"stack walks: {walks}, linked to an event of the same time and thread: {linked}")
    check(walks > 9000, "the capture's stack walks are all seen")
    finish()


if __name__ == "__main__":
    main()
