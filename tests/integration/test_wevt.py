#!/usr/bin/env python3
"""Provider binaries end to end: with ONLY ../shared/wevt/clretwrc.dll on the manifest path, every
DotNETRuntime and DotNETRuntimeRundown record of the shared CLR captures whose event the 2016
binary defines decodes as with ../shared/manifests/dotnet_ClrEtwAll.man: etldump's JSON compared
record by record, every key (names, task/opcode/level/keyword names, fields and their values,
message).  Where the two may differ is spelled out below, each case with its reason:

  - NOT_IN_2016: records whose event (id, version) the binary does not define (the runtime added
    the version later) - the binary decodes them with a lower version, or not at all;
  - NEITHER: records neither source defines (both say schema_missing);
  - keywords_name: the same names, in the binary's keyword order (a binary keeps the mask, not
    the order the manifest's keywords= attribute named them);
  - ModuleFlags: the 2016 ModuleFlagsMap has no ReadyToRunModule (0x20): the binary shows
    the bit as "0x20" - in the field and in the message that quotes it.

Also: the binary given as a folder and as a recursive folder entry ("dir/...") decodes the
same; ETLSHARK_MANIFEST_PATH takes it too; and a provider with neither manifest nor binary
shows its well-known name (provider_name_source "well-known").

Usage: test_wevt.py ETLDUMP SHARED_DIR
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

ETLDUMP, SHARED = sys.argv[1], sys.argv[2]
CAPTURES = os.path.join(SHARED, "captures")
BINARY = os.path.join(SHARED, "wevt", "clretwrc.dll")
MANIFEST = os.path.join(SHARED, "manifests", "dotnet_ClrEtwAll.man")

RUNTIME = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
RUNDOWN = "a669021c-c450-4609-a035-5af59af4df18"
PROVIDERS = {RUNTIME: "DotNETRuntime", RUNDOWN: "DotNETRuntimeRundown"}
CLR_CAPTURES = ["perfview_gcevents_clr.etl", "perfview_gcrundownevents_clrrundown.etl",
                "perfview_diaghub_user_paged_clr_tl.etl", "perfview_net452_x64_merged_compressed.etl",
                "perfview_smallEtlFile_32bit_compressed.etl"]

# Events of the captures the 2016 binary does not define, with what it decodes them as.
NOT_IN_2016 = {
    ("DotNETRuntime", 4, 2): "GC/HeapStats: the binary's newest version is 1, used instead",
    ("DotNETRuntime", 205, 4): "GC/DynamicEvent: the binary's newest version is 2 (the XML's is 3; neither has 4)",
    ("DotNETRuntimeRundown", 280, 0): "TieredCompilation/SettingsDCStart: not in the binary at all",
}
# Records neither the binary nor the XML manifest defines.
NEITHER = {("DotNETRuntime", 208, 0), ("DotNETRuntime", 209, 0), ("DotNETRuntimeRundown", 10, 0)}
# Events whose ModuleFlags field the 2016 map renders without ReadyToRunModule.
MODULE_FLAGS = {("DotNETRuntime", 151, 1), ("DotNETRuntime", 152, 2), ("DotNETRuntime", 153, 2),
                ("DotNETRuntimeRundown", 152, 1), ("DotNETRuntimeRundown", 154, 2)}


def etldump(capture, manifest_path=None, env_path=None):
    env = {k: v for k, v in os.environ.items() if k != "ETLSHARK_MANIFEST_PATH"}
    if env_path:
        env["ETLSHARK_MANIFEST_PATH"] = env_path
    cmd = [ETLDUMP] + (["--manifest-path", manifest_path] if manifest_path else []) + [capture]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[:500]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], p.stderr


def key(r):
    return (PROVIDERS.get(r.get("provider")), r.get("event_id"), r.get("version"))


def same_record(x, y, k):
    """Do the two decodes of one record agree, but for the listed cases?  Returns the keys that
    differ otherwise."""
    wrong = []
    for name in sorted(set(x) | set(y)):
        a, b = x.get(name), y.get(name)
        if a == b:
            continue
        if name == "keywords_name" and a and b and sorted(a.split(" | ")) == sorted(b.split(" | ")):
            continue
        if k in MODULE_FLAGS and name == "fields":
            fa, fb = dict(a), dict(b)
            if "ReadyToRunModule" in fa.get("ModuleFlags", "") and \
                    fb.get("ModuleFlags") == fa["ModuleFlags"].replace("ReadyToRunModule", "0x20"):
                fa.pop("ModuleFlags")
                fb.pop("ModuleFlags")
                if fa == fb:
                    continue
        if k in MODULE_FLAGS and name == "message" and b == a.replace("ReadyToRunModule", "0x20"):
            continue
        wrong.append(name)
    return wrong


def test_captures():
    seen_not_in = set()
    compared = 0
    for name in CLR_CAPTURES:
        capture = os.path.join(CAPTURES, name)
        xml, _ = etldump(capture, MANIFEST)
        binary, err = etldump(capture, BINARY)
        check(len(xml) == len(binary), f"{name}: {len(xml)} records with the manifest, {len(binary)} with the binary")
        n = bad = 0
        for x, y in zip(xml, binary):
            k = key(x)
            if k[0] is None:
                check(x == y, f"{name}: record {x.get('position')} of another provider differs")
                continue
            if "schema_missing" in x:
                check(k in NEITHER and "schema_missing" in y,
                      f"{name}: {k} has no schema in the XML manifest and is not listed as such")
                continue
            if "schema_missing" in y or y.get("schema_version") != x.get("schema_version"):
                check(k in NOT_IN_2016, f"{name}: {k} ({x.get('event_name')}) decodes otherwise with the binary "
                      f"and is not listed in NOT_IN_2016")
                seen_not_in.add(k)
                continue
            n += 1
            wrong = same_record(x, y, k)
            if wrong:
                bad += 1
                if bad <= 5:
                    check(False, f"{name}: record {x.get('position')} {k} ({x.get('event_name')}) differs in "
                          f"{wrong}: {[(w, x.get(w), y.get(w)) for w in wrong][:2]}")
        check(bad == 0, f"{name}: {bad} of {n} records differ")
        check("provider binary" not in err, f"{name}: the binary was reported: {err[:300]}")
        compared += n
        print(f"  {name}: {n} CLR records the binary defines decode as with the manifest")
    check(seen_not_in == set(NOT_IN_2016), f"NOT_IN_2016 lists {sorted(set(NOT_IN_2016) - seen_not_in)} "
          "that no capture has")
    check(compared > 87000, f"only {compared} records compared")
    for k, why in sorted(NOT_IN_2016.items()):
        print(f"  not in the 2016 binary: {k[0]} {k[1]} v{k[2]}: {why}")


def test_path_forms():
    """A folder entry, a recursive entry and the environment variable give the same decode."""
    capture = os.path.join(CAPTURES, "perfview_gcevents_clr.etl")
    want, _ = etldump(capture, BINARY)
    tmp = tempfile.mkdtemp(prefix="test_wevt_")
    try:
        sub = os.path.join(tmp, "Windows", "Microsoft.NET")
        os.makedirs(sub)
        shutil.copyfile(BINARY, os.path.join(sub, "clretwrc.dll"))
        with open(os.path.join(tmp, "Windows", "notes.txt"), "w") as f:
            f.write("not a schema")
        got, _ = etldump(capture, sub)
        check(got == want, "the binary's folder as the path entry decodes otherwise")
        got, _ = etldump(capture, os.path.join(tmp, "Windows") + "/...")
        check(got == want, "a recursive entry (Windows/...) decodes otherwise")
        got, _ = etldump(capture, env_path=os.path.join(tmp, "Windows") + "/...")
        check(got == want, "ETLSHARK_MANIFEST_PATH=Windows/... decodes otherwise")
        got, _ = etldump(capture, os.path.join(tmp, "Windows"))
        check(all("schema_missing" in r for r in got if r.get("provider") == RUNTIME),
              "a folder entry without /... read its subfolder")
        print("  folder, folder/... and ETLSHARK_MANIFEST_PATH: the same decode; no recursion without /...")
    finally:
        shutil.rmtree(tmp)


def test_well_known():
    """Providers with no schema at all are named from the well-known table, and say so."""
    cases = {"tx_Process_kernelprocess_manifest.etl": ("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716",
                                                       "Microsoft-Windows-Kernel-Process"),
             "krabsetw_powershell_manifest.etl": ("a0c1853b-5c40-4b15-8766-3cf1c58f985a",
                                                  "Microsoft-Windows-PowerShell")}
    for name, (guid, pname) in cases.items():
        recs, _ = etldump(os.path.join(CAPTURES, name))
        mine = [r for r in recs if r.get("provider") == guid]
        check(mine and all(r.get("provider_name") == pname and r.get("provider_name_source") == "well-known"
                           and "schema_missing" in r for r in mine),
              f"{name}: {guid} records are not all named {pname} (well-known)")
        # with the manifest the name is the schema's, and no source key is written
        recs, _ = etldump(os.path.join(CAPTURES, name), os.path.join(SHARED, "manifests"))
        mine = [r for r in recs if r.get("provider") == guid]
        check(mine and all(r.get("provider_name") == pname and "provider_name_source" not in r for r in mine),
              f"{name}: with the manifests, {guid} is not named by its schema")
        print(f"  {name}: {len(mine)} records of {pname}: the well-known name without a schema")


test_captures()
test_path_forms()
test_well_known()
finish()
