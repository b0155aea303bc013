#!/usr/bin/env python3
"""Classic kernel events end to end: etldump's "provider_name", "event_name" and "fields" for the
records the built-in kernel class document (decoder/schema/kernel/kernel-classes.man) describes, against
TraceEvent's golden (../shared/goldens/net.4.5.2.x64.baseline.txt) and on every capture.

Usage: test_kernel.py ETLDUMP SHARED_DIR TEST
TEST is one of:
  golden   perfview_net452_x64_merged_compressed.etl with no manifest path: every COUNT line of
           "Windows Kernel/...", "MSNT_SystemTrace/..." and "KernelTraceControl/..." (full name =
           provider_name + "/" + event_name) equals our count - PerfInfo/Sample under TraceEvent's
           rule (see `traceevent_sample_count`) - and every listed kernel EVENT has a record whose
           fields and PName equal the golden's.  Where the golden shows TraceEvent's own names,
           formats or computations, the tables below say which and why; those values are still
           compared wherever they can be derived from our output.  Names we show that the golden
           has no COUNT line for must be in BOOKKEEPING.
  whole    the same capture with ../shared/manifests on the path: EVERY COUNT line of the golden
           (every provider) equals our count, but the names in traceevent-own-names.txt; the
           three Kernel-EventTracing names whose golden form is the trace's carried schema are
           compared under their manifest names (CARRIED_VS_MANIFEST).  The golden's PName of
           every listed event (all providers) equals etldump's "process_name" without its
           extension, but the cases in PNAME_ALLOWED (also checked in golden).
  sample   PerfInfo/Sample: we show every record (79528); TraceEvent's TraceLog leaves out the
           idle thread's samples that are not DPCs or ISRs; that rule applied to our fields gives
           the golden's 6320 exactly.
  corpus   every classic record of every capture in ../shared/captures is named, decodes with
           no placeholder and no trailing bytes, but the records in KNOWN_UNKNOWN; the two kernel
           captures (etlparser_ShutdownPerfDiagLogger_kernel, perfview_diaghub_kernel_relogged)
           have no unknown classic record at all; the KernelTraceControl MetaData records are
           what their tdh.h headers say (names at the offsets, property arrays inside).
  syzygy   the Vista (Image class version 0) and Windows 7 (version 2) 32-bit captures: image
           events decode with each version's layout, both captures logged the same images, and
           the values are plausible.
Prints what it checked and ends with an "N passed, N failed" line; exits non-zero on failure.
"""
import collections
import datetime
import fnmatch
import json
import os
import re
import subprocess
import sys

from checks import check, finish
from goldens import golden_date, golden_number, same_text, truncated
import goldens

ETLDUMP, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3]
CAPTURES = os.path.join(SHARED, "captures")
GOLDENS = os.path.join(SHARED, "goldens")
MANIFESTS = os.path.join(SHARED, "manifests")
NET452 = os.path.join(CAPTURES, "perfview_net452_x64_merged_compressed.etl")
KERNEL_PROVIDERS = {"Windows Kernel", "MSNT_SystemTrace", "KernelTraceControl"}
CLASSIC = {"SYSTEM32", "SYSTEM64", "COMPACT32", "COMPACT64", "PERFINFO32", "PERFINFO64", "FULL_HEADER32",
           "FULL_HEADER64", "INSTANCE32", "INSTANCE64"}


def etldump(path, *extra, payload=True):
    """Our records; with payload, "payload_size" (the golden's DataLen) and "payload" (bytes)."""
    e = dict(os.environ)
    e.pop("ETLSHARK_MANIFEST_PATH", None)
    args = [ETLDUMP, *extra, path] if payload else [ETLDUMP, "--no-payload", *extra, path]
    p = subprocess.run(args, capture_output=True, text=True, env=e)
    if os.path.getsize(path) == 0:
        # an empty file is unusable input (exit 2) and has no records
        check(p.returncode == 2 and not p.stdout, f"{os.path.basename(path)}: empty file: exit 2, no records")
        return []
    check(p.returncode == 0, f"{os.path.basename(path)}: etldump exit 0 (got {p.returncode}: {p.stderr[:300]})")
    out = []
    for line in p.stdout.splitlines():
        r = json.loads(line)
        if payload:
            r["payload"] = bytes.fromhex(r.pop("payload_hex", ""))
            r["payload_size"] = len(r["payload"])
        out.append(r)
    return out


def full_name(r):
    return f"{r.get('provider_name')}/{r['event_name']}" if "event_name" in r else None


def ticks(r):
    """The record's time in 100 ns units (from its ISO timestamp, which has 7 digits)."""
    s = r["timestamp"]
    d = datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    return int((d - datetime.datetime(1970, 1, 1)).total_seconds()) * 10_000_000 + int(s[20:27])


def u(payload, off, n):
    return int.from_bytes(payload[off:off + n], "little")


# ---- TraceEvent's count of PerfInfo/Sample ------------------------------------------------------
def traceevent_sample_count(recs):
    """How many PerfInfo/Sample records TraceEvent's golden counts, computed from our fields.

    The golden was made by TraceEvent's GeneralParsing test, which reads the trace through
    TraceLog (TraceLog.CreateFromEventTraceLogFile).  TraceLog's PerfInfoSample handler marks a
    sample "removeFromStream" - it is not written to the ETLX file, so the golden never sees it -
    when the sample's thread id is 0 (the idle thread) and the sample is not "NonProcess", i.e.
    neither ExecutingDPC (bit 0) nor ExecutingISR (bit 1) of the byte after Count is set
    (microsoft/perfview src/TraceEvent/TraceLog.cs, kernelParser.PerfInfoSample; the bits:
    SampledProfileTraceData.NonProcess in Parsers/KernelTraceEventParser.cs).  The record header
    of a PERFINFO sample has no thread id, so the thread is the payload's ThreadId; that byte is
    the low byte of the document's Flags (the high 16 bits of the MOF's Count).
    We show every record; this only says which of them TraceEvent would have counted."""
    n = 0
    for r in recs:
        if full_name(r) != "Windows Kernel/PerfInfo/Sample":
            continue
        f = r["fields"]
        if f["ThreadId"] == 0 and int(f["Flags"], 16) & 3 == 0:
            continue
        n += 1
    return n


# ---- how the golden prints, and what it computes ------------------------------------------------
def is_hex_text(v):
    return isinstance(v, str) and re.fullmatch(r"0x[0-9A-Fa-f]+", v) is not None


def our_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if is_hex_text(v):
        return int(v, 16)
    return None


def signed(v, bits):
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def decimal_text(v):
    """An integer as TraceEvent prints it: decimal with thousands separators."""
    return f"{v:,}"


# Golden field name -> the document's name.  The document takes the names of Microsoft's MOF
# class pages; TraceEvent's parsers name some properties their own way.
# (event pattern, golden field): (our field, why)
RENAMED = {
    ("Process/*", "ProcessID"): ("ProcessId", "MOF Process_V*_TypeGroup1/2 property name"),
    ("Process/*", "ParentID"): ("ParentId", "MOF Process_V*_TypeGroup1 property name"),
    ("Process/*", "SessionID"): ("SessionId", "MOF Process_V*_TypeGroup1 property name"),
    ("Process/*", "PageDirectoryBase"): ("DirectoryTableBase", "MOF Process_V*_TypeGroup1 property name"),
    ("Process/PerfCtr*", "MemoryCount"): ("PageFaultCount", "MOF Process_V2_TypeGroup2 property name"),
    ("Image/*", "ImageChecksum"): ("ImageCheckSum", "MOF Image_Load property name"),
    ("DiskIO/*", "FileKey"): ("FileObject", "MOF DiskIo_TypeGroup1 property name"),
    ("Memory/HardFault", "FileKey"): ("FileObject", "MOF PageFault_HardFault property name"),
    ("Thread/*", "StartAddr"): ("Affinity", "MOF Thread_TypeGroup1 (class version 3) names the 7th "
                                            "property Affinity; TraceEvent keeps version 2's StartAddr"),
    ("SystemConfig/IDEChannel", "TargetID"): ("TargetId", "MOF SystemConfig_IDEChannel property name"),
    ("SystemConfig/Services", "ProcessID"): ("ProcessId", "MOF SystemConfig_Services property name"),
    ("SystemConfig/Power", "S1"): ("s1", "MOF SystemConfig_Power property name"),
    ("SystemConfig/Power", "S2"): ("s2", "MOF SystemConfig_Power property name"),
    ("SystemConfig/Power", "S3"): ("s3", "MOF SystemConfig_Power property name"),
    ("SystemConfig/Power", "S4"): ("s4", "MOF SystemConfig_Power property name"),
    ("SystemConfig/Power", "S5"): ("s5", "MOF SystemConfig_Power property name"),
    ("EventTrace", "LogFileName"): ("LogFilePath", "the MOF's LogFileName is the pointer (kept under that "
                                                   "name); TraceEvent shows the string after the fixed "
                                                   "part under it, the document names that LogFilePath"),
}

# Fields we show in hex where TraceEvent prints decimal; the value is compared as a number.
# (event pattern, field glob): why ours is hex
HEX_SHOWN = {
    ("EventTrace", "LogFileMode"): 'MOF EventTrace_Header: Format("x")',
    ("EventTrace/*Extension", "GroupMask?"): "undocumented PERFINFO_GROUPMASK bit masks, shown in hex like "
                                             "every documented mask",
    ("Image/*", "ImageSize"): 'MOF Image_Load: "Pointer ... actually size_t" -> TDH SIZET, default out-type '
                              "HEXINT64 (tdh.h)",
    ("ImageID", "ImageSize"): "pointer-sized size (tdh:SIZET), default out-type HEXINT64 (tdh.h)",
    ("Process/PerfCtr*", "*Size"): 'MOF Process_V2_TypeGroup2: Extension("SizeT") -> HEXINT64 (tdh.h)',
    ("Process/PerfCtr*", "*Usage"): 'MOF Process_V2_TypeGroup2: Extension("SizeT") -> HEXINT64 (tdh.h)',
    ("Process/PerfCtr*", "PrivatePageCount"): 'MOF Process_V2_TypeGroup2: Extension("SizeT") -> HEXINT64',
    ("Memory/HardFault", "ReadOffset"): 'MOF PageFault_HardFault: Format("x")',
    ("SystemConfig/NIC", "PhysicalAddr"): 'MOF SystemConfig_NIC: Format("x")',
    ("SystemConfig/Services", "ServiceState"): 'MOF SystemConfig_Services: Format("x")',
    ("SystemConfig/Services", "SubProcessTag"): 'MOF SystemConfig_Services: Format("x")',
    ("Thread/*", "SubProcessTag"): 'MOF Thread_V2_TypeGroup1: Format("x")',
    ("SystemConfig/IDEChannel", "DeviceType"): 'MOF SystemConfig_IDEChannel: Format("x")',
    ("SystemConfig/IDEChannel", "DeviceTimingMode"): 'MOF SystemConfig_IDEChannel: Format("x")',
}

# Unsigned fields TraceEvent reads as signed integers: (event pattern, field): bits.  The MOF
# declares them uint32/uint64; the same bits.
SIGNED = {
    ("Process/*", "SessionID"): 32,
    ("SystemConfig/Network", "MaxHashTableSize"): 32,
    ("Image/*", "TimeDateStamp"): 32,
    ("ImageID*", "TimeDateStamp"): 32,
    ("SystemConfig/NIC", "PhysicalAddr"): 64,
}

# A k:optional property (document: "this property and every one after it may be absent") that
# these Windows 8 records do not carry; TraceEvent shows it empty.
OPTIONAL_ABSENT = {
    ("Thread/*", "ThreadName"): "Thread class version 3 before Windows 10 ends before ThreadName",
}

# Golden fields that are TraceEvent's bookkeeping across events, not values of the record.
NOT_COMPARED = {
    ("Thread/*", "ParentThreadID"): "TraceEvent's own bookkeeping: the thread that was running when the thread "
                                    "was created (-1 when unknown)",
    ("Thread/*", "ParentProcessID"): "TraceEvent's own bookkeeping, as ParentThreadID",
    ("DiskIO/*", "DiskServiceTimeMSec"): "TraceEvent's model across events: the time since the same disk's "
                                         "previous completion, at most ElapsedTimeMSec",
    ("UdpIp/*", "dsize"): "TraceEvent reads these IPv4 records with an older (context, ..., dsize) layout; "
                          "dsize lies past the fields of class version 2 and is 0",
    ("ImageID", "ProcessID"): "TraceEvent has no accessor for this field (commented out in SymbolTraceEventParser.cs: "
                              "'seems to always be 0') and prints 0; the payload holds the record's process id",
}

# TraceEvent's enums, by name (its Parsers/KernelTraceEventParser.cs); the numbers are the
# record's bits.
TE_PROCESS_FLAGS = {"None": 0, "PackageFullName": 1, "Wow64": 2, "Protected": 4}
TE_IRP_FLAGS = {"None": 0, "Nocache": 0x1, "PagingIo": 0x2, "MountCompletion": 0x2, "SynchronousApi": 0x4,
                "AssociatedIrp": 0x8, "BufferedIO": 0x10, "DeallocateBuffer": 0x20, "InputOperation": 0x40,
                "SynchronousPagingIO": 0x40, "Create": 0x80, "Read": 0x100, "Write": 0x200, "Close": 0x400,
                "DeferIOCompletion": 0x800, "ObQueryName": 0x1000, "HoldDeviceQueue": 0x2000}
TE_IRP_PRIORITY_MASK = 0xE0000
TE_IO_PRIORITY = ["Notset", "Verylow", "Low", "Normal", "High", "Critical", "Reserved0", "Reserved1"]


def enum_flags_match(g, value, names):
    """A .NET [Flags] enum printed as 'A, B, C' (perhaps cut to 20 characters): every whole name
    is a set bit of value; uncut, the names cover value exactly; a cut last name is the start of
    the name of a set bit."""
    cut = truncated(g)
    parts = (g[:-3] if cut else g).split(", ")
    last = parts.pop() if cut else None
    covered = 0
    for p in parts:
        if p not in names or (names[p] & value) != names[p]:
            return False
        covered |= names[p]
    if value == 0:
        return parts == ["None"] and not cut
    if cut:
        return any(n.startswith(last) and v and v & value == v for n, v in names.items())
    return covered == value


class Context:
    """What the golden's computed values are derived from: the trace's own events."""

    def __init__(self, recs):
        hdr = next(r for r in recs if full_name(r) == "Windows Kernel/EventTrace")
        self.perf_freq = hdr["fields"]["PerfFreq"]
        # NT path prefix -> DOS path, in the order the trace gives them; the first prefix that
        # matches wins (TraceEvent's KernelToUserDriveMapping, filled from the trace's own
        # SysConfig/SystemPaths ("\\Windows\\" -> SystemWindowsDirectory) and VolumeMapping events)
        self.volumes = []
        for r in recs:
            if full_name(r) == "Windows Kernel/SysConfig/SystemPaths":
                self.volumes.append(("\\Windows\\", r["fields"]["SystemWindowsDirectory"]))
            elif full_name(r) == "Windows Kernel/SysConfig/VolumeMapping":
                self.volumes.append((r["fields"]["NtPath"], r["fields"]["DosPath"]))
        # process id -> image file name, from the trace's Process events
        self.images = {}
        for r in recs:
            if (r.get("task_name") == "Process" and r.get("provider_name") == "Windows Kernel"
                    and "ImageFileName" in r.get("fields", {})):
                self.images.setdefault(r["fields"]["ProcessId"], r["fields"]["ImageFileName"])
        # file object -> [(time, NT path)], from the trace's FileIo name events
        self.files = collections.defaultdict(list)
        for r in recs:
            if r.get("task_name") == "FileIo" and r.get("opcode_name") in ("Name", "FileCreate", "FileDelete",
                                                                            "FileRundown"):
                self.files[r["fields"]["FileObject"]].append((ticks(r), r["fields"]["FileName"]))

    def dos_path(self, nt):
        for prefix, dos in self.volumes:
            if nt.lower().startswith(prefix.lower()):
                return dos + nt[len(prefix):]
        return nt

    def process_name(self, pid):
        name = self.images.get(pid, "")
        return name.rsplit(".", 1)[0] if "." in name else name

    def file_name(self, file_object, when):
        """The name the trace gives the file object: the last name event at or before `when`,
        else (names from the rundown at the end of the trace) the first one after it."""
        names = sorted(self.files.get(file_object, []))
        before = [n for t, n in names if t <= when]
        return before[-1] if before else names[0][1] if names else ""


def build_time(ts):
    """A PE TimeDateStamp as a date: seconds since 1970-01-01 UTC, unsigned (TraceEvent prints the
    field itself signed, but dates it unsigned: -1,726,546,814 is 2051-05-23)."""
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=ts)


def same_ms(g, ms):
    """TraceEvent prints milliseconds with 3 decimals ("n3")."""
    return abs(float(g.replace(",", "")) - ms) <= 0.0011


def computed_build_time(r, g, ctx):
    when, _ = golden_date(g)
    return when == build_time(r["fields"]["TimeDateStamp"]), str(build_time(r["fields"]["TimeDateStamp"]))


def computed_utc_offset(r, g, ctx):
    tz = bytes.fromhex(r["fields"]["TimeZoneInformation"])
    bias = signed(u(tz, 0, 4), 32)
    return golden_number(g) == bias, bias


def sample_flags(r):
    return int(r["fields"]["Flags"], 16)


def computed_udp_context(r, g, ctx):
    ctx_value = u(r["payload"], 0, 8)  # the first pointer of the payload: PID, then size
    f = r["fields"]
    return golden_number(g) == ctx_value == f["PID"] | f["size"] << 32, hex(ctx_value)


def computed_irp_flags(r, g, ctx):
    v = int(r["fields"]["IrpFlags"], 16) & ~TE_IRP_PRIORITY_MASK
    return enum_flags_match(g, v, TE_IRP_FLAGS), hex(v)


def computed_io_priority(r, g, ctx):
    p = TE_IO_PRIORITY[(int(r["fields"]["IrpFlags"], 16) >> 17) & 7]
    return g == p, p


def computed_disk_elapsed(r, g, ctx):
    ms = r["fields"]["HighResResponseTime"] * 1000 / ctx.perf_freq
    return same_ms(g, ms), f"{ms:.4f}"


def computed_fault_elapsed(r, g, ctx):
    ms = (r["timestamp_raw"] - r["fields"]["InitialTime"]) * 1000 / ctx.perf_freq
    return same_ms(g, ms), f"{ms:.4f}"


def computed_process_flags(r, g, ctx):
    v = our_int(r["fields"]["Flags"])
    return enum_flags_match(g, v, TE_PROCESS_FLAGS), hex(v)


def computed_dos_path(field):
    def f(r, g, ctx):
        p = ctx.dos_path(r["fields"][field])
        return same_text(g, p), p
    return f


def computed_service_process(r, g, ctx):
    name = ctx.process_name(r["fields"]["ProcessId"])
    return same_text(g, name), name


def computed_file_name(r, g, ctx):
    name = ctx.dos_path(ctx.file_name(r["fields"]["FileObject"], ticks(r)))
    return same_text(g, name), name


# Golden fields TraceEvent computes from the record (and the trace): derived here from our output.
# (event pattern, golden field): (function(record, golden text, context) -> (same, ours), how)
COMPUTED = {
    ("EventTrace", "UtcOffsetMinutes"): (computed_utc_offset, "TIME_ZONE_INFORMATION.Bias: the first LONG of "
                                                              "TimeZoneInformation"),
    ("Image*", "BuildTime"): (computed_build_time, "TimeDateStamp as seconds since 1970-01-01 UTC (signed)"),
    ("ImageID*", "BuildTime"): (computed_build_time, "TimeDateStamp as seconds since 1970-01-01 UTC (signed)"),
    ("PerfInfo/Sample", "ProcessorNumber"): (lambda r, g, c: (golden_number(g) == r["cpu"], r["cpu"]),
                                             "the record's processor"),
    ("PerfInfo/Sample", "Priority"): (lambda r, g, c: (golden_number(g) == (sample_flags(r) >> 3) & 0x1F,
                                                       (sample_flags(r) >> 3) & 0x1F), "Flags bits 3-7"),
    ("PerfInfo/Sample", "ExecutingDPC"): (lambda r, g, c: (g == str(bool(sample_flags(r) & 1)), sample_flags(r) & 1),
                                          "Flags bit 0"),
    ("PerfInfo/Sample", "ExecutingISR"): (lambda r, g, c: (g == str(bool(sample_flags(r) & 2)), sample_flags(r) & 2),
                                          "Flags bit 1"),
    ("PerfInfo/Sample", "Rank"): (lambda r, g, c: (golden_number(g) == sample_flags(r) >> 8, sample_flags(r) >> 8),
                                  "Flags bits 8-15"),
    ("UdpIp/Send", "context"): (computed_udp_context, "the payload's first 8 bytes (PID, size) as one pointer"),
    ("UdpIp/Recv", "context"): (computed_udp_context, "the payload's first 8 bytes (PID, size) as one pointer"),
    ("DiskIO/*", "IrpFlags"): (computed_irp_flags, "TraceEvent's IrpFlags enum of IrpFlags without the "
                                                   "priority bits 17-19"),
    ("DiskIO/*", "Priority"): (computed_io_priority, "TraceEvent's IOPriority enum of IrpFlags bits 17-19"),
    ("DiskIO/*", "ElapsedTimeMSec"): (computed_disk_elapsed, "HighResResponseTime (QPC ticks) / PerfFreq"),
    ("Memory/HardFault", "ElapsedTimeMSec"): (computed_fault_elapsed, "(record time - InitialTime) / PerfFreq, "
                                                                      "both QPC ticks"),
    ("Process/*", "Flags"): (computed_process_flags, "TraceEvent's ProcessFlags enum (undocumented field)"),
    ("Image/*", "FileName"): (computed_dos_path("FileName"), "the NT path with the first matching prefix of the "
                                                             "trace's own SysConfig/SystemPaths and VolumeMapping "
                                                             "events replaced by its DOS path"),
    ("SystemConfig/Services", "ProcessName"): (computed_service_process, "TraceEvent's process name of ProcessId "
                                                                         "(not the payload's ProcessName): the "
                                                                         "image name without extension from the "
                                                                         "trace's Process events"),
    ("DiskIO/*", "FileName"): (computed_file_name, "looked up by FileObject in the trace's FileIo name events "
                                                   "(Name/FileCreate/FileDelete/FileRundown), then as Image FileName"),
    ("Memory/HardFault", "FileName"): (computed_file_name, "as DiskIO FileName"),
}


def lookup(table, event, field):
    for (pat, fpat), v in table.items():
        if fnmatch.fnmatchcase(event, pat) and fnmatch.fnmatchcase(field, fpat):
            return v, (pat, fpat)
    return None, None


def compare_field(r, event, gname, g, ctx, used):
    """(same, our value text); `used` collects the allowance entries that applied."""
    fn, key = lookup(COMPUTED, event, gname)
    if fn:
        used.add(("computed", key, fn[1]))
        return fn[0](r, g, ctx)
    ren, key = lookup(RENAMED, event, gname)
    name = gname
    if ren:
        used.add(("renamed", key, f"{ren[0]}: {ren[1]}"))
        name = ren[0]
    fields = r["fields"]
    if name not in fields:
        why, key = lookup(OPTIONAL_ABSENT, event, gname)
        if why and g == "":
            used.add(("optional", key, why))
            return True, "(absent)"
        return False, "(absent)"
    v = fields[name]
    n, gn = our_int(v), golden_number(g) if not truncated(g) else None
    if n is not None:
        bits, key = lookup(SIGNED, event, gname)
        shown = signed(n, bits) if bits else n
        if bits and shown != n:
            used.add(("signed", key, f"TraceEvent reads the {bits}-bit field as signed"))
        if is_hex_text(v) and not g.startswith("0x"):
            why, key = lookup(HEX_SHOWN, event, gname)
            if not why:
                return False, v
            used.add(("hex", key, why))
        if not is_hex_text(v) and g.startswith("0x"):
            return False, v  # the golden shows hex where we show decimal: our format is wrong
        if g.startswith("0x"):
            return gn == n, v
        return same_text(g, decimal_text(shown)), decimal_text(shown)
    if isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z", v):
        when, frac = golden_date(g)
        return when == datetime.datetime.strptime(v[:19], "%Y-%m-%dT%H:%M:%S") and v[20:27].startswith(frac), v
    if isinstance(v, str):
        return same_text(g, v), v
    return False, repr(v)


def event_check(label, recs, events, ctx):
    """Every listed kernel event: a record with the same name, processor and payload length at
    the same time (the golden prints ms with 3 decimals), whose fields equal the golden's."""
    t0 = ticks(recs[0])
    by_key = collections.defaultdict(list)
    for i, r in enumerate(recs):
        if "event_name" in r:
            by_key[(full_name(r), r["cpu"], r["payload_size"])].append(i)
    used_recs, used, pname_used = set(), set(), set()
    found = compared = skipped = pnames = 0
    for prov, ev, header, fields in events:
        if prov not in KERNEL_PROVIDERS:
            continue
        name = f"{prov}/{ev}"
        key = (name, int(header["ProceNum"]), golden_number(header["DataLen"]))
        cands = [i for i in by_key.get(key, []) if i not in used_recs
                 and abs((ticks(recs[i]) - t0) / 10_000 - header["MSec"]) <= 0.0006]
        check(cands, f"{label}: a record for {name} at {header['MSec']:.3f} ms, cpu {header['ProceNum']}, "
                     f"DataLen {header['DataLen']}")
        if not cands:
            continue
        found += 1
        first_diffs = None
        for i in cands:
            r = recs[i]
            diffs, u_here, n_here, s_here = [], set(), 0, 0
            for gname, g in fields:
                why, key = lookup(NOT_COMPARED, ev, gname)
                if why:
                    u_here.add(("not compared", key, why))
                    s_here += 1
                    continue
                same, ours = compare_field(r, ev, gname, g, ctx, u_here)
                n_here += 1
                if not same:
                    diffs.append(f"{gname}: golden {g!r}, ours {ours!r}")
            if r.get("event_unknown"):
                check(name in {n for v in KNOWN_UNKNOWN.values() for n, _, _ in v}, f"{label}: {name} is a known unknown")
            else:
                check("fields_placeholder" not in r and "fields_trailing_hex" not in r,
                      f"{label}: {name} decodes exactly ({r.get('fields_placeholder')}, {r.get('fields_trailing_hex')})")
            if not diffs:
                used_recs.add(i)
                used |= u_here
                compared += n_here
                skipped += s_here
                pnames += pname_check(label, r, name, header, recs, pname_used)
                break
            first_diffs = first_diffs or diffs
        else:
            check(False, f"{label}: {name} at {header['MSec']:.3f} ms: fields differ: {first_diffs}")
    for kind, key, why in sorted(used):
        print(f"  allowed ({kind}) {key[0]} {key[1]}: {why}")
    for pat, why in sorted(pname_used):
        print(f"  allowed (PName) {pat}: {why}")
    print(f"ok {label}: {found} listed kernel events found, {compared} field values compared "
          f"(golden fields not compared: {skipped}), PName equal for {pnames}")
    return found, compared, pnames


# ---- PName ---------------------------------------------------------------------------------------
def te_process_name(r):
    """etldump's "process_name" (the image file name the kernel logged for the record's process)
    as TraceEvent's PName column prints it: without its extension ("Test.x64.exe" -> "Test.x64");
    empty when the record has no process."""
    name = r.get("process_name") or ""
    return name.rsplit(".", 1)[0] if "." in name else name


def flush_buffers_pname(r, header, recs):
    """TraceEvent's FlushBuffers fix-up takes the thread id from payload offset 8 on 64-bit - the
    low half of HighResResponseTime, not a thread - so it finds no process (PID=-1, PName empty).
    Ours is the process of IssuingThreadId, which must be the process of the FlushInit of the
    same Irp."""
    f = r["fields"]
    init = [q for q in recs if full_name(q) == "Windows Kernel/DiskIO/FlushInit" and q["fields"]["Irp"] == f["Irp"]]
    return (int(header["TID"]) == f["HighResResponseTime"] & 0xFFFFFFFF and header["PName"] == ""
            and len(init) == 1 and r.get("process_name") and r["process_name"] == init[0].get("process_name"))


def defunct_pname(r, header, recs):
    """TraceEvent names a process it only knows from a Defunct event (it ended before the trace
    and no Start or rundown names it) "Process(<pid>)"; the Defunct event itself carries the
    ImageFileName, which is the name we show."""
    return (header["PName"] == f"Process({r['fields']['ProcessId']})"
            and r.get("process_name") == r["fields"]["ImageFileName"])


# Listed events whose PName we show differently: (event pattern): (check, why)
PNAME_ALLOWED = {
    "Windows Kernel/DiskIO/FlushBuffers": (flush_buffers_pname, "TraceEvent reads a wrong thread id (payload "
                                                                "offset 8 = HighResResponseTime) and shows no "
                                                                "process; ours: IssuingThreadId's, as its FlushInit"),
    "Windows Kernel/Process/Defunct": (defunct_pname, "TraceEvent shows 'Process(pid)' for a process only a Defunct "
                                                      "event names; ours: the event's own ImageFileName"),
}


def pname_check(label, r, name, header, recs, used):
    """The golden's PName for a listed event equals our process name for its record."""
    g, ours = header["PName"], te_process_name(r)
    if g == ours:
        return True
    for pat, (fn, why) in PNAME_ALLOWED.items():
        if fnmatch.fnmatchcase(name, pat):
            used.add((pat, why))
            ok = fn(r, header, recs)
            check(ok, f"{label}: {name} at {header['MSec']:.3f} ms: PName golden {g!r}, ours {ours!r}: {why}")
            return ok
    check(False, f"{label}: {name} at {header['MSec']:.3f} ms: PName golden {g!r} == ours {ours!r} "
                 f"(process_id {r.get('process_id', r['pid'])})")
    return False


# ---- COUNT lines ---------------------------------------------------------------------------------
# Names we show that the golden has no COUNT line for, and why TraceEvent's listing lacks them.
# TraceLog (through which the golden was made) folds "bookkeeping" events into its own tables and
# leaves them out of the event stream (TraceLog.cs: bookKeepingEvent); GeneralParsing skips every
# MSNT_SystemTrace event but SystemConfig/Platform and Image/KernelBase, and events TraceEvent's
# kernel parser has no template for are named from the system's MOF under that provider.
BOOKKEEPING = {
    "Windows Kernel/Thread/DCStart": "thread rundown: TraceLog's thread table",
    "Windows Kernel/Thread/DCStop": "thread rundown: TraceLog's thread table",
    "Windows Kernel/FileIo/FileCreate": "file names: TraceLog's file-name table (FileIONameTraceData)",
    "Windows Kernel/FileIo/FileDelete": "file names: TraceLog's file-name table (FileIONameTraceData)",
    "Windows Kernel/FileIo/FileRundown": "file names: TraceLog's file-name table (FileIONameTraceData)",
    "Windows Kernel/StackWalk/Stack": "stacks: attached by TraceLog to the event they belong to",
    "Windows Kernel/StackWalk/StackKeyKernel": "stacks: attached by TraceLog to the event they belong to",
    "Windows Kernel/StackWalk/StackKeyUser": "stacks: attached by TraceLog to the event they belong to",
    "Windows Kernel/StackWalk/KeyDelete": "stack keys: TraceLog's stack table",
    "Windows Kernel/StackWalk/KeyRundown": "stack keys: TraceLog's stack table",
    "Windows Kernel/Image/HypercallPage": "no TraceEvent template: MSNT_SystemTrace, skipped by GeneralParsing",
    "Windows Kernel/SystemConfig/DPI": "no TraceEvent template: MSNT_SystemTrace, skipped by GeneralParsing",
    "Windows Kernel/SystemConfig/OpticalMedia": "no TraceEvent template: MSNT_SystemTrace, skipped by GeneralParsing",
}

# With the manifests on the path the manifest's display names win over the schema the trace
# carries (test_manifest.py net452).  For Microsoft-Windows-Kernel-EventTracing the golden shows
# the carried schema's names (TDH on the Windows 8 machine that wrote the trace named the task
# and opcodes by their symbols); ../shared/manifests has the Windows 10 manifest, whose messages
# are "Provider" and "Register"/"Unregister"/"Enable".  The same events, counted under both.
CARRIED_VS_MANIFEST = {
    "Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE":
        "Microsoft-Windows-Kernel-EventTracing/Provider/Enable",
    "Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_REGISTER":
        "Microsoft-Windows-Kernel-EventTracing/Provider/Register",
    "Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_UNREGISTER":
        "Microsoft-Windows-Kernel-EventTracing/Provider/Unregister",
}
SAMPLE = "Windows Kernel/PerfInfo/Sample"


def own_names():
    out = set()
    for line in open(os.path.join(GOLDENS, "traceevent-own-names.txt"), encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            out.add(line)
    return out


def count_check(label, recs, counts, providers, renamed=None):
    ours = collections.Counter(full_name(r) for r in recs if "event_name" in r)
    skip = own_names()
    checked = 0
    for (prov, ev), n in sorted(counts.items()):
        name = f"{prov}/{ev}"
        if providers is not None and prov not in providers:
            continue
        if name in skip:
            print(f"  skipped (traceevent-own-names.txt): {name}")
            continue
        if name == SAMPLE:
            mine = traceevent_sample_count(recs)
            check(mine == n, f"{label}: COUNT {name}: ours under TraceLog's sample rule {mine} == golden {n} "
                             f"(ours in all: {ours[name]})")
        elif renamed and name in renamed:
            check(ours[renamed[name]] == n, f"{label}: COUNT {name}: ours as {renamed[name]} {ours[renamed[name]]} "
                                            f"== golden {n}")
        else:
            check(ours[name] == n, f"{label}: COUNT {name}: ours {ours[name]} == golden {n}")
        checked += 1
    print(f"ok {label}: {checked} COUNT lines compared")
    return checked, ours


def test_golden():
    counts, events = goldens.read(os.path.join(GOLDENS, "net.4.5.2.x64.baseline.txt"))
    recs = etldump(NET452)
    n, ours = count_check("net452 kernel", recs, counts, KERNEL_PROVIDERS)
    check(n == 56, f"net452: the golden's 56 kernel COUNT lines compared ({n})")
    extra = sorted(k for k in ours if k.split("/", 1)[0] in KERNEL_PROVIDERS
                   and tuple(k.split("/", 1)) not in counts)
    for k in extra:
        check(k in BOOKKEEPING, f"net452: {k} ({ours[k]}) has no golden COUNT line and no reason in BOOKKEEPING")
        if k in BOOKKEEPING:
            print(f"  not in the golden: {k} ({ours[k]}): {BOOKKEEPING[k]}")
    found, compared, pnames = event_check("net452 kernel", recs, events, Context(recs))
    check(pnames == found, f"net452: PName of every listed kernel event equal or explained ({pnames} of {found})")
    listed = sum(1 for p, _, _, _ in events if p in KERNEL_PROVIDERS)
    check(found == listed == 186, f"net452: all {listed} listed kernel events found ({found})")
    check(compared >= 1200, f"net452: at least 1200 kernel field values compared ({compared})")


def test_whole():
    counts, events = goldens.read(os.path.join(GOLDENS, "net.4.5.2.x64.baseline.txt"))
    recs = etldump(NET452, "--manifest-path", MANIFESTS)
    for k, v in CARRIED_VS_MANIFEST.items():
        print(f"  compared under the manifest's name: {k} as {v}")
    n, _ = count_check("net452 whole (manifests on the path)", recs, counts, None, CARRIED_VS_MANIFEST)
    skip = own_names()
    check(n == len(counts) - len(skip & {f"{p}/{e}" for p, e in counts}),
          f"net452: every COUNT line but traceevent-own-names.txt compared ({n} of {len(counts)})")
    # PName of every listed event, of every provider: the record of the same provider, processor
    # and payload length at the same time, named as the golden names it (or, for the names above
    # and traceevent-own-names.txt, by its provider alone)
    t0 = ticks(recs[0])
    by_key = collections.defaultdict(list)
    for r in recs:
        if "event_name" in r:
            by_key[(r["provider_name"], r["cpu"], r["payload_size"])].append(r)
    used, found, equal = set(), 0, 0
    for prov, ev, header, _ in events:
        name = f"{prov}/{ev}"
        want = CARRIED_VS_MANIFEST.get(name, name)
        cands = [r for r in by_key.get((prov, int(header["ProceNum"]), golden_number(header["DataLen"])), [])
                 if abs((ticks(r) - t0) / 10_000 - header["MSec"]) <= 0.0006
                 and (name in skip or full_name(r) == want)]
        check(cands, f"net452 whole: a record for {name} at {header['MSec']:.3f} ms")
        if not cands:
            continue
        found += 1
        r = next((c for c in cands if te_process_name(c) == header["PName"]), cands[0])
        equal += pname_check("net452 whole", r, name, header, recs, used)
    for pat, why in sorted(used):
        print(f"  allowed (PName) {pat}: {why}")
    check(found == len(events) and equal == found,
          f"net452 whole: PName of every listed event ({len(events)}) equal or explained ({equal} of {found})")
    print(f"ok net452 whole: PName of {equal} listed events of every provider")


def test_sample():
    counts, _ = goldens.read(os.path.join(GOLDENS, "net.4.5.2.x64.baseline.txt"))
    recs = etldump(NET452, payload=False)
    samples = [r for r in recs if full_name(r) == SAMPLE]
    idle = [r for r in samples if r["fields"]["ThreadId"] == 0]
    idle_kernel = [r for r in idle if int(r["fields"]["Flags"], 16) & 3]
    te = traceevent_sample_count(recs)
    print(f"  PerfInfo/Sample: ours {len(samples)}; idle thread (ThreadId 0) {len(idle)}, of which DPC/ISR "
          f"{len(idle_kernel)}; others {len(samples) - len(idle)}; TraceEvent's rule keeps {te}")
    check(te == counts[("Windows Kernel", "PerfInfo/Sample")] == 6320,
          f"sample: TraceLog's rule on our records gives the golden's count ({te})")
    check(len(samples) - len(idle) + len(idle_kernel) == te, "sample: the rule is 'not (idle thread and not DPC/ISR)'")
    check(len(samples) == 79528, f"sample: we show every sample record ({len(samples)})")
    check(all(r["tid"] is None and r["header_type"].startswith("PERFINFO") for r in samples),
          "sample: the records carry no thread id in their header (the payload's ThreadId is the thread)")


# ---- the corpus ----------------------------------------------------------------------------------
# Classic records no layout describes, by capture: (full name, count, why).
KNOWN_UNKNOWN = {
    "perfview_net452_x64_merged_compressed.etl": [
        ("Windows Kernel/SysConfig/Opcode(37)", 1, "KernelTraceControl SysConfig type 37: undocumented, 16 bytes; "
                                                  "the golden also shows Opcode(37)")],
    "perfview_SelfDescribingSingleEvent_tl_compressed.etl": [
        ("Windows Kernel/SysConfig/Opcode(37)", 1, "the same KernelTraceControl SysConfig type 37")],
    "pktmon_demikernel_ws2022.etl": [
        ("Windows Kernel/SysConfig/Opcode(37)", 1, "the same KernelTraceControl SysConfig type 37")],
}
KERNEL_CAPTURES = ["etlparser_ShutdownPerfDiagLogger_kernel.etl", "perfview_diaghub_kernel_relogged.etl"]
# Records of the kernel captures that are not classic and have no schema anywhere.
KNOWN_NON_CLASSIC = {
    "perfview_diaghub_kernel_relogged.etl": [
        ("6f669bfa-816a-4204-a824-47c8e6a00474", 1, "a manifest event of a Visual Studio diagnostics hub "
                                                   "provider whose manifest is not in ../shared/manifests")],
}


def utf16_at(payload, off):
    end = off
    while end + 1 < len(payload) and (payload[end] or payload[end + 1]):
        end += 2
    return payload[off:end].decode("utf-16-le")


def metadata_check(recs):
    """The MetaData records are what their tdh.h headers say: each EventInfo's property array fits
    in the payload and its provider name (at ProviderNameOffset) is the name the trace's records of
    that GUID carry; each EventMapInfo's entries fit and its name offset points inside."""
    by_guid = {}
    for r in recs:
        if r["header_type"].startswith("EVENT_HEADER") and r.get("provider_name"):
            by_guid.setdefault(r["provider"], r["provider_name"])
    infos = [r for r in recs if full_name(r) == "KernelTraceControl/MetaData/EventInfo"]
    maps = [r for r in recs if full_name(r) == "KernelTraceControl/MetaData/EventMapInfo"]
    bad, named = [], 0
    for r in infos:
        f, p = r["fields"], r["payload"]
        ok = 112 + 24 * f["PropertyCount"] <= len(p) and f["TopLevelPropertyCount"] <= f["PropertyCount"]
        ok = ok and all(f[k] < len(p) for k in f if k.endswith("Offset"))
        name = utf16_at(p, f["ProviderNameOffset"]) if f["ProviderNameOffset"] else ""
        if f["ProviderGuid"] in by_guid:
            named += 1
            ok = ok and name == by_guid[f["ProviderGuid"]]
        if not ok:
            bad.append((f["ProviderGuid"], name))
    check(len(infos) == 61 and not bad, f"MetaData/EventInfo: {len(infos)} records, headers consistent ({bad[:3]})")
    check(named >= 40, f"MetaData/EventInfo: provider name at ProviderNameOffset equals the trace's own ({named})")
    bad = [r["fields"] for r in maps if not (16 + 16 + 8 * r["fields"]["EntryCount"] <= r["payload_size"]
                                            and 16 <= r["fields"]["NameOffset"] < r["payload_size"] - 16
                                            and int(r["fields"]["Flag"], 16) in (1, 2, 4))]
    check(len(maps) == 24 and not bad, f"MetaData/EventMapInfo: {len(maps)} records, headers consistent ({bad[:3]})")
    print(f"ok MetaData: {len(infos)} EventInfo ({named} with the provider's name checked), {len(maps)} EventMapInfo")


def interface_check(recs):
    """SysConfig type 36 (INFERRED: a MIB_IF_ROW2 per network interface): the layout is right only
    if its parts agree with each other, which a misplaced field would break."""
    rows = [r for r in recs if full_name(r) == "Windows Kernel/SysConfig/Opcode(36)"]
    check(len(rows) == 25, f"pktmon: one SysConfig type 36 record per interface ({len(rows)})")
    media = {6: {0}, 24: {17}, 131: {15}}  # IfType -> NdisMedium: Ethernet 802.3, loopback, tunnel
    for r in rows:
        fl = r["fields"]
        luid = our_int(fl["InterfaceLuid"])
        check(luid >> 48 == fl["Type"], f"pktmon: the LUID's IfType bits equal Type ({fl['Type']}, {fl['Alias']!r})")
        check(fl["MediaType"] in media.get(fl["Type"], set()), f"pktmon: MediaType {fl['MediaType']} fits Type {fl['Type']}")
        check(fl["Alias"] and fl["Description"] and fl["PhysicalAddressLength"] in (0, 6),
              f"pktmon: names and a MAC length read ({fl['Alias']!r}, {fl['PhysicalAddressLength']})")
        mac = fl["PhysicalAddress"]
        check(set(mac[2 * fl["PhysicalAddressLength"]:]) <= {"0"}, "pktmon: nothing after the MAC address")
        check(fl["Mtu"] in (0, 1500) and fl["OperStatus"] in (1, 2, 6) and fl["AdminStatus"] in (1, 2),
              f"pktmon: Mtu {fl['Mtu']}, OperStatus {fl['OperStatus']}, AdminStatus {fl['AdminStatus']}")
        check(fl["Padding1"] == "000000" and fl["Padding2"] == "00000000"
              and fl["TransmitLinkSpeed"] == fl["ReceiveLinkSpeed"] and fl["TransmitLinkSpeed"] < 10 ** 12,
              "pktmon: the padding is zero and the link speeds are plausible (equal ways, under 1 Tbit/s)")
    print(f"ok pktmon: {len(rows)} interfaces, e.g. {rows[0]['fields']['Alias']!r} index "
          f"{rows[0]['fields']['InterfaceIndex']}")


def wpp_logger_check(f, recs):
    """EventTrace 64 and 66 (INFERRED) in a WPP logger's file: the logging binary's PDB and the OS
    build lab, whose build number is the logfile header's."""
    header = next(r for r in recs if full_name(r) == "Windows Kernel/EventTrace")
    rsds = [r for r in recs if full_name(r) == "Windows Kernel/EventTrace/DbgID_RSDS"]
    lab = [r for r in recs if full_name(r) == "Windows Kernel/EventTrace/BuildLab"]
    check(len(rsds) == 1 and rsds[0]["fields"]["PDBFileName"] == "cldflt.pdb" and rsds[0]["fields"]["Age"] >= 1,
          f"{f}: the DbgID_RSDS record names cldflt.pdb")
    check(len(lab) == 1 and re.fullmatch(r"(\d+)\.\d+\.\w+\.\w+\.\d{6}-\d{4}", lab[0]["fields"]["BuildLab"])
          and lab[0]["fields"]["BuildLab"].split(".")[0] == str(header["fields"]["ProviderVersion"]),
          f"{f}: the BuildLab string begins with the header's build number ({lab and lab[0]['fields']})")
    print(f"ok {f}: {rsds[0]['fields']['PDBFileName']} age {rsds[0]['fields']['Age']}, {lab[0]['fields']['BuildLab']}")


def test_corpus():
    files = sorted(f for f in os.listdir(CAPTURES) if f.endswith(".etl"))
    check(len(files) >= 19, f"corpus: the captures ({len(files)})")
    total = 0
    for f in files:
        path = os.path.join(CAPTURES, f)
        recs = etldump(path, payload=(f == "perfview_net452_x64_merged_compressed.etl"))
        classic = [r for r in recs if r["header_type"] in CLASSIC]
        total += len(classic)
        unnamed = [r for r in classic if "event_name" not in r]
        check(not unnamed, f"{f}: every classic record named ({len(unnamed)} not)")
        unknown = collections.Counter(full_name(r) for r in classic if r.get("event_unknown"))
        want = {n: c for n, c, _ in KNOWN_UNKNOWN.get(f, [])}
        check(dict(unknown) == want, f"{f}: the unknown classic records are the listed ones: {dict(unknown)} == {want}")
        for n, c, why in KNOWN_UNKNOWN.get(f, []):
            print(f"  {f}: left unknown: {n} x{c}: {why}")
        inexact = [(full_name(r), r.get("fields_placeholder"), r.get("fields_trailing_hex", "")[:16]) for r in classic
                   if not r.get("event_unknown") and ("fields_placeholder" in r or "fields_trailing_hex" in r
                                                      or "fields" not in r)]
        check(not inexact, f"{f}: every described classic record decodes exactly ({inexact[:3]})")
        if f in KERNEL_CAPTURES:
            check(classic and not unknown, f"{f}: {len(classic)} classic records, none unknown")
            other = collections.Counter(r["provider"] for r in recs if r["header_type"] not in CLASSIC
                                        and "event_name" not in r)
            want = {g: c for g, c, _ in KNOWN_NON_CLASSIC.get(f, [])}
            check(dict(other) == want, f"{f}: the unnamed non-classic records are the listed ones: {dict(other)}")
            for g, c, why in KNOWN_NON_CLASSIC.get(f, []):
                print(f"  {f}: not a kernel record, no schema: provider {g} x{c}: {why}")
            names = collections.Counter(full_name(r) for r in classic)
            print(f"ok {f}: {len(classic)} classic records, {len(names)} names, none unknown")
        if f == "perfview_net452_x64_merged_compressed.etl":
            metadata_check(recs)
        if f == "pktmon_demikernel_ws2022.etl":
            interface_check(recs)
        if f.startswith("wpp_onedrive_cldflt"):
            wpp_logger_check(f, recs)
    check(total > 140000, f"corpus: classic records seen ({total})")
    print(f"ok corpus: {total} classic records in {len(files)} captures")


# ---- syzygy ---------------------------------------------------------------------------------------
VISTA = "syzygy_sawbuck_test_data_32_v0_vistax86.etl"
WIN7 = "syzygy_sawbuck_image_data_32_v2_win7x86.etl"


def images(f, version, base, size, name):
    recs = etldump(os.path.join(CAPTURES, f), payload=False)
    ev = [r for r in recs if r.get("task_name") == "Image" and r.get("provider_name") == "Windows Kernel"]
    check(ev and all(r["version"] == version and r["header_type"] == "FULL_HEADER32" for r in ev),
          f"{f}: image events of class version {version}, 32-bit ({len(ev)})")
    check(all(set(r["fields"]) >= {base, size, name} and "fields_trailing_hex" not in r for r in ev),
          f"{f}: version {version}'s layout ({base}, {size}, {name}) reads every image event exactly")
    out = set()
    for r in ev:
        fl = r["fields"]
        b, s, n = our_int(fl[base]), our_int(fl[size]), fl[name]
        plausible = (b and b % 0x10000 == 0 and b < 1 << 32 and s and s % 0x1000 == 0 and s < 0x10000000
                     and re.fullmatch(r"[A-Z]:\\.*\.(exe|dll|DLL)", n))
        check(plausible, f"{f}: plausible image: base {fl[base]} (64K-aligned), size {fl[size]} (pages), name {n!r}")
        out.add((r["opcode"], b, s, n))
    return ev, out


def test_syzygy():
    v_ev, vista = images(VISTA, 0, "BaseAddress", "ModuleSize", "ImageFileName")
    w_ev, win7 = images(WIN7, 2, "ImageBase", "ImageSize", "FileName")
    print(f"  Vista (version 0): {len(v_ev)} image events, {len(vista)} distinct; Windows 7 (version 2): "
          f"{len(w_ev)}, {len(win7)} distinct; in both: {len(vista & win7)}")
    check(len(vista) >= 26 and vista == win7, "syzygy: both captures logged the same images (type, base, size, name)")
    check(all(r["fields"]["ProcessId"] == r["pid"] for r in w_ev), "syzygy Windows 7: ProcessId is the record's process")
    # The Windows 7 capture's writer filled ImageCheckSum and TimeDateStamp the other way round
    # (kernel-classes.man, Image_Load): ImageCheckSum holds link times, TimeDateStamp checksums
    # (a PE checksum is about the file's size) or syzygy's 0xCAFEBABE for its own test program.
    capture_day = datetime.datetime(2011, 5, 2)
    link_times = [build_time(r["fields"]["ImageCheckSum"]) for r in w_ev]
    check(all(datetime.datetime(2005, 1, 1) < t < capture_day for t in link_times),
          f"syzygy Windows 7: ImageCheckSum values are link times before the capture ({min(link_times)}..{max(link_times)})")
    sums = [(r["fields"]["TimeDateStamp"], our_int(r["fields"]["ImageSize"])) for r in w_ev]
    check(all(c == 0xCAFEBABE or 0.8 * s < c < 1.5 * s for c, s in sums),
          "syzygy Windows 7: TimeDateStamp values are checksums close to the image size")


TESTS = {"golden": test_golden, "whole": test_whole, "sample": test_sample, "corpus": test_corpus,
         "syzygy": test_syzygy}
if WHICH not in TESTS:
    print(f"unknown test {WHICH!r}; one of {sorted(TESTS)}")
    sys.exit(2)
TESTS[WHICH]()
finish()
