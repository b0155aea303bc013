#!/usr/bin/env python3
"""test_write_plugin.py - the .etl writer of the reader plugin (plugin/etl_wiretap_dump.c)
through real editcap, tshark and mergecap, run as test_plugin.py runs the tools (an unprivileged
user, plugins and captures copied into a readable temporary folder).  Same options as
test_plugin.py (--etldump is the oracle); the tests:

  writeall     `editcap -F etl` of every capture: the written file opens with the same number of
               frames, reads with zero damage (etldump --summary), and every record but the
               logfile header decodes (etldump JSON) exactly as in the original, "position" and
               "stack_of" left out (a record's position names its place in its file);
  writesubset  editcap frame ranges (every 7th frame), a time slice (-A/-B) and `tshark -w -F etl`
               of a display-filtered subset: each kept frame's record decodes as in the original;
               the output reads with zero damage;
  writemerge   `mergecap -F etl` of a trace with itself writes it once; of traces of different
               clocks and pointer sizes (QPC 64-bit kernel, 32-bit system-time, a 32-bit compressed
               one): frames in time order, every record decoded as in its own file - but for its
               raw timestamp (converted to the merged file's system-time clock, with the
               StackWalk EventTimeStamp that names an event) - process names and stack links
               included; and of a kernel trace with a copy of it whose processes are named
               otherwise (the same pids at the same times in two traces): every record of each
               keeps its own file's process name (pids kept apart by logger id, procs.h);
  mergepcapng  a pcapng of the frames of three traces (each saved with `editcap -T user0`, then
               mergecap): the two twin traces above and an EventSource trace whose schemas it
               carries; read with `tshark -2`, every frame shows the event name, process name
               and decoded values its own trace gives it (each trace prescanned for its own
               schemas and processes, etl_prescan.h);
  writepcapng  pcapng too: `editcap -F pcapng` of a trace, and of a subset written as .etl
               first (every 7th frame: the .etl gets the context records), with the .etl then
               removed, so nothing leads back to a trace: read with `tshark -2`, every frame of
               the whole trace and every kept frame of the subset shows the event name, process
               name and values it has in the original (the context travels as frames);
  mergeschemas (issue 13) two pairs of traces whose carried schemas define one key differently
               (an EventSource manifest, pktmon's MetaData TRACE_EVENT_INFO: each pair a trace
               and a copy with one field renamed): merged by `mergecap -F etl`, an every-3rd
               subset of that, and as a merged pcapng read by `tshark -2`, every record and
               frame decodes as in its own file (its own field names), record by record;
  dospaths     (the paths written traces keep, issue 14) net452's NT paths in DOS form from its own
               volume mappings: tshark's etl.dos_path values, frame by frame, are etldump's
               "dos_paths" values, record by record (7194 records: Image, FileIo, Kernel-File
               events), and C:\\Windows\\System32\\ntdll.dll is among them.
"""
import collections
import importlib.util
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("test_plugin", os.path.join(HERE, "test_plugin.py"))
tp = importlib.util.module_from_spec(spec)
sys.modules["test_plugin"] = tp
spec.loader.exec_module(tp)

SKIP_KEYS = ("position", "stack_of")
# Small and mid-size captures for the subset checks (the large one is in writeall).
SUBSET_CAPTURES = ["tx_HTTP_Server_manifest.etl", "perfview_gcevents_clr.etl", "etlparser_ShutdownPerfDiagLogger_kernel.etl",
                   "perfview_primitive-types_tracelogging.etl", "tx_BondEtwSample_eventsource.etl"]


def out_dir(env):
    d = os.path.join(env.root, "written")
    if not os.path.isdir(d):
        os.makedirs(d)
        os.chmod(d, 0o777)
    return d


def records(env, path):
    r = subprocess.run([env.args.etldump, path], capture_output=True, text=True)
    return [json.loads(line) for line in r.stdout.splitlines()]


def key(rec):
    return json.dumps({k: v for k, v in rec.items() if k not in SKIP_KEYS}, sort_keys=True)


def check_clean(env, path):
    r = subprocess.run([env.args.etldump, "--summary", path], capture_output=True, text=True)
    tp.check(r.returncode == 0, f"{path}: etldump --summary exit {r.returncode}: {r.stderr[-300:]}")
    s = json.loads(r.stdout)
    tp.check(s["skipped"]["problems"] == 0 and s["records_damaged"] == 0, f"{path}: damage {s['skipped']}")
    return s


def frame_count(env, path):
    _, out, _ = env.run([env.args.tshark, "-r", path, "-T", "fields", "-e", "frame.number"])
    return len(out.split())


def test_writeall(env):
    for name in sorted(env.expected):
        src = env.capture(name)
        if os.path.getsize(src) == 0:
            continue
        dst = os.path.join(out_dir(env), name)
        env.run(["editcap", "-F", "etl", src, dst])
        tp.check(frame_count(env, dst) == frame_count(env, src), f"{name}: frame counts differ")
        check_clean(env, dst)
        a, b = records(env, src), records(env, dst)
        tp.check(len(a) == len(b), f"{name}: {len(b)} records written, {len(a)} in the original")
        for i in range(1, len(a)):
            tp.check(key(a[i]) == key(b[i]), f"{name}: record {i} differs:\n{key(a[i])[:300]}\n{key(b[i])[:300]}")
        os.remove(dst)


def subset_check(env, name, src, dst, kept_numbers):
    check_clean(env, dst)
    a = records(env, src)
    have = set(key(r) for r in records(env, dst))
    for n in kept_numbers:  # frame numbers, 1-based (the reader's frames are the records in order)
        if n == 1:
            continue  # the logfile header: BuffersWritten and the compressed-mode bit change
        tp.check(key(a[n - 1]) in have, f"{name}: frame {n} is not written as it decoded:\n{key(a[n - 1])[:300]}")


def test_writesubset(env):
    for name in SUBSET_CAPTURES:
        src = env.capture(name)
        total = frame_count(env, src)
        every7 = list(range(1, total + 1, 7))
        dst = os.path.join(out_dir(env), "every7-" + name)
        # editcap -r keeps the frames named; ranges are passed as single numbers
        env.run(["editcap", "-F", "etl", "-r", src, dst] + [str(n) for n in every7[:2000]])
        subset_check(env, name, src, dst, every7[:2000])
        # a time slice: the middle third of the frames by time
        _, out, _ = env.run([env.args.tshark, "-r", src, "-T", "fields", "-e", "frame.time_epoch"])
        times = [float(t) for t in out.split()]
        if len(times) >= 3:
            lo, hi = sorted(times)[len(times) // 3], sorted(times)[2 * len(times) // 3]
            dst2 = os.path.join(out_dir(env), "slice-" + name)
            env.run(["editcap", "-F", "etl", "-A", "%.7f" % lo, "-B", "%.7f" % hi, src, dst2])
            # frames at the slice edges are left out of the check (the epoch text rounds)
            kept = [i + 1 for i, t in enumerate(times) if lo + 1e-5 < t < hi - 1e-5]
            subset_check(env, name, src, dst2, kept)
        # tshark -w of a filtered subset
        dst3 = os.path.join(out_dir(env), "tshark-" + name)
        env.run([env.args.tshark, "-r", src, "-Y", "frame.number <= 20", "-F", "etl", "-w", dst3])
        subset_check(env, name, src, dst3, list(range(1, min(total, 20) + 1)))


MERGE_SKIP = ("position", "stack_of", "timestamp_raw", "payload_hex")


def merge_key(rec):
    r = {k: v for k, v in rec.items() if k not in MERGE_SKIP}
    if isinstance(r.get("fields"), dict):
        r["fields"] = {k: v for k, v in r["fields"].items() if k != "EventTimeStamp"}
    return json.dumps(r, sort_keys=True)


def test_writemerge(env):
    a = env.capture("perfview_gcevents_clr.etl")
    same = os.path.join(out_dir(env), "same.etl")
    env.run(["mergecap", "-F", "etl", "-w", same, a, a])
    check_clean(env, same)
    tp.check(len(records(env, same)) == len(records(env, a)), "merging a trace with itself writes it once")
    inputs = [env.capture(n) for n in ("etlparser_ShutdownPerfDiagLogger_kernel.etl",
                                       "syzygy_sawbuck_image_data_32_v2_win7x86.etl",
                                       "perfview_smallEtlFile_32bit_compressed.etl", "tx_HTTP_Server_manifest.etl")]
    merged = os.path.join(out_dir(env), "merged.etl")
    env.run(["mergecap", "-F", "etl", "-w", merged] + inputs)
    s = check_clean(env, merged)
    tp.check(s["logfile"]["clock_type"] == "SystemTime", "the merged file's clock is system time")
    m = records(env, merged)
    times = [r["timestamp"] for r in m if r["timestamp"]]
    tp.check(times == sorted(times), "merged records are in time order")
    have = set(merge_key(r) for r in m)
    total = 0
    for path in inputs:
        own = records(env, path)
        total += len(own)
        for r in own[1:]:
            tp.check(merge_key(r) in have, f"{os.path.basename(path)}: a record does not decode as in its own file:\n"
                     f"{merge_key(r)[:300]}")
    tp.check(len(m) == total, f"{len(m)} records merged, {total} in the inputs")

    # The same pids alive at the same times in two traces: a kernel trace and a copy of it whose
    # svchost.exe processes are named svchosX.exe (the image names in its Process events).
    kern, twin = twin_trace(env)
    merged2 = os.path.join(out_dir(env), "merged-twins.etl")
    env.run(["mergecap", "-F", "etl", "-w", merged2, kern, twin])
    check_clean(env, merged2)
    got = collections.Counter(merge_key(r) for r in records(env, merged2))
    want = collections.Counter()
    names = collections.Counter()
    for path in (kern, twin):
        own = records(env, path)
        want.update(merge_key(r) for r in own[1:])
        names.update(r.get("process_name") for r in own)
    for k, n in want.items():
        tp.check(got[k] >= n, f"merged twins: a record decodes {got[k]} times as in its own file, {n} wanted:\n{k[:300]}")
    tp.check(names["svchosX.exe"] > 1000 and names["svchost.exe"] == names["svchosX.exe"],
             f"the twins name their processes apart: {names['svchost.exe']} svchost.exe, {names['svchosX.exe']} svchosX.exe")


def twin_trace(env):
    """A kernel trace and a copy of it whose svchost.exe processes are named svchosX.exe."""
    kern = env.capture("etlparser_ShutdownPerfDiagLogger_kernel.etl")
    twin = os.path.join(out_dir(env), "twin-names.etl")
    if not os.path.exists(twin):
        with open(kern, "rb") as f:
            data = f.read()
        with open(twin, "wb") as f:
            f.write(data.replace(b"svchost.exe\x00", b"svchosX.exe\x00"))
        os.chmod(twin, 0o644)
    return kern, twin


FRAME_FIELDS = ["etl.event_name", "etl.process_name", "etl.process_pid", "etl.kv"]


def frame_rows(env, path, extra=()):
    """One row per frame (its FRAME_FIELDS).  Wireshark 4.6 writes a newline inside a value (an
    EventSource manifest's text in etl.kv) as it is, 4.0 escapes it: each row is led by its
    frame number, so a line that does not start the next frame continues the row before."""
    _, out, _ = env.run([env.args.tshark, "-2", "-r", path, *extra, "-T", "fields", "-E", "occurrence=a",
                         "-e", "frame.number"] + [a for f in FRAME_FIELDS for a in ("-e", f)])
    rows = []
    for line in out.rstrip("\n").split("\n"):
        number, tab, rest = line.partition("\t")
        if tab and number == str(len(rows) + 1):
            rows.append(rest)
        elif rows:
            rows[-1] += "\\n" + line
    return rows


def merged_pcapng(env, inputs, name):
    """Each trace's frames saved as pcapng (`editcap -T user0`), the pcapngs merged by mergecap
    into NAME, read back with `tshark -2`: (the traces' frame rows, the merged file's) counted."""
    parts = []
    want = collections.Counter()
    for i, path in enumerate(inputs):
        part = os.path.join(out_dir(env), f"{name}-part{i}.pcapng")
        env.run(["editcap", "-F", "pcapng", "-T", "user0", path, part])
        parts.append(part)
        want.update(frame_rows(env, path))
    merged = os.path.join(out_dir(env), name + ".pcapng")
    env.run(["mergecap", "-F", "pcapng", "-w", merged] + parts)
    return want, collections.Counter(frame_rows(env, merged, ("-o", tp.USER_DLT_PREF)))


def test_mergepcapng(env):
    kern, twin = twin_trace(env)
    want, got = merged_pcapng(env, [kern, twin, env.capture("tx_BondEtwSample_eventsource.etl")], "merged-traces")
    tp.check(sum(got.values()) == sum(want.values()),
             f"{sum(got.values())} frames merged, {sum(want.values())} in the traces")
    missing = want - got
    tp.check(not missing, f"{sum(missing.values())} frames of the merged pcapng do not decode as in their own "
             f"trace, e.g.\n{next(iter(missing), '')[:300]}")
    bond = [r for r in got if r.startswith("WriteBinaryPayload\t")]
    tp.check(len(bond) > 0, "the EventSource trace's events are named by its own manifest")


PCAPNG_CAPTURES = ["etlparser_ShutdownPerfDiagLogger_kernel.etl", "tx_BondEtwSample_eventsource.etl",
                   "perfview_gcevents_clr.etl", "perfview_primitive-types_tracelogging.etl",
                   "perfview_smallEtlFile_32bit_compressed.etl"]


def test_writepcapng(env):
    for name in PCAPNG_CAPTURES:
        src = env.capture(name)
        orig = frame_rows(env, src)
        # the whole trace: a copy saved as pcapng, the copy removed
        copy = os.path.join(out_dir(env), "copy-" + name)
        shutil.copyfile(src, copy)
        os.chmod(copy, 0o644)
        whole = os.path.join(out_dir(env), name + ".pcapng")
        env.run(["editcap", "-F", "pcapng", copy, whole])
        os.remove(copy)
        got = frame_rows(env, whole)
        tp.check(len(got) == len(orig), f"{name}: {len(got)} frames in the pcapng, {len(orig)} in the trace")
        for i in range(1, len(orig)):
            tp.check(got[i] == orig[i], f"{name}: pcapng frame {i + 1} decodes otherwise:\n{orig[i][:300]}\n{got[i][:300]}")
        # a subset: every 7th frame as .etl (with its context), that as pcapng, the .etl removed
        kept = list(range(1, len(orig) + 1, 7))[:2000]
        sub = os.path.join(out_dir(env), "sub-" + name)
        env.run(["editcap", "-F", "etl", "-r", src, sub] + [str(n) for n in kept])
        subp = os.path.join(out_dir(env), "sub-" + name + ".pcapng")
        env.run(["editcap", "-F", "pcapng", sub, subp])
        os.remove(sub)
        have = collections.Counter(frame_rows(env, subp))
        for n in kept[1:]:
            tp.check(have[orig[n - 1]] > 0, f"{name}: kept frame {n} decodes otherwise in the subset pcapng:\n"
                     f"{orig[n - 1][:300]}")
        print(f"  ok {name}: {len(orig)} frames as pcapng, {len(kept)} kept in a subset pcapng")


def test_dospaths(env):
    src = env.capture("perfview_net452_x64_merged_compressed.etl")
    want = []
    for r in records(env, src):
        d = r.get("dos_paths")
        want.append(",".join(d.values()) if d else "")
    _, out, _ = env.run([env.args.tshark, "-r", src, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,",
                         "-e", "etl.dos_path"])
    got = out.split("\n")[:len(want)]
    tp.check(len(got) == len(want), f"{len(got)} frames, {len(want)} records")
    n = sum(1 for w in want if w)
    tp.check(n > 7000, f"only {n} records have DOS paths")
    for i, (w, g) in enumerate(zip(want, got)):
        tp.check(w == g, f"frame {i + 1}: etl.dos_path {g!r}, etldump dos_paths {w!r}")
    tp.check(any("C:\\Windows\\System32\\ntdll.dll" in w for w in want), "ntdll.dll's DOS path is shown")
    print(f"  ok {n} records with DOS paths, the same in tshark and etldump")


def schema_twins(env):
    """Two pairs of traces whose carried schemas define one key differently: an EventSource
    trace and a copy whose manifest names its field "source" "sourcX" (stream manifests); the
    pktmon trace (written uncompressed by etldump --write) and a copy whose TRACE_EVENT_INFO
    names the packet event's PktGroupId PktGroupIX (MetaData records)."""
    pairs = [(env.capture("tx_BondEtwSample_eventsource.etl"), b'name="source"', b'name="sourcX"'),
             (os.path.join(out_dir(env), "pktmon-plain.etl"), "PktGroupId".encode("utf-16-le"),
              "PktGroupIX".encode("utf-16-le"))]
    if not os.path.exists(pairs[1][0]):
        r = subprocess.run([env.args.etldump, "--write", pairs[1][0], env.capture("pktmon_demikernel_ws2022.etl")],
                           capture_output=True, text=True)
        tp.check(r.returncode == 0, f"etldump --write of the pktmon trace: {r.stderr[-300:]}")
        os.chmod(pairs[1][0], 0o644)
    out = []
    for src, old, new in pairs:
        twin = os.path.join(out_dir(env), "twin-schema-" + os.path.basename(src))
        with open(src, "rb") as f:
            data = f.read()
        tp.check(data.count(old) > 0, f"{src}: {old!r} not found")
        with open(twin, "wb") as f:
            f.write(data.replace(old, new))
        os.chmod(twin, 0o644)
        out += [src, twin]
    return out


def test_mergeschemas(env):
    inputs = schema_twins(env)
    want = collections.Counter()
    for path in inputs:
        want.update(merge_key(r) for r in records(env, path)[1:])
    fields = collections.Counter()
    for k in want:
        f = json.loads(k).get("fields")
        if isinstance(f, dict):
            fields.update(n for n in f if n in ("source", "sourcX", "PktGroupId", "PktGroupIX"))
    tp.check(fields["sourcX"] > 0 and fields["sourcX"] == fields["source"] and fields["PktGroupIX"] >= 100 and
             fields["PktGroupIX"] == fields["PktGroupId"], f"the twins decode apart in their own files: {fields}")
    # mergecap -F etl: every record of each input decodes as in its own file
    merged = os.path.join(out_dir(env), "merged-schemas.etl")
    env.run(["mergecap", "-F", "etl", "-w", merged] + inputs)
    check_clean(env, merged)
    got = collections.Counter(merge_key(r) for r in records(env, merged)[1:])
    missing = want - got
    # (the other inputs' logfile header records are ordinary records of the merged file)
    tp.check(not missing and sum(got.values()) == sum(want.values()) + len(inputs) - 1,
             f"merged .etl: {sum(missing.values())} of {sum(want.values())} records do not decode as in their own "
             f"file ({sum(got.values())} merged), e.g.\n{next(iter(missing), '')[:400]}")
    # a subset of the merged file keeps its inputs apart too (relogging keeps the logger ids)
    sub = os.path.join(out_dir(env), "merged-schemas-every3.etl")
    total = frame_count(env, merged)
    env.run(["editcap", "-F", "etl", "-r", merged, sub] + [str(n) for n in range(1, total + 1, 3)])
    check_clean(env, sub)
    mrecs = records(env, merged)
    have = collections.Counter(merge_key(r) for r in records(env, sub))
    for n in range(4, total + 1, 3):
        k = merge_key(mrecs[n - 1])
        tp.check(have[k] > 0, f"every-3rd subset of the merged file: frame {n} decodes otherwise:\n{k[:400]}")
    # pcapng: each trace's frames saved as pcapng, merged; read back with tshark -2
    want_rows, got_rows = merged_pcapng(env, inputs, "merged-schemas")
    missing = want_rows - got_rows
    tp.check(not missing and sum(got_rows.values()) == sum(want_rows.values()),
             f"merged pcapng: {sum(missing.values())} of {sum(want_rows.values())} frames do not decode as in "
             f"their own trace, e.g.\n{next(iter(missing), '')[:400]}")
    renamed = sum(n for r, n in got_rows.items() if "sourcX=" in r or "PktGroupIX=" in r)
    tp.check(renamed > 100, f"only {renamed} frames of the twins show their own field names")
    print(f"  ok {sum(want.values())} records merged as .etl, {sum(want_rows.values())} frames as pcapng, "
          f"each decoded with its own trace's schemas ({fields})")


tp.TESTS.update({"mergeschemas": test_mergeschemas, "writeall": test_writeall, "writesubset": test_writesubset, "writemerge": test_writemerge,
                 "mergepcapng": test_mergepcapng, "writepcapng": test_writepcapng,
                 "dospaths": test_dospaths})

if __name__ == "__main__":
    sys.exit(tp.main())
