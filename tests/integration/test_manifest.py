#!/usr/bin/env python3
"""Manifest-based events end to end: etldump's "provider_name", "event_name" and "fields" for
events described by manifest files, EventSource manifests in the stream and schemas carried in
the trace, against TraceEvent's goldens (../shared/goldens) and on the manifest captures.

Usage: test_manifest.py ETLDUMP SHARED_DIR TEST [ETLGEN]
TEST is one of:
  gcevents   goldens/gcevents.baseline.txt on perfview_gcevents_clr.etl with ../shared/manifests
             on the path: the count per provider/event equals every COUNT line of the manifest
             providers (but the names in traceevent-own-names.txt), and every listed event has a
             record whose fields equal the golden's (names, values, map names), allowing for how
             the golden prints (goldens/README.md) and for TraceEvent's own parsers, each case
             spelled out below where it is allowed;
  rundown    the same for gcrundownevents.baseline.txt;
  net452     net.4.5.2.x64.baseline.txt on perfview_net452_x64_merged_compressed.etl: with no
             manifest path, every COUNT line and listed event of DNS-Client, Immersive-Shell,
             Kernel-EventTracing, Kernel-File, Kernel-Process and the three EventSource providers
             (ManifestData included) from the trace's own schemas; with ../shared/manifests on
             the path, the DotNETRuntime, -Rundown and -Private lines too;
  corpus     tx_HTTP_Server_manifest, tx_Process_kernelprocess_manifest and
             krabsetw_powershell_manifest with ../shared/manifests: every event decodes with no
             placeholder; tx_BondEtwSample_eventsource: all 12 events from its in-stream manifest
             with no path;
  generated  etlgen's mf_fields64 / mf_fields32 / mf_late presets with a manifest written here:
             length and count from another property, structs, value and bit maps, 32- versus
             64-bit pointers, an EventSource manifest after its events; a malformed manifest
             beside a good one (error naming file and line, the good one still loads); the
             ETLSHARK_MANIFEST_PATH variable.
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from checks import check, finish
from goldens import golden_date, golden_number, same_text, truncated
import goldens

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
ETLGEN = sys.argv[4] if len(sys.argv) > 4 else None
CAPTURES = os.path.join(SHARED, "captures")
GOLDENS = os.path.join(SHARED, "goldens")
MANIFESTS = os.path.join(SHARED, "manifests")


def etldump(path, *extra, env=None):
    e = dict(os.environ)
    e.pop("ETLSHARK_MANIFEST_PATH", None)
    if env:
        e.update(env)
    p = subprocess.run([ETLDUMP, "--no-payload", *extra, path], capture_output=True, text=True, env=e)
    return p, [json.loads(line) for line in p.stdout.splitlines()]


def records(path, *extra, env=None):
    p, recs = etldump(path, *extra, env=env)
    check(p.returncode == 0, f"{os.path.basename(path)}: etldump exit 0 (got {p.returncode}: {p.stderr[:300]})")
    return recs


# ---- the goldens ------------------------------------------------------------------------------
def golden(name):
    """(counts {(provider, event): n}, events [(provider, event, header, [(field, value)])])."""
    return goldens.read(os.path.join(GOLDENS, name))


def own_names():
    """traceevent-own-names.txt: provider/event names the comparison skips."""
    out = set()
    for line in open(os.path.join(GOLDENS, "traceevent-own-names.txt"), encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            out.add(line)
    return out


def bitmaps():
    """{map name text: value} of every bitMap entry in the manifests of the CLR (for checking
    our bit map text against a number the golden printed)."""
    tree = ET.parse(os.path.join(MANIFESTS, "dotnet_ClrEtwAll.man"))
    strings = {}
    for s in tree.iter():
        if s.tag.endswith("}string") and s.get("id"):
            strings.setdefault(s.get("id"), s.get("value"))
    names = collections.defaultdict(set)
    for bm in tree.iter():
        if not bm.tag.endswith("}bitMap"):
            continue
        for m in bm:
            msg = m.get("message", "")
            mm = re.match(r"\$\(string\.(.*)\)$", msg)
            text = (strings.get(mm.group(1), "") if mm else msg).strip()
            names[text].add(int(m.get("value"), 0))
    return names


BITMAP_VALUES = None


def our_number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"0x[0-9A-Fa-f]+", v):
        return int(v, 16)
    if isinstance(v, str) and re.fullmatch(r"-?\d+", v):
        return int(v)
    return None


def bitmap_number(text):
    """Our bit map text ("A | B | 0x800000") as its number, or None when a name is unknown."""
    global BITMAP_VALUES
    if BITMAP_VALUES is None:
        BITMAP_VALUES = bitmaps()
    total = 0
    for part in text.split(" | "):
        if re.fullmatch(r"0x[0-9A-F]+", part):
            total |= int(part, 16)
        elif len(BITMAP_VALUES.get(part, ())) == 1:
            total |= next(iter(BITMAP_VALUES[part]))
        else:
            return None
    return total


# TraceEvent's hand-written .NET parsers name some values with enums of their own, where the
# manifest has no map (or no entry for the value): the golden shows a name, TDH - and this
# project - the number.  Each case, with the number the golden's name stands for:
TRACEEVENT_ENUMS = {
    # GCSegmentTypeMap in this manifest has 0-2; .NET 8 added 3 = PinnedObjectHeap
    ("GC/CreateSegment", "Type", "PinnedObjectHeap"): 3,
    # PauseMode, Reason and GlobalMechanisms of GCGlobalHeapHistory have no map in the manifest;
    # TraceEvent's GcPauseMode (1 = Interactive), GCReason (1 = Induced) and GCGlobalMechanisms
    # (flags: Compaction 2, Promotion 4, Demotion 8, CardBundles 16) enums
    ("GC/GlobalHeapHistory", "PauseMode", "Interactive"): 1,
    ("GC/GlobalHeapHistory", "Reason", "Induced"): 1,
    ("GC/GlobalHeapHistory", "GlobalMechanisms", "Compaction, Promotio..."): 2 | 4 | 8 | 16,
    ("GC/GlobalHeapHistory", "Reason", "AllocSmall"): 0,
    ("GC/GlobalHeapHistory", "GlobalMechanisms", "Promotion, CardBundl..."): 4 | 16,
    # NgenBind's ReasonCode has no map in the manifest; TraceEvent's NgenBindReasonCode enum
    ("NgenBinder/NgenBind", "ReasonCode", "START_BIND"): 0,
    ("NgenBinder/NgenBind", "ReasonCode", "REJECT_IL_SIG"): 9,
    # CompactMechanisms / ExpandMechanisms have no map; TraceEvent's gc_heap_compact_reason /
    # gc_heap_expand_mechanism enums (value = 1 << index, or -1 / 0 for none)
    ("GC/PerHeapHistory", "CompactMechanisms", "compact_high_frag"): None,
    ("GC/PerHeapHistory", "CompactMechanisms", "compact_loh_forced"): None,
    ("GC/PerHeapHistory", "ExpandMechanisms", "not_specified"): None,
    # the rundown manifest's AssemblyFlagsMap stops at Collectible (8); TraceEvent's
    # AssemblyFlags enum has ReadyToRun = 16
    ("Loader/AssemblyDCStop", "AssemblyFlags", "ReadyToRun"): 16,
}
# Golden fields that are TraceEvent's own computations, not fields of the event's manifest:
TRACEEVENT_FIELDS = {
    ("GC/GlobalHeapHistory", "Count"),            # GCGlobalHeap_V4's new field (manifest has V3)
    ("GC/PerHeapHistory", "MemoryPressure"),      # TraceEvent's accessor, empty
    ("GC/PerHeapHistory", "ConcurrentCompactMechanisms"),  # TraceEvent's accessor, empty
    ("GC/AllocationTick", "ObjectSize"),          # GCAllocationTick_V4's new field (manifest has V3)
    ("ManifestData", "PayloadLength"),            # TraceEvent's own: the payload's size
    ("GC/HeapStats", "TotalHeapSize"),            # TraceEvent's sums over the generations
    ("GC/HeapStats", "TotalPromoted"),
    ("GC/HeapStats", "Depth"),                    # TraceEvent's: the GC's depth from GC/Start
    ("GC/FinalizeObject", "TypeName"),            # TraceEvent's: looked up in BulkType events
    ("Loader/ModuleDCStop", "ModuleILFileName"),  # TraceEvent's: the file name of ModuleILPath
}
# Manifest fields TraceEvent's parsers leave out of their listing:
TRACEEVENT_HIDDEN = {
    ("Loader/ModuleDCStop", "Reserved1"), ("Loader/ModuleDCStop", "ClrInstanceID"),
    ("Loader/DomainModuleDCStop", "Reserved1"),
    ("DnsServerForInterface", "AddressLength"),   # a Binary's length field, folded into Address
    ("ManifestData", "Data"),                     # the chunk itself (TraceEvent lists its length)
}


def compare_value(event, name, g, ours, notes):
    """True when the golden's printed value g is the same value as our JSON value."""
    if isinstance(ours, bool):
        return g == ("True" if ours else "False")
    n_ours, n_g = our_number(ours), golden_number(g)
    if n_ours is not None and n_g is not None:
        if n_g < 0 <= n_ours and n_g % (1 << 32) == n_ours:
            # a 32-bit value TDH shows in hex (HResult, HexInt32); TraceEvent as a signed int
            notes.append(f"{event} {name}: {g} (TraceEvent, signed) == {ours} (the same 32 bits)")
            return True
        return n_ours == n_g
    if isinstance(ours, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z", ours) and \
            re.fullmatch(r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d(\.\d*)?(\.\.\.)?", g):
        when, frac = golden_date(g)
        return when == datetime.datetime.strptime(ours[:19], "%Y-%m-%dT%H:%M:%S") and ours[20:27].startswith(frac)
    if n_ours is not None and (event, name, g) in TRACEEVENT_ENUMS:
        want = TRACEEVENT_ENUMS[(event, name, g)]
        notes.append(f"{event} {name}: {g} (TraceEvent's own enum) == {ours} (no name in the manifest)")
        return want is None or want == n_ours
    if n_ours == 0 and g == "None":
        # a bit map's 0 with no entry for 0: TDH shows the number, TraceEvent its enum's "None"
        notes.append(f"{event} {name}: None (TraceEvent) == 0 (no map entry for 0)")
        return True
    if isinstance(ours, str) and n_g is not None:
        # a bit map: TraceEvent printed the number (bits without names make .NET's Enum.ToString
        # fall back to it); ours is the names and the unnamed bits
        mine = bitmap_number(ours) if isinstance(ours, str) else None
        if mine is not None and mine == n_g:
            notes.append(f"{event} {name}: {g} (TraceEvent, a number) == {ours!r} (bit map names)")
            return True
        return False
    if isinstance(ours, str):
        # bit maps: TraceEvent joins names with ", " (its own enums) or "|" (EventSource
        # manifests); this project with " | "
        return same_text(g, ours) or same_text(g, ours.replace(" | ", ", ")) or same_text(g, ours.replace(" | ", "|"))
    return False


def count_check(label, recs, counts, providers, skip):
    ours = collections.Counter((r.get("provider_name"), r["event_name"]) for r in recs if "event_name" in r)
    checked = 0
    for (prov, ev), n in sorted(counts.items()):
        if prov not in providers:
            continue
        if f"{prov}/{ev}" in skip:
            print(f"  skipped (TraceEvent's own name): {prov}/{ev}")
            continue
        check(ours.get((prov, ev), 0) == n, f"{label}: COUNT {prov}/{ev}: ours {ours.get((prov, ev), 0)} == golden {n}")
        checked += 1
    extra = sorted(f"{p}/{e}:{n}" for (p, e), n in ours.items() if p in providers and (p, e) not in counts)
    if extra:
        print(f"  {label}: names the golden has no COUNT line for (not compared): {extra[:8]}")
    print(f"ok {label}: {checked} COUNT lines compared")
    return checked


def golden_number_header(h, k):
    return int(h[k].replace(",", ""))


def event_check(label, recs, events, providers, skip, fields_must_match=True, compare_values=True):
    """Every listed event of `providers`: a record with its pid, tid, cpu and payload length,
    the same provider and event name, and (where both have them) the same field values."""
    notes = []
    used = set()
    compared = 0
    by_key = collections.defaultdict(list)
    for i, r in enumerate(recs):
        if "payload_size" in r:
            by_key[(r["pid"], r["tid"], r["cpu"], r["payload_size"])].append(i)
    for prov, ev, header, fields in events:
        if prov not in providers or f"{prov}/{ev}" in skip:
            continue
        key = (int(header["PID"]), int(header["TID"]), int(header["ProceNum"]), golden_number_header(header, "DataLen"))
        cands = [i for i in by_key.get(key, []) if i not in used and recs[i].get("event_name") == ev
                 and recs[i].get("provider_name") == prov]
        check(len(cands) >= 1, f"{label}: a record for {prov}/{ev} PID={header['PID']} DataLen={header['DataLen']}")
        if not cands:
            continue
        r = recs[cands[0]]
        used.add(cands[0])
        compared += 1
        check("fields_placeholder" not in r, f"{label}: {ev} decodes without a placeholder ({r.get('fields_placeholder')})")
        ours = r.get("fields", {})
        for name, g in fields:
            if (ev, name) in TRACEEVENT_FIELDS or (ev == "ManifestData" and name == "PayloadLength"):
                notes.append(f"{ev} {name}: TraceEvent's own field, not compared")
                continue
            if name not in ours:
                if not fields_must_match:
                    notes.append(f"{ev} {name}: TraceEvent's own field name (schema has {sorted(ours)[:6]}...)")
                    continue
                check(False, f"{label}: {ev}: golden field {name} in ours {sorted(ours)}")
                continue
            if compare_values:
                check(compare_value(ev, name, g, ours[name], notes), f"{label}: {ev}: {name}: golden {g!r} vs ours {ours[name]!r}")
        if fields_must_match:
            # the golden's one-line listing shows no arrays or structs (TraceEvent prints their
            # count field only): ours may have those beyond it
            extra = {k for k in set(ours) - {n for n, _ in fields}
                     if not isinstance(ours[k], (list, dict)) and (ev, k) not in TRACEEVENT_HIDDEN}
            notes.extend(f"{ev} {k}: a manifest field TraceEvent does not list" for k in set(ours) - {n for n, _ in fields}
                         if (ev, k) in TRACEEVENT_HIDDEN)
            check(not extra, f"{label}: {ev}: our fields {sorted(extra)} are in the golden")
    for n in sorted(set(notes)):
        print("  allowed:", n)
    print(f"ok {label}: {compared} listed events compared")
    return compared


def with_payload_size(path, *extra):
    """Our records with "payload_size" (the golden's DataLen): from a run with payloads."""
    e = dict(os.environ)
    e.pop("ETLSHARK_MANIFEST_PATH", None)
    p = subprocess.run([ETLDUMP, *extra, path], capture_output=True, text=True, env=e)
    check(p.returncode == 0, f"{os.path.basename(path)}: etldump exit 0 (got {p.returncode}: {p.stderr[:300]})")
    out = []
    for line in p.stdout.splitlines():
        r = json.loads(line)
        r["payload_size"] = len(r.pop("payload_hex", "")) // 2
        out.append(r)
    return out


def test_golden(golden_name, capture, providers):
    counts, events = golden(golden_name)
    skip = own_names()
    path = os.path.join(CAPTURES, capture)
    recs = with_payload_size(path, "--manifest-path", MANIFESTS)
    check(len(recs) > 0, f"{capture}: records")
    n = count_check(golden_name, recs, counts, providers, skip)
    check(n >= 7, f"{golden_name}: at least 7 COUNT lines compared ({n})")
    m = event_check(golden_name, recs, events, providers, skip)
    check(m >= 10, f"{golden_name}: at least 10 listed events compared ({m})")


def test_gcevents():
    test_golden("gcevents.baseline.txt", "perfview_gcevents_clr.etl", {"Microsoft-Windows-DotNETRuntime"})


def test_rundown():
    test_golden("gcrundownevents.baseline.txt", "perfview_gcrundownevents_clrrundown.etl",
                {"Microsoft-Windows-DotNETRuntimeRundown"})


TRACE_ONLY = {"Microsoft-Windows-DNS-Client", "Microsoft-Windows-Immersive-Shell", "Microsoft-Windows-Kernel-EventTracing",
              "Microsoft-Windows-Kernel-File", "Microsoft-Windows-Kernel-Process", "PerfView",
              "System.Diagnostics.Eventing.FrameworkEventSource", "System.Threading.Tasks.TplEventSource"}
# events whose golden fields come from TraceEvent's own hand-written parsers (other names than
# the schema's): compared by name and count, and by the fields whose names agree
OWN_PARSER_PROVIDERS = {"Microsoft-Windows-Kernel-File", "Microsoft-Windows-Kernel-Process"}
# TraceEvent's Kernel-File parser converts its values: device paths to drive letters
# ("\\Device\\HarddiskVolume2\\Windows" -> "C:\\Windows"), CreateOptions split into options
# (low 24 bits) and CreateDisposition (high 8), ShareAccess and attributes as its own enums;
# the schema carried in the trace gives the raw values, as TDH does: not compared
VALUES_NOT_COMPARED = {"Microsoft-Windows-Kernel-File"}
CLR = {"Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimeRundown", "Microsoft-Windows-DotNETRuntimePrivate"}


def test_net452():
    counts, events = golden("net.4.5.2.x64.baseline.txt")
    skip = own_names()
    path = os.path.join(CAPTURES, "perfview_net452_x64_merged_compressed.etl")
    recs = with_payload_size(path)
    n = count_check("net452 (no manifest path)", recs, counts, TRACE_ONLY, skip)
    check(n >= 30, f"net452: at least 30 COUNT lines from the trace's own schemas ({n})")
    event_check("net452 (no manifest path)", recs, events, TRACE_ONLY - OWN_PARSER_PROVIDERS, skip)
    event_check("net452 (no manifest path, TraceEvent's own parsers)", recs, events,
                OWN_PARSER_PROVIDERS - VALUES_NOT_COMPARED, skip, fields_must_match=False)
    event_check("net452 (no manifest path, TraceEvent's own conversions)", recs, events, VALUES_NOT_COMPARED, skip,
                fields_must_match=False, compare_values=False)
    recs = with_payload_size(path, "--manifest-path", MANIFESTS)
    n = count_check("net452 (manifests on the path)", recs, counts, CLR, skip)
    check(n >= 60, f"net452: at least 60 CLR COUNT lines with the manifests ({n})")
    # the manifest on the path wins over the carried schema: display names, not internal ones
    names = {r.get("event_name") for r in recs if r.get("provider_name") == "Microsoft-Windows-DotNETRuntime"}
    check("GC/RestartEEStop" in names and "GarbageCollection/GCRestartEEEnd" not in names,
          "net452: the manifest's display names win over the carried internal names")
    event_check("net452 (manifests on the path)", recs, events, CLR, skip, fields_must_match=False)


# ---- corpus ---------------------------------------------------------------------------------------
def decoded_fully(label, recs, want_events=None):
    ev = [r for r in recs if r["header_type"].startswith("EVENT_HEADER")]
    bad = [r for r in ev if "fields" not in r or "fields_placeholder" in r or "schema_missing" in r or "fields_error" in r]
    check(not bad, f"{label}: every event decodes with no placeholder ({len(bad)} do not: "
                   f"{[(b.get('event_name'), b.get('fields_placeholder'), b.get('schema_missing')) for b in bad[:3]]})")
    if want_events is not None:
        check(len(ev) == want_events, f"{label}: {len(ev)} events == {want_events}")
    names = collections.Counter(r.get("event_name") for r in ev)
    print(f"ok {label}: {len(ev)} events, {len(names)} names: {dict(list(names.items())[:6])}")
    return ev


def test_corpus():
    for cap in ["tx_HTTP_Server_manifest.etl", "tx_Process_kernelprocess_manifest.etl", "krabsetw_powershell_manifest.etl"]:
        recs = records(os.path.join(CAPTURES, cap), "--manifest-path", MANIFESTS)
        ev = decoded_fully(cap, recs)
        check(all(r.get("provider_name") for r in ev), f"{cap}: every event has its provider's name")
        check(all(r.get("fields") or r.get("event_name") for r in ev), f"{cap}: events are named")
    # a value checked by hand: Kernel-Process ProcessStart's ImageName is a path
    recs = records(os.path.join(CAPTURES, "tx_Process_kernelprocess_manifest.etl"), "--manifest-path", MANIFESTS)
    st = [r for r in recs if r.get("event_name") == "ProcessStart/Start"]
    check(st and all(str(r["fields"].get("ImageName", "")).startswith("\\Device\\") for r in st),
          f"kernelprocess: ProcessStart ImageName {[r['fields'].get('ImageName') for r in st[:2]]}")
    # the EventSource capture: all 12 events from the manifest in the stream, no path
    cap = "tx_BondEtwSample_eventsource.etl"
    recs = records(os.path.join(CAPTURES, cap))
    ev = decoded_fully(cap, recs, 12)
    check(sum(1 for r in ev if r.get("event_name") == "ManifestData") == 1, f"{cap}: one ManifestData event")
    check(all(r.get("provider_name") for r in ev), f"{cap}: provider named from its manifest")


# ---- generated ------------------------------------------------------------------------------------
GEN_PROVIDER = "{7e57a11a-0000-4000-8000-00000000f00d}"
GEN_MANIFEST = f"""<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Etlshark-Generated" guid="{GEN_PROVIDER}" symbol="GEN">
   <tasks><task name="Job" value="1"/><task name="Shape" value="2" message="$(string.task.shape)"/></tasks>
   <maps>
    <valueMap name="Kind"><map value="1" message="$(string.kind.one)"/><map value="2" message="Two"/></valueMap>
    <bitMap name="Perms"><map value="0x1" message="Read"/><map value="0x2" message="Write"/><map value="0x4" message="Exec"/></bitMap>
   </maps>
   <templates>
    <template tid="Lengths">
     <data name="NameLen" inType="win:UInt16"/>
     <data name="Name" inType="win:UnicodeString" length="NameLen"/>
     <data name="BlobSize" inType="win:UInt32"/>
     <data name="Blob" inType="win:Binary" length="BlobSize"/>
     <data name="Count" inType="win:UInt32"/>
     <data name="Values" inType="win:UInt64" count="Count"/>
     <data name="Tail" inType="win:AnsiString"/>
    </template>
    <template tid="Shapes">
     <data name="PointCount" inType="win:UInt16"/>
     <struct name="Points" count="PointCount">
      <data name="X" inType="win:Int32"/>
      <data name="Y" inType="win:Int32"/>
      <data name="Label" inType="win:UnicodeString"/>
     </struct>
     <data name="Kind" inType="win:UInt8" map="Kind"/>
     <data name="Perms" inType="win:UInt32" map="Perms"/>
     <data name="Other" inType="win:UInt32" map="Kind"/>
    </template>
    <template tid="Pointers">
     <data name="Address" inType="win:Pointer"/>
     <data name="Size" inType="win:UInt32"/>
     <data name="After" inType="win:UInt16"/>
    </template>
   </templates>
   <events>
    <event value="1" version="0" task="Job" opcode="win:Start" template="Lengths" message="$(string.msg.lengths)"/>
    <event value="2" version="0" task="Shape" template="Shapes"/>
    <event value="3" version="0" task="Job" opcode="win:Info" template="Pointers"/>
   </events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="task.shape" value="Shapes"/>
  <string id="kind.one" value="One"/>
  <string id="msg.lengths" value="%2 has %5 values"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"""


def generate(tmp, preset):
    path = os.path.join(tmp, preset + ".etl")
    p = subprocess.run([ETLGEN, "--preset", preset, "-o", path], capture_output=True, text=True)
    check(p.returncode == 0, f"etlgen --preset {preset} ({p.stderr[:200]})")
    return path


def test_generated():
    if not ETLGEN:
        check(False, "generated: the etlgen path is given")
        return
    with tempfile.TemporaryDirectory() as tmp:
        mdir = os.path.join(tmp, "manifests")
        os.mkdir(mdir)
        with open(os.path.join(mdir, "generated.man"), "w", encoding="utf-8") as f:
            f.write(GEN_MANIFEST)
        expect_ptr = {"mf_fields64": ("0x7FF6DEADBEEF", 8), "mf_fields32": ("0xDEADBEEF", 4)}
        for preset, (addr, ptr) in expect_ptr.items():
            path = generate(tmp, preset)
            recs = records(path, "--manifest-path", mdir)
            ev = decoded_fully(preset, recs, 3)
            by = {r["event_name"]: r for r in ev}
            check(set(by) == {"Job/Start", "Shapes", "Job"}, f"{preset}: event names {sorted(by)}")
            if set(by) != {"Job/Start", "Shapes", "Job"}:
                continue
            lengths = by["Job/Start"]["fields"]
            check(lengths == {"NameLen": 5, "Name": "alpha", "BlobSize": 3, "Blob": "0a0b0c", "Count": 2,
                              "Values": [1, "18446744073709551615"], "Tail": "end"},
                  f"{preset}: length and count from other properties: {lengths}")
            check(by["Job/Start"].get("message") == "alpha has 2 values", f"{preset}: message {by['Job/Start'].get('message')!r}")
            check(by["Job/Start"].get("task_name") == "Job" and by["Job/Start"].get("opcode_name") == "Start",
                  f"{preset}: task and opcode names")
            shapes = by["Shapes"]["fields"]
            check(shapes == {"PointCount": 2, "Points": [{"X": 1, "Y": -2, "Label": "p0"}, {"X": 3, "Y": -4, "Label": "p1"}],
                             "Kind": "One", "Perms": "Read | Exec | 0x8", "Other": 9},
                  f"{preset}: struct array, value map, bit map, a value not in the map: {shapes}")
            ptrs = by["Job"]["fields"]
            check(ptrs == {"Address": addr, "Size": 4096, "After": 7}, f"{preset}: {ptr * 8}-bit pointer: {ptrs}")
            check(by["Job"]["header_type"] == ("EVENT_HEADER64" if ptr == 8 else "EVENT_HEADER32"), f"{preset}: header")
        # an EventSource manifest after its events: every event decodes, no path needed
        path = generate(tmp, "mf_late")
        recs = records(path)
        ev = decoded_fully("mf_late", recs, 4)
        names = [r.get("event_name") for r in ev]
        check(names[:2] == ["Hello", "Hello"] and names[-1] == "ManifestData",
              f"mf_late: events before the manifest decode from it: {names}")
        check(ev[0].get("fields") == {"Greeting": "hi", "Number": 1}, f"mf_late: first event's fields {ev[0].get('fields')}")
        # etlgen's eventsource preset: its manifest first (2 chunks), then its events, messages
        path = generate(tmp, "eventsource")
        ev = decoded_fully("eventsource", records(path), 9)
        names = collections.Counter(r.get("event_name") for r in ev)
        check(names == {"ManifestData": 2, "Start": 3, "Stop": 3, "Bytes": 1}, f"eventsource: names {dict(names)}")
        msgs = [r.get("message") for r in ev if r.get("event_name") in ("Start", "Bytes")]
        check(msgs[:1] == ["Start task-1 with 100"] and msgs[-1] == "6 bytes", f"eventsource: messages {msgs}")
        # a STRING_ONLY event (etlgen's manifest64 preset): its string, with no manifest at all
        path = generate(tmp, "manifest64")
        so = [r for r in records(path) if r.get("event_name") == "EventWriteString"]
        check(len(so) == 1 and so[0]["fields"] == {"String": "a plain string event"}
              and so[0].get("message") == "a plain string event", f"manifest64: STRING_ONLY event {so}")
        # a malformed manifest beside the good one: an error naming file and line, the good
        # one still loads and decodes
        bad = os.path.join(mdir, "broken.xml")
        with open(bad, "w", encoding="utf-8") as f:
            f.write("<instrumentationManifest>\n <instrumentation>\n  <events>\n   <provider name='x' guid='not-a-guid'>\n")
        path = generate(tmp, "mf_fields64")
        p, recs = etldump(path, "--manifest-path", mdir)
        check(p.returncode == 0, f"malformed manifest: exit 0 ({p.returncode})")
        check(re.search(r"broken\.xml:4: .*guid", p.stderr) is not None, f"malformed manifest: file and line named: {p.stderr!r}")
        decoded_fully("mf_fields64 beside a broken manifest", recs, 3)
        # the environment variable, with the folder, a missing entry and an empty one
        p, recs = etldump(path, env={"ETLSHARK_MANIFEST_PATH": f"{os.path.join(tmp, 'nowhere')}::{mdir}"})
        check("nowhere: no such file or folder" in p.stderr, f"ETLSHARK_MANIFEST_PATH: missing entry reported: {p.stderr!r}")
        decoded_fully("mf_fields64 with ETLSHARK_MANIFEST_PATH", recs, 3)
        # without any manifest: no schema, the key and the hint, header and payload still there
        p, recs = etldump(path)
        ev = [r for r in recs if r["header_type"].startswith("EVENT_HEADER")]
        check(all(r.get("schema_missing", {}).get("provider") == GEN_PROVIDER.strip("{}") for r in ev),
              f"no manifest: schema_missing names the provider {[r.get('schema_missing') for r in ev[:1]]}")
        check(p.stderr.count("no schema for") == 3 and "--manifest-path" in p.stderr,
              f"no manifest: stderr once per key with the hint: {p.stderr!r}")


TESTS = {"gcevents": test_gcevents, "rundown": test_rundown, "net452": test_net452, "corpus": test_corpus,
         "generated": test_generated}
if WHICH not in TESTS:
    print(f"unknown test {WHICH!r}; one of {sorted(TESTS)}")
    sys.exit(2)
TESTS[WHICH]()
finish()
