#!/usr/bin/env python3
"""End-to-end tests of the views around the decode (issue 14): expert notes, Capture File
Properties, Source/Destination and conversations, Statistics > ETW.

Same harness, arguments and sandbox as test_plugin.py (tools run as the unprivileged user
etlsharktest, fresh HOME per run); these tests are kept in their own file so that the views
can grow without touching the decode tests.

    test_views.py --reader ... --dissector ... --captures ... --etldump ... TEST [TEST ...]
"""

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_plugin as tp  # noqa: E402
from test_plugin import check, Failure, SKIP, MF_ENV  # noqa: E402,F401

NET452 = "perfview_net452_x64_merged_compressed.etl"


def _pre(env, name, oracle=False):
    if name not in env.expected:
        print(f"SKIP: {name} is not in the corpus")
        return False
    if oracle and (not env.args.etldump or not os.path.exists(env.args.etldump)):
        print("SKIP: --etldump not given")
        return False
    return True


def test_views_expert(env):
    """The "Too many distinct fields" note is only for a field the registry refused: none on
    net452 with the manifests, where every field gets its typed field (before: 179,198 notes,
    one per frame dissected without a visible tree by the expert tap).  The refused case itself
    (a full field store: one note) is checked by test_plugin.py's tlstore."""
    if not _pre(env, NET452):
        return SKIP
    mf = tp._manifests(env)
    extra = {MF_ENV: mf} if mf else None
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-q", "-z", "expert,note"],
                        extra_env=extra)
    check("Too many distinct fields" not in out,
          f"spurious untyped-field notes: {[l for l in out.splitlines() if 'distinct' in l]}")
    m = re.search(r"^Notes \((\d+)\)", out, re.M)
    check(m is not None, f"no Notes section in -z expert,note output: {out[:400]!r}")
    # the same with a tree (-V path): the typed items are there, still no note
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-c", "2000", "-T", "fields",
                         "-e", "etl.expert.field_untyped"], extra_env=extra)
    check(not out.strip().replace("\n", ""), f"untyped-field expert item on visible trees: {out[:200]!r}")
    print(f"  ok {NET452}: {m.group(1)} notes, none about untyped fields")


def _etldump_summary(env, name):
    import json
    import subprocess
    p = subprocess.run([env.args.etldump, "--summary", env.capture(name)], capture_output=True,
                       timeout=600)
    return json.loads(p.stdout.decode("utf-8", "replace"))


def test_views_capinfo(env):
    """Capture File Properties / capinfos: the file's real size, the OS, hardware and logger
    from the logfile header (etldump --summary is the oracle), the time zone and losses in the
    comment, the losses as the interface's drops (one statistics block); and the frames' data
    offsets are file offsets (a second pass, which re-reads every frame by its offset, gives the
    same frames)."""
    if not _pre(env, NET452, oracle=True):
        return SKIP
    lf = _etldump_summary(env, NET452)["logfile"]
    _, out, _ = env.run([env.args.capinfos, env.capture(NET452)])
    info = {}
    for line in out.splitlines():
        k, sep, v = line.partition(":")
        if sep and not line.startswith(" "):
            info[k.strip()] = v.strip()
    size = os.path.getsize(env.capture(NET452))
    check(info.get("File size") == f"{size // 1000} kB", f"File size {info.get('File size')!r}")
    major, minor = lf["os_version"].split(".")[:2]
    check(info.get("Capture oper-sys") == f"Windows {major}.{minor} build {lf['os_build']}",
          f"oper-sys {info.get('Capture oper-sys')!r}, header says {lf['os_version']} "
          f"build {lf['os_build']}")
    check(info.get("Capture application") == f'ETW session "{lf["logger_name"]}"',
          f"application {info.get('Capture application')!r}")
    check(info.get("Capture hardware", "").startswith(f"{lf['processors']} processors, "
                                                      f"{lf['cpu_speed_mhz']} MHz"),
          f"hardware {info.get('Capture hardware')!r}")
    bias = lf["time_zone_bias_minutes"]
    tz = f"UTC{'-' if bias > 0 else '+'}{abs(bias) // 60:02d}:{abs(bias) % 60:02d}"
    comment = info.get("Capture comment", "")
    check(f"Time zone: {tz}" in comment and
          f"events lost: {lf['events_lost']}, buffers lost: {lf['buffers_lost']}" in comment,
          f"comment {comment!r}")
    check("Number of stat entries = 1" in out, f"no statistics block: {out[-600:]!r}")
    print(f"  ok {NET452}: {info['File size']}, {info['Capture oper-sys']}, "
          f"{info['Capture application']}, {info['Capture hardware']}; {comment}")

    # data offsets: within the file (a few may lie past it, see etls_frame_offset), and a
    # two-pass run (every frame re-read by its offset) prints what one pass prints
    fields = ["-T", "fields", "-e", "frame.number", "-e", "etl.provider", "-e", "etl.timestamp",
              "-e", "etl.record_offset"]
    _, one, _ = env.run([env.args.tshark, "-r", env.capture(NET452)] + fields)
    _, two, _ = env.run([env.args.tshark, "-2", "-r", env.capture(NET452)] + fields)
    check(one == two and one.count("\n") == env.expected[NET452]["records"],
          f"two-pass output differs from one pass ({one.count(chr(10))} / {two.count(chr(10))} lines)")
    print(f"  ok {NET452}: a two-pass run re-reads all {one.count(chr(10))} frames by offset")


NO_PROCESS = "Kernel (no process)"
NO_ID = 4294967295


def _oracle_labels(r):
    """The Source and Destination etldump's record gives: its process ("image.exe (pid)",
    "pid N", or the kernel's own), its provider (name, else GUID)."""
    name = r.get("process_name")
    pid = r.get("process_id", r.get("pid"))
    if pid == NO_ID:
        pid = None
    if pid is None:
        proc = NO_PROCESS
    elif name:
        proc = f"{name} ({pid})"
    else:
        proc = f"pid {pid}"
    return proc, r.get("provider_name", r.get("provider", ""))


def _oracle(env, name):
    mf = tp._manifests(env)
    return tp._etldump(env, name, mf), ({MF_ENV: mf} if mf else None)


def _table_rows(text, numbers):
    """Rows of a tshark -z conv/endpoints table: (label[, label], numbers...)."""
    rows = []
    pat = re.compile(r"^(.*?)\s+" + r"\s+".join([r"(\d+)"] * numbers) + r"\s*$")
    for line in text.splitlines():
        # Wireshark 4.6 writes byte columns with a unit ("1386 kB", "0 bytes"): the numbers
        # that matter here are the frame counts, so a unit is dropped with its number kept
        line = re.sub(r"(\d+) (?:bytes|kB|MB|GB|TB)\b", r"\1", line)
        m = pat.match(line)
        if m:
            rows.append((m.group(1).strip(),) + tuple(int(g) for g in m.groups()[1:]))
    return rows


def test_views_conv(env):
    """Source/Destination and Conversations/Endpoints: the process and the provider of every
    record, through the dissector's own address type.  On net452 with the manifests, tshark -z
    endpoints,etl lists every process (PerfView.exe, Test.x64.exe, svchost.exe, ...) and
    provider with the event count etldump gives, -z conv,etl every process/provider pair with
    etldump's counts, and the Source/Destination columns read the same labels."""
    if not _pre(env, NET452, oracle=True):
        return SKIP
    recs, extra = _oracle(env, NET452)
    procs, provs, pairs = collections.Counter(), collections.Counter(), collections.Counter()
    for r in recs:
        proc, prov = _oracle_labels(r)
        procs[proc] += 1
        provs[prov] += 1
        pairs[(proc, prov)] += 1
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-q", "-z", "endpoints,etl"],
                        extra_env=extra)
    ep = {row[0]: row[1] for row in _table_rows(out, 6)}
    for want in ("PerfView.exe", "Test.x64.exe", "svchost.exe"):
        check(any(k.startswith(want + " (") for k in ep), f"no endpoint {want}: {sorted(ep)[:20]}")
    wrong = {k: (v, ep.get(k)) for k, v in list(procs.items()) + list(provs.items()) if ep.get(k) != v}
    check(not wrong, f"endpoint counts differ from etldump's (etldump, tshark): {dict(list(wrong.items())[:10])}")
    check(len(ep) == len(procs) + len(provs), f"{len(ep)} endpoints, etldump has "
                                              f"{len(procs)} processes + {len(provs)} providers")
    # conversations: "A <-> B  frames bytes frames bytes frames bytes rel duration"
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-q", "-z", "conv,etl"],
                        extra_env=extra)
    conv = {}
    for line in out.splitlines():
        m = re.match(r"^(.*?)\s+<->\s+(.*?)\s+(\d+)\s+\S+(?:\s+\S+)?\s+(\d+)\s+", line)
        if m:
            conv[(m.group(1).strip(), m.group(2).strip())] = None
    check(len(conv) == len(pairs), f"{len(conv)} conversations, etldump has {len(pairs)} pairs")
    check(set(conv) <= set(pairs) | {(b, a) for a, b in pairs},
          f"conversations not in etldump: {sorted(set(conv) - set(pairs))[:5]}")
    # the columns: Source and Destination of the first frames
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-c", "300"], extra_env=extra)
    cols = []
    for line in out.splitlines():
        m = re.match(r"^\s*\d+\s+\S+\s+(.*?) \u2192 (.*?) ETW \d+ ", line)
        cols.append((m.group(1).strip(), m.group(2).strip()) if m else line)
    want = [_oracle_labels(r) for r in recs[:300]]
    check(cols == want, f"Source/Destination columns differ: first {next(((a, b) for a, b in zip(cols, want) if a != b), None)}")
    print(f"  ok {NET452}: {len(procs)} processes, {len(provs)} providers, {len(pairs)} "
          f"conversations with etldump's counts; e.g. "
          f"{', '.join(f'{k} {v}' for k, v in procs.most_common(4))}")


def _stats_tree(text, title):
    """{(depth, path...): count} of one -z NAME,tree table."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == title + ":")
    except StopIteration:
        raise Failure(f"no stats tree {title!r} in: {text[:300]!r}")
    header = lines[start + 1]
    col = header.index("Count")
    counts, path = {}, []
    for l in lines[start + 3:]:
        if l.startswith("---") or l.startswith("==="):
            break
        if not l.strip():
            continue
        label = l[:col].rstrip()
        depth = len(label) - len(label.lstrip(" "))
        path = path[:depth] + [label.strip()]
        counts[tuple(path)] = int(l[col:].split()[0])
    return counts


def test_views_stats(env):
    """Statistics > ETW (tshark -z etl_*,tree) on net452 with the manifests count what a sort |
    uniq -c over etldump's records counts: events by provider > event (named events; the
    others are "Event N"/"Opcode N"), by process > thread, by level, opcode and keyword; no
    damage; record sizes add up to the records."""
    if not _pre(env, NET452, oracle=True):
        return SKIP
    recs, extra = _oracle(env, NET452)
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-q",
                         "-z", "etl_events,tree", "-z", "etl_processes,tree", "-z", "etl_kinds,tree",
                         "-z", "etl_damage,tree", "-z", "etl_sizes,tree"], extra_env=extra)
    n = len(recs)
    ev = _stats_tree(out, "ETW/Events by provider and event")
    pr = _stats_tree(out, "ETW/Events by process and thread")
    kinds = _stats_tree(out, "ETW/Events by level, opcode and keyword")
    dmg = _stats_tree(out, "ETW/Lost events and damage")
    sizes = _stats_tree(out, "ETW/Record sizes")
    top = "Events by provider and event"
    check(ev.get((top,)) == n, f"provider tree total {ev.get((top,))}, etldump {n}")
    by_prov, by_event, by_proc, by_thread = (collections.Counter() for _ in range(4))
    levels, opcodes, keywords = (collections.Counter() for _ in range(3))
    for r in recs:
        proc, prov = _oracle_labels(r)
        by_prov[prov] += 1
        if "event_name" in r:
            by_event[(prov, r["event_name"])] += 1
        by_proc[proc] += 1
        tid = r.get("tid")
        by_thread[(proc, f"Thread {tid}" if tid is not None and tid != NO_ID else "No thread")] += 1
        levels[r["level"]] += 1
        opcodes[r["opcode"]] += 1
        keywords[int(r["keyword"], 16)] += 1
    got = {k[1]: v for k, v in ev.items() if len(k) == 2}
    check(got == dict(by_prov), f"by provider: {set(got.items()) ^ set(by_prov.items())}")
    got = {(k[1], k[2]): v for k, v in ev.items() if len(k) == 3}
    wrong = {k: (v, got.get(k)) for k, v in by_event.items() if got.get(k) != v}
    check(not wrong, f"by provider > event (etldump, tshark): {dict(list(wrong.items())[:8])}")
    top = "Events by process and thread"
    got = {k[1]: v for k, v in pr.items() if len(k) == 2}
    check(got == dict(by_proc), f"by process: {set(got.items()) ^ set(by_proc.items())}")
    got = {(k[1], k[2]): v for k, v in pr.items() if len(k) == 3}
    check(got == dict(by_thread), f"by thread: {list(set(got.items()) ^ set(by_thread.items()))[:8]}")
    got = {int(k[1].split()[0]): v for k, v in kinds.items() if len(k) == 2 and k[0] == "Level"}
    check(got == dict(levels), f"levels {got} / {dict(levels)}")
    got = {int(k[1]): v for k, v in kinds.items() if len(k) == 2 and k[0] == "Opcode"}
    check(got == dict(opcodes), f"opcodes differ: {set(got.items()) ^ set(opcodes.items())}")
    got = {int(k[1], 16): v for k, v in kinds.items() if len(k) == 2 and k[0] == "Keyword"}
    check(got == dict(keywords), f"keywords differ: {set(got.items()) ^ set(keywords.items())}")
    check(dmg.get(("Records",)) == n and dmg.get(("Records", "Records with damage")) == 0,
          f"damage tree {dmg}")
    check(sizes.get(("Record size (bytes)",)) == n and
          sum(v for k, v in sizes.items() if len(k) == 2) == n, f"sizes tree {sizes}")
    print(f"  ok {NET452}: {len(by_prov)} providers, {len(by_event)} named events, "
          f"{len(by_proc)} processes, {len(by_thread)} threads, {len(levels)} levels, "
          f"{len(opcodes)} opcodes, {len(keywords)} keywords: all etldump's counts")


PRIM = "perfview_primitive-types_tracelogging.etl"
GUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def test_views_guid(env):
    """One GUID form everywhere: etl.kv, etl.field.value and the Info column write a GUID
    field as etldump's JSON does (lower case, no braces), so etl.kv == "guid_type=<JSON's
    text>" selects the records etldump gives that value; and Info shortens with ASCII "..."
    (no U+2026, which Wireshark 4.0's CSV export mangles)."""
    if not _pre(env, PRIM, oracle=True):
        return SKIP
    recs = tp._etldump(env, PRIM)
    guids = [r["fields"]["guid_type"] for r in recs
             if isinstance(r.get("fields"), dict) and isinstance(r["fields"].get("guid_type"), str)]
    check(guids, f"{PRIM}: etldump gives no guid_type field")
    g = guids[0]
    check(GUID_RE.fullmatch(g) and g == g.lower(), f"etldump's GUID form changed: {g!r}")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(PRIM), "-Y", f'etl.kv == "guid_type={g}"',
                         "-T", "fields", "-e", "frame.number"])
    hits = [l for l in out.splitlines() if l.strip()]
    check(len(hits) == guids.count(g), f"etl.kv == guid_type={g}: {len(hits)} frames, etldump "
                                       f"{guids.count(g)}")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(PRIM), "-T", "fields", "-E", "occurrence=a",
                         "-e", "etl.field.value", "-e", "etl.kv", "-e", "_ws.col.Info"])
    braced = re.findall(r"\{" + GUID_RE.pattern + r"\}", out)
    upper = [m for m in GUID_RE.findall(out) if m != m.lower()]
    check(not braced and not upper, f"GUIDs in another form: {(braced + upper)[:3]}")
    check("\u2026" not in out, "Info/labels still shorten with U+2026")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(PRIM)])
    check("..." in out and "\u2026" not in out, "Info does not shorten with ASCII ...")
    print(f"  ok {PRIM}: etl.kv == guid_type={g} selects {len(hits)} frame(s) as etldump; "
          f"no braced or upper-case GUID; Info shortens with ...")


REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _install_profile(env):
    """A fresh HOME with plugin/profile/ETW as its personal "ETW" profile (what the cmake
    install rule does without ETLSHARK_INSTALL_SYSTEM)."""
    import shutil
    home = env.fresh_home()
    dst = os.path.join(home, ".config", "wireshark", "profiles", "ETW")
    shutil.copytree(os.path.join(REPO, "plugin", "profile", "ETW"), dst)
    if env.as_user:
        for dirpath, _, files in os.walk(os.path.join(home, ".config")):
            os.chown(dirpath, env.as_user.pw_uid, env.as_user.pw_gid)
            for f in files:
                os.chown(os.path.join(dirpath, f), env.as_user.pw_uid, env.as_user.pw_gid)
    return home


def test_views_profile(env):
    """The "ETW" configuration profile (plugin/profile/ETW): with tshark -C ETW the packet list
    reads No., UTC time, CPU, process, pid, tid, provider, event, Source -> Destination as
    etldump gives them for the first 300 records of net452; the coloring rules name the
    logfile header's rule, and every frame of a level the rules color gets that rule."""
    if not _pre(env, NET452, oracle=True):
        return SKIP
    recs, extra = _oracle(env, NET452)
    home = _install_profile(env)
    _, out, _ = env.run([env.args.tshark, "-C", "ETW", "-r", env.capture(NET452), "-c", "300",
                         "-t", "u"], home=home, extra_env=extra)
    lines = out.splitlines()
    check(len(lines) == 300, f"{len(lines)} lines")
    for i, (line, r) in enumerate(zip(lines, recs), 1):
        ts = r["timestamp"].replace("T", " ").rstrip("Z")
        ts = ts + "0" * (29 - len(ts))
        pid = r.get("process_id", r.get("pid"))
        proc, prov = _oracle_labels(r)
        want = [str(i), ts, str(r["cpu"]), r.get("process_name", ""),
                "" if pid in (None, NO_ID) or proc == NO_PROCESS else str(pid),
                "" if r.get("tid") in (None, NO_ID) else str(r["tid"]),
                r.get("provider_name", ""), r.get("event_name", ""), proc, "\u2192", prov]
        want = " ".join(" ".join(w for w in want if w).split())
        # Wireshark 4.6 ends a UTC time with "Z" (4.0 does not)
        got = re.sub(r"^(\d+ [\d-]+ [\d:.]+)Z ", r"\1 ", " ".join(line.split()))
        check(got.startswith(want + " "), f"frame {i}: {got[:160]!r}, expected {want!r}")
    _, out, _ = env.run([env.args.tshark, "-C", "ETW", "-r", env.capture(NET452), "--color",
                         "-T", "fields", "-e", "etl.level", "-e", "frame.coloring_rule.name"],
                        home=home, extra_env=extra)
    rows = [l.split("\t") for l in out.splitlines()]
    check(rows and rows[0][1] == "ETW logfile header", f"frame 1 coloring: {rows[:1]}")
    rule = {"1": "ETW critical", "2": "ETW error", "3": "ETW warning"}
    wrong = [(i + 1, r) for i, r in enumerate(rows) if r[0] in rule and r[1] != rule[r[0]]]
    check(not wrong, f"frames of a colored level with another rule: {wrong[:5]}")
    print(f"  ok {NET452}: 300 frames as etldump in the ETW profile's columns; coloring: frame 1 "
          f"{rows[0][1]!r}, {sum(r[0] in rule for r in rows)} error/warning frames colored")


VIEWS_TESTS = {
    "views_profile": test_views_profile,
    "views_guid": test_views_guid,
    "views_conv": test_views_conv,
    "views_stats": test_views_stats,
    "views_expert": test_views_expert,
    "views_capinfo": test_views_capinfo,
}


if __name__ == "__main__":
    tp.TESTS.clear()
    tp.TESTS.update(VIEWS_TESTS)
    sys.exit(tp.main())
