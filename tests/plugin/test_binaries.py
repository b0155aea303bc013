#!/usr/bin/env python3
"""End-to-end tests of provider binaries in Wireshark (issue 15): the etl.manifest_path
preference takes a folder of binaries, the typed etl.data.* fields of the events their
WEVT_TEMPLATEs define are registered at start-up (a display filter on one works in the first
run, in a fresh profile), and a provider with no schema at all shows its well-known name.

Same harness, arguments and sandbox as test_plugin.py (tools run as the unprivileged user
etlsharktest, fresh HOME per run).

    test_binaries.py --reader ... --dissector ... --captures ... --etldump ... binaries
"""

import collections
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_plugin as tp  # noqa: E402
from test_plugin import check, SKIP  # noqa: E402

CAPTURE = "perfview_gcevents_clr.etl"
RUNTIME = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
KERNEL_PROCESS = "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716"
# A field only the CLR's templates have (GC/Start's Depth: 1 and 2 in the capture), not
# registered unless the binary is read.
FIELD = "Depth"


def _binaries(env):
    """A copy of ../shared/wevt/clretwrc.dll in a Windows-like folder the test user can read,
    beside a file that is not a schema; the folder holding it."""
    src = os.path.join(os.path.dirname(os.path.abspath(env.args.captures)), "wevt", "clretwrc.dll")
    if not os.path.exists(src):
        return None
    root = os.path.join(env.root, "binaries")
    s32 = os.path.join(root, "Windows", "System32")
    os.makedirs(s32)
    shutil.copyfile(src, os.path.join(s32, "clretwrc.dll"))
    with open(os.path.join(s32, "readme.txt"), "w") as f:
        f.write("not a schema\n")
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for n in filenames:
            os.chmod(os.path.join(dirpath, n), 0o644)
    return s32


def test_binaries(env):
    if CAPTURE not in env.expected or not env.args.etldump:
        print("SKIP: capture or --etldump missing")
        return SKIP
    s32 = _binaries(env)
    if s32 is None:
        print("SKIP: ../shared/wevt/clretwrc.dll missing")
        return SKIP
    binary = os.path.join(s32, "clretwrc.dll")
    recs = tp._etldump(env, CAPTURE, binary)
    values = collections.Counter(r["fields"][FIELD] for r in recs
                                 if r.get("provider") == RUNTIME and isinstance(r.get("fields"), dict)
                                 and isinstance(r["fields"].get(FIELD), int))
    check(len(values) >= 2, f"{CAPTURE}: etldump with the binary gives fewer than two {FIELD} values: {values}")
    value = min(values, key=lambda v: (values[v], v))
    want = sorted(r["position"] for r in recs
                  if isinstance(r.get("fields"), dict) and r["fields"].get(FIELD) == value)

    # without the binary the field does not exist: the filter is refused
    rc, _, err = env.run([env.args.tshark, "-r", env.capture(CAPTURE), "-Y", f"etl.data.{FIELD} == {value}"],
                         check=False)
    check(rc != 0, f"etl.data.{FIELD} exists without the binary (rc {rc})")

    # the folder of binaries as the preference, in a fresh profile: the filter works in one run
    for entry, label in ((s32, "the folder"), (os.path.dirname(os.path.dirname(s32)) + "/...", "folder/...")):
        home = env.fresh_home()
        _, out, err = env.run([env.args.tshark, "-o", f"etl.manifest_path:{entry}", "-r", env.capture(CAPTURE),
                               "-Y", f"etl.data.{FIELD} == {value}", "-T", "fields", "-e", "etl.position",
                               "-e", "etl.provider_name", "-e", "etl.event_name"], home=home)
        rows = [line.split("\t") for line in out.splitlines() if line.strip()]
        got = sorted(int(r[0], 0) for r in rows)
        check(got == want, f"{label}: -Y etl.data.{FIELD} == {value}: {len(got)} frames, etldump says {len(want)}")
        check(all(r[1] == "Microsoft-Windows-DotNETRuntime" and r[2] for r in rows),
              f"{label}: selected frames not named: {rows[:3]}")
        check("provider binary" not in err and "manifest error" not in err, f"{label}: reported: {err[:300]}")
        print(f"  ok {label} as etl.manifest_path: etl.data.{FIELD} == {value} selects {len(got)} frames, "
              "as etldump")

    # every CLR event named as etldump names it with the binary
    _, out, _ = env.run([env.args.tshark, "-o", f"etl.manifest_path:{s32}", "-r", env.capture(CAPTURE),
                         "-T", "fields", "-E", "occurrence=f", "-e", "etl.position", "-e", "etl.event_name",
                         "-e", "etl.task_name", "-e", "etl.opcode_name"])
    ws = {int(l.split("\t")[0], 0): l.split("\t")[1:] for l in out.splitlines() if l.startswith("0x")}
    n = 0
    for r in recs:
        if r.get("provider") != RUNTIME or "event_name" not in r:
            continue
        n += 1
        check(ws.get(r["position"]) == [r["event_name"], r.get("task_name", ""), r.get("opcode_name", "")],
              f"record {r['position']:#x}: {ws.get(r['position'])}, etldump {r['event_name']!r}")
    check(n > 50, f"only {n} CLR events")
    print(f"  ok {n} CLR events named as etldump names them")

    # a provider with neither manifest nor binary: its well-known name
    name = "tx_Process_kernelprocess_manifest.etl"
    if name in env.expected:
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", "500", "-T", "fields",
                             "-e", "etl.provider", "-e", "etl.provider_name"])
        rows = [l.split("\t") for l in out.splitlines() if l.startswith(KERNEL_PROCESS)]
        check(rows and all(r[1] == "Microsoft-Windows-Kernel-Process" for r in rows),
              f"{name}: Kernel-Process frames without their well-known name: {rows[:3]}")
        print(f"  ok {name}: {len(rows)} Kernel-Process frames named without a manifest")


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update({"binaries": test_binaries})
    sys.exit(tp.main())
