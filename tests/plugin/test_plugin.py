#!/usr/bin/env python3
"""End-to-end tests of the etlshark Wireshark plugins (etl_reader.so, etl_dissector.so).

Runs the real tshark / capinfos / wireshark on the capture corpus and checks what they print
against the corpus's expected.json (counts found by an independent scanner).

    test_plugin.py --reader build/plugins/4.0/wiretap/etl_reader.so \
                   --dissector build/plugins/4.0/epan/etl_dissector.so \
                   --captures ../shared/captures  TEST [TEST ...]

TEST is one of: open empty formats providers twopass inputs capinfos malformed damage gui
tlkv tlstore tlgolden tlcorpus tlgenerated tlclash mffilter mfcounts mfcountedarray mfmissing mftwopass
mfbadmanifest kernel kernelfilter process prescan stacks packets pktgen all.
The mf* tests (manifest events) also need --etldump (the oracle) and the manifests (--manifests);
so do the kernel, process and stack tests (--etldump).

Wireshark ignores WIRESHARK_PLUGIN_DIR (and the personal plugin folder) when run by root, so
as root the tools run as an unprivileged user (created with `useradd -m etlsharktest` when
missing); otherwise they run as the invoking user.  Because that user may not be able to read
the build tree (a clone under /root is mode 700), the plugins (in the <X.Y>/{epan,wiretap}
layout) and the captures are copied into a fresh temporary folder it can read, and each tool
gets that folder as WIRESHARK_PLUGIN_DIR and a fresh HOME.

Exit status: 0 all passed, 1 a check failed, 77 skipped (a needed tool is missing).
Python 3 standard library only.
"""

import argparse
import collections
import datetime
import gzip
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import uuid
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_output import as_wireshark_40, newer_than_40  # noqa: E402  (releases after 4.0)

TEST_USER = "etlsharktest"
SKIP = 77

# Oracle for header kinds (format doc section 2; the names expected.json uses).
HEADER_TYPES = {
    0x01: "SYSTEM32", 0x02: "SYSTEM64", 0x03: "COMPACT32", 0x04: "COMPACT64",
    0x0A: "FULL_HEADER32", 0x0B: "INSTANCE32", 0x0C: "TIMED", 0x0D: "ERROR", 0x0E: "WNODE",
    0x0F: "MESSAGE", 0x10: "PERFINFO32", 0x11: "PERFINFO64", 0x12: "EVENT_HEADER32",
    0x13: "EVENT_HEADER64", 0x14: "FULL_HEADER64", 0x15: "INSTANCE64",
}

# The fields every frame's header must show in every output format.
HEADER_FIELDS = ["etl.header_type", "etl.provider", "etl.opcode", "etl.cpu", "etl.timestamp"]
# Frames read per capture by the heavier format checks (JSON/PDML/-V of every frame of a
# 180k-record trace would be gigabytes; the full-file checks are in `open`/`twopass`).
FORMAT_FRAME_LIMIT = 400


class Failure(Exception):
    pass


class Env:
    """The sandbox: a readable temp folder with plugins + captures, and who runs the tools."""

    def __init__(self, args):
        self.args = args
        self.root = tempfile.mkdtemp(prefix="etlshark-plugin-test-")
        os.chmod(self.root, 0o755)
        self.as_user = None
        if os.geteuid() == 0:
            self.as_user = ensure_test_user()
        self.ws_xy = tshark_xy(args.tshark)
        self.plugins = os.path.join(self.root, "plugins")
        for kind, src in (("wiretap", args.reader), ("epan", args.dissector)):
            if src is None:  # a build without the reader (--no-reader)
                continue
            d = os.path.join(self.plugins, self.ws_xy, kind)
            os.makedirs(d)
            dst = os.path.join(d, os.path.basename(src))
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755)
        for dirpath, dirnames, _ in os.walk(self.plugins):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
        os.chmod(self.plugins, 0o755)
        self.captures = os.path.join(self.root, "captures")
        os.makedirs(self.captures)
        os.chmod(self.captures, 0o755)
        with open(os.path.join(args.captures, "expected.json"), encoding="utf-8") as f:
            self.expected = json.load(f)
        for name in sorted(self.expected):
            src = os.path.join(args.captures, name)
            if not os.path.exists(src):
                raise Failure(f"{name} is listed in expected.json but missing from {args.captures}")
            dst = os.path.join(self.captures, name)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o644)
        # The project's own generated captures (captures/ in the repository), when present.
        self.generated = []
        if args.repo_captures and os.path.isdir(args.repo_captures):
            for name in sorted(os.listdir(args.repo_captures)):
                if name.endswith(".etl") and name not in self.expected:
                    dst = os.path.join(self.captures, name)
                    shutil.copyfile(os.path.join(args.repo_captures, name), dst)
                    os.chmod(dst, 0o644)
                    self.generated.append(name)
        self.homes = 0

    def capture(self, name):
        return os.path.join(self.captures, name)

    def fresh_home(self):
        self.homes += 1
        home = os.path.join(self.root, f"home{self.homes}")
        os.makedirs(home)
        if self.as_user:
            os.chown(home, self.as_user.pw_uid, self.as_user.pw_gid)
        return home

    def env(self, home, extra=None):
        e = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "WIRESHARK_PLUGIN_DIR": self.plugins,
        }
        if extra:
            e.update(extra)
        return e

    def popen_kwargs(self, home, extra_env=None):
        kw = {"cwd": self.root, "env": self.env(home, extra_env)}
        if self.as_user:
            kw.update(user=self.as_user.pw_uid, group=self.as_user.pw_gid, extra_groups=[])
        return kw

    def run(self, cmd, timeout=600, check=True, stdin_path=None, home=None, extra_env=None):
        """Run a tool; return (rc, stdout, stderr) as text.  Each run gets a fresh HOME (so a
        fresh Wireshark profile) unless `home` names one to reuse."""
        home = home or self.fresh_home()
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=stdin,
                               **self.popen_kwargs(home, extra_env))
        finally:
            if stdin_path:
                stdin.close()
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        if newer_than_40(self.ws_xy) and os.path.basename(cmd[0]) == "tshark":
            out = as_wireshark_40(cmd, out)
        if check and p.returncode != 0:
            raise Failure(f"{' '.join(cmd)} exited {p.returncode}: {err.strip()[:2000]}")
        return p.returncode, out, err

    def run_hash(self, cmd, timeout=900, home=None, extra_env=None, drop=None):
        """Run a tool and hash its standard output as it streams; return (sha256, bytes, stderr).
        `drop`: a compiled bytes regex; output lines matching it are left out of hash and count."""
        home = home or self.fresh_home()
        h = hashlib.sha256()
        n = 0
        with tempfile.TemporaryFile() as errf:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf,
                                 **self.popen_kwargs(home, extra_env))
            start = time.monotonic()
            if drop is None:
                chunks = iter(lambda: p.stdout.read(1 << 20), b"")
            else:
                chunks = (line for line in p.stdout if not drop.search(line))
            for chunk in chunks:
                h.update(chunk)
                n += len(chunk)
                if time.monotonic() - start > timeout:
                    p.kill()
                    raise Failure(f"{' '.join(cmd)} took longer than {timeout} s")
            rc = p.wait()
            errf.seek(0)
            err = errf.read().decode("utf-8", "replace")
        if rc != 0:
            raise Failure(f"{' '.join(cmd)} exited {rc}: {err.strip()[:2000]}")
        return h.hexdigest(), n, err

    def cleanup(self):
        if not self.args.keep:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            print(f"kept {self.root}")


def ensure_test_user():
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        # Tests run in parallel may race to create the user; whoever loses finds it made.
        subprocess.run(["useradd", "-m", TEST_USER], capture_output=True)
        return pwd.getpwnam(TEST_USER)


def tshark_xy(tshark):
    out = subprocess.run([tshark, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"\b(\d+)\.(\d+)\.\d+", out)
    if not m:
        raise Failure(f"cannot tell the Wireshark version from `{tshark} --version`")
    return f"{m.group(1)}.{m.group(2)}"


def filetime_to_datetime(ft):
    return datetime.datetime(1601, 1, 1, tzinfo=datetime.timezone.utc) + \
        datetime.timedelta(microseconds=ft // 10)


def parse_ws_time(text):
    """'Jul 14, 2020 12:04:31.138736300 UTC' -> (datetime to the microsecond, 100ns digit string)."""
    m = re.match(r"(\w{3})\s+(\d+), (\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{9}) UTC$", text.strip())
    if not m:
        raise Failure(f"unexpected time text {text!r}")
    mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec"].index(m.group(1)) + 1
    frac = m.group(7)
    dt = datetime.datetime(int(m.group(3)), mon, int(m.group(2)), int(m.group(4)),
                           int(m.group(5)), int(m.group(6)), int(frac[:6]),
                           tzinfo=datetime.timezone.utc)
    return dt, frac


def nonempty(env):
    return sorted(n for n, e in env.expected.items() if e.get("records", 0) > 0)


def check(cond, msg):
    if not cond:
        raise Failure(msg)


# ---- tests ------------------------------------------------------------------------------------

def test_open(env):
    """Every capture opens; frame count == records; every frame is ours; header kinds,
    extended item kinds and the logfile facts agree with expected.json."""
    for name in nonempty(env):
        exp = env.expected[name]
        _, out, err = env.run([env.args.tshark, "-r", env.capture(name), "-T", "fields",
                               "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
                               "-e", "frame.protocols", "-e", "etl.header_type",
                               "-e", "etl.ext.type", "-e", "etl.logfile_header"])
        check(err.strip() == "", f"{name}: tshark wrote to stderr: {err.strip()[:500]}")
        rows = [line.split("\t") for line in out.splitlines()]
        check(len(rows) == exp["records"],
              f"{name}: {len(rows)} frames, expected.json says {exp['records']} records")
        # ETW first; a packet event's frame then goes on to its link layer ("etl:eth:...")
        not_ours = [i + 1 for i, r in enumerate(rows) if r[0].split(":")[0] != "etl"]
        check(not not_ours, f"{name}: frames not dissected as etl: {not_ours[:10]}")
        kinds = {}
        ext = {}
        logfile_frames = 0
        for r in rows:
            ht = HEADER_TYPES.get(int(r[1], 16), r[1]) if r[1] else "(none)"
            kinds[ht] = kinds.get(ht, 0) + 1
            for t in filter(None, r[2].split(",")):
                ext[int(t)] = ext.get(int(t), 0) + 1
            logfile_frames += r[3] == "1"
        check(kinds == exp["header_types"],
              f"{name}: header kinds {kinds} != expected {exp['header_types']}")
        exp_ext = {int(k.split()[0]): v for k, v in exp.get("ext_types", {}).items()}
        check(ext == exp_ext, f"{name}: extended item types {ext} != expected {exp_ext}")
        check(logfile_frames == 1, f"{name}: {logfile_frames} logfile header frames, expected 1")

        # the logfile header's facts
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y", "etl.logfile_header == 1",
                             "-T", "fields", "-E", "separator=/t",
                             "-e", "etl.logfile.logger_name", "-e", "etl.logfile.pointer_size",
                             "-e", "etl.logfile.perf_freq", "-e", "etl.logfile.start_time"])
        lines = out.splitlines()
        check(len(lines) == 1, f"{name}: filter etl.logfile_header == 1 matched {len(lines)} frames")
        logger, ptr, freq, start = lines[0].split("\t")
        check(logger == (exp["logger_name"] or ""),
              f"{name}: logger name {logger!r} != {exp['logger_name']!r}")
        check(int(ptr) == exp["pointer_size"], f"{name}: pointer size {ptr} != {exp['pointer_size']}")
        check(int(freq) == exp["perf_freq"], f"{name}: perf freq {freq} != {exp['perf_freq']}")
        dt, frac = parse_ws_time(start)
        want = filetime_to_datetime(exp["start_time_filetime"])
        check(dt == want and frac[6] == str(exp["start_time_filetime"] % 10) and frac[7:] == "00",
              f"{name}: start time {start} != FILETIME {exp['start_time_filetime']} ({want})")
        print(f"  ok {name}: {len(rows)} frames, kinds {kinds}")


def test_empty(env):
    """An empty .etl gives a clear error (tshark and capinfos), not an empty capture."""
    empties = sorted(n for n, e in env.expected.items() if e.get("size", 1) == 0)
    check(empties, "the corpus has no empty capture to test")
    for name in empties:
        for tool in ([env.args.tshark, "-r"], [env.args.capinfos]):
            rc, out, err = env.run(tool + [env.capture(name)], check=False)
            check(rc != 0, f"{name}: {tool[0]} exited 0 on an empty file (stdout {out[:200]!r})")
            check(name in err and "empty" in err and "etl" in err,
                  f"{name}: {tool[0]} error does not say the .etl is empty: {err.strip()!r}")
            print(f"  ok {name}: {os.path.basename(tool[0])}: {err.strip().splitlines()[-1]}")


def _fields_table(env, name, fields, limit):
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(limit), "-T", "fields",
                         "-E", "separator=/t", "-E", "occurrence=f"] +
                        [a for f in fields for a in ("-e", f)])
    return [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]


def _json_layers(pkt):
    return pkt["_source"]["layers"]


def _find_json(node, key):
    """First value of `key` anywhere under a JSON layer (subtrees are nested objects)."""
    if isinstance(node, dict):
        if key in node:
            v = node[key]
            return v[0] if isinstance(v, list) else v
        for v in node.values():
            r = _find_json(v, key)
            if r is not None:
                return r
    elif isinstance(node, list):
        for v in node:
            r = _find_json(v, key)
            if r is not None:
                return r
    return None


def test_formats(env):
    """-V, -T json, -T pdml, -T fields and -T text show the header fields with the same values.
    (Packet frames show their record in brief by default: the tree outputs run with the
    preference etl.full_packet_record on, so every frame has its whole header; plugin_pktbrief
    checks the brief form.)"""
    full = ["-o", "etl.full_packet_record:TRUE"]
    fields = ["frame.number"] + HEADER_FIELDS + ["etl.pid", "etl.event_id", "etl.logfile.logger_name",
                                                 "etl.provider_name", "etl.event_name", "etl.pkt.link_type"]
    for name in nonempty(env):
        exp = env.expected[name]
        n = min(exp["records"], FORMAT_FRAME_LIMIT)
        truth = _fields_table(env, name, fields, n)
        check(len(truth) == n, f"{name}: -T fields gave {len(truth)} rows, expected {n}")
        for row in truth:
            for f in ("etl.header_type", "etl.cpu", "etl.opcode"):
                check(row.get(f, "") != "", f"{name}: frame {row['frame.number']} has no {f} in -T fields")
            ht = int(row["etl.header_type"], 16)
            check(ht in HEADER_TYPES, f"{name}: frame {row['frame.number']}: unknown header type {ht:#x}")
            if row["etl.provider"]:
                check(row["etl.provider"] in exp["providers"],
                      f"{name}: frame {row['frame.number']}: provider {row['etl.provider']!r} "
                      f"is not among expected.json's providers")
        with_provider = [r for r in truth if r["etl.provider"]]
        check(with_provider, f"{name}: no frame shows etl.provider")
        logger_rows = [r for r in truth if r["etl.logfile.logger_name"] != ""] if exp["logger_name"] else []

        # JSON
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-T", "json",
                             "--no-duplicate-keys"] + full)
        pkts = json.loads(out)
        check(len(pkts) == n, f"{name}: -T json has {len(pkts)} packets, expected {n}")
        for pkt, row in zip(pkts, truth):
            layers = _json_layers(pkt)
            check("etl" in layers, f"{name}: JSON frame {row['frame.number']} has no etl layer")
            for f in HEADER_FIELDS + ["etl.pid"]:
                v = _find_json(layers["etl"], f)
                want = row[f] if row[f] != "" else None
                check(v == want, f"{name}: JSON frame {row['frame.number']} {f}={v!r}, -T fields says {want!r}")
        for row in logger_rows:
            v = _find_json(_json_layers(pkts[int(row["frame.number"]) - 1])["etl"], "etl.logfile.logger_name")
            check(v == exp["logger_name"], f"{name}: JSON logger name {v!r} != {exp['logger_name']!r}")

        # PDML
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-T", "pdml"] + full)
        root = ET.fromstring(out)
        packets = root.findall("packet")
        check(len(packets) == n, f"{name}: -T pdml has {len(packets)} packets, expected {n}")
        for pk, row in zip(packets, truth):
            proto = [p for p in pk.findall("proto") if p.get("name") == "etl"]
            check(proto, f"{name}: PDML frame {row['frame.number']} has no etl proto")
            shown = {}
            for fe in proto[0].iter("field"):
                shown.setdefault(fe.get("name"), fe.get("show"))
            for f in HEADER_FIELDS + ["etl.pid"]:
                want = row[f] if row[f] != "" else None
                check(shown.get(f) == want,
                      f"{name}: PDML frame {row['frame.number']} {f}={shown.get(f)!r}, -T fields says {want!r}")

        # -V (tree text)
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-V"] + full)
        frames = re.split(r"^Frame \d+: ", out, flags=re.M)[1:]
        check(len(frames) == n, f"{name}: -V shows {len(frames)} frames, expected {n}")
        for text, row in zip(frames, truth):
            check("ETW event (etlshark)" in text, f"{name}: -V frame {row['frame.number']} lacks the protocol")
            kind = HEADER_TYPES[int(row["etl.header_type"], 16)]
            check(f"Header type: {kind} ({row['etl.header_type']})" in text,
                  f"{name}: -V frame {row['frame.number']} lacks 'Header type: {kind}'")
            if row["etl.provider"]:
                check(f"Provider: {row['etl.provider']}" in text,
                      f"{name}: -V frame {row['frame.number']} lacks 'Provider: {row['etl.provider']}'")
            if row["etl.pid"]:
                check(f"Process id: {row['etl.pid']}\n" in text,
                      f"{name}: -V frame {row['frame.number']} lacks 'Process id: {row['etl.pid']}'")
            check(f"Timestamp: {row['etl.timestamp']}" in text,
                  f"{name}: -V frame {row['frame.number']} lacks its timestamp")
        if exp["logger_name"]:
            check(f"Logger name: {exp['logger_name']}\n" in out, f"{name}: -V lacks the logger name")

        # -T text (summary lines): protocol column and Info with provider and header kind
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-T", "text"])
        lines = out.splitlines()
        check(len(lines) == n, f"{name}: -T text has {len(lines)} lines, expected {n}")
        for line, row in zip(lines, truth):
            kind = HEADER_TYPES[int(row["etl.header_type"], 16)]
            if row["etl.pkt.link_type"] not in ("", "65535") and " ETW " not in line:
                continue  # a packet event: the packet's own Protocol and Info (test_packets)
            if row["etl.event_name"]:
                # TraceLogging events: Info is Provider/EventName (the GUID when the provider's
                # name is unknown) and the first fields
                who = f"{row['etl.provider_name'] or row['etl.provider']}/{row['etl.event_name']}"
                check(" ETW " in line and f" {who}" in line,
                      f"{name}: -T text line of frame {row['frame.number']} lacks ETW/{who}: {line!r}")
                continue
            check(" ETW " in line and kind in line,
                  f"{name}: -T text line of frame {row['frame.number']} lacks ETW/{kind}: {line!r}")
            if row["etl.provider"] and "Logfile header" not in line:
                check(row["etl.provider"] in line,
                      f"{name}: -T text line of frame {row['frame.number']} lacks the provider: {line!r}")
        print(f"  ok {name}: {n} frames agree in fields/json/pdml/-V/text")


def test_providers(env):
    """`-Y 'etl.provider == <guid>'` matches exactly the expected number of frames."""
    for name in nonempty(env):
        exp = env.expected[name]
        total = 0
        for guid, count in sorted(exp["providers"].items()):
            _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y",
                                 f"etl.provider == {guid}", "-T", "fields", "-e", "etl.provider"])
            got = out.splitlines()
            check(len(got) == count, f"{name}: etl.provider == {guid} matched {len(got)}, expected {count}")
            check(all(g == guid for g in got), f"{name}: filter for {guid} returned other providers")
            total += count
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y", "etl.provider",
                             "-T", "fields", "-e", "frame.number"])
        check(len(out.splitlines()) == total,
              f"{name}: {len(out.splitlines())} frames have a provider, expected.json accounts for {total}")
        print(f"  ok {name}: {len(exp['providers'])} providers, {total} frames")


# The one item a second pass adds on purpose: an event's link to the stack walk that follows it
# (etl.stack_frame), known only once the first pass has seen that stack walk.
STACK_FRAME_LINE = re.compile(rb"^\s*\[Stack in frame: \d+\]$")


def test_twopass(env):
    """Two-pass output (seek_read) equals one-pass output (sequential read), byte for byte, on the
    corpus and the project's generated captures - but for the etl.stack_frame items that only a
    second pass can show."""
    for name in nonempty(env) + env.generated:
        cmd = [env.args.tshark, "-r", env.capture(name), "-V", "-x"]
        if name == PKTMON:
            # its packets' own dissectors show more in a second pass (ICMP's "[Response frame]",
            # as on a pcapng): the ETW tree in full, the packet layers as summary lines
            cmd += ["-O", "etl"]
        one, n1, err1 = env.run_hash(cmd)
        two, n2, err2 = env.run_hash(cmd[:1] + ["-2"] + cmd[1:], drop=STACK_FRAME_LINE)
        check(n1 > 0, f"{name}: no output")
        check(err1.strip() == "" and err2.strip() == "",
              f"{name}: stderr: {err1.strip()[:300]} {err2.strip()[:300]}")
        check(one == two, f"{name}: two-pass output ({n2} bytes) differs from one-pass ({n1} bytes)")
        print(f"  ok {name}: {n1} bytes identical")


def test_onepassio(env):
    """A one-pass tshark (no random access: wiretap's handle has no fast-seek data, so a backward
    file_seek would rewind to the start and read forward) reads a multi-CPU trace about twice
    (the dissector's pre-pass for the schemas the trace carries, then the frames), not once per
    backward seek of the timestamp merge: bytes read by tshark, from strace, at most 3x the
    file's size + 8 MB (before the reader's own descriptor: 33x on a 1 M-record trace), with
    every record framed."""
    if not env.args.etlgen or not os.path.exists(env.args.etlgen):
        print("SKIP: --etlgen not given")
        return SKIP
    if shutil.which("strace") is None:
        print("SKIP: strace is not installed")
        return SKIP
    records = 400000
    path = env.capture("onepass_large_kernel.etl")
    subprocess.run([env.args.etlgen, "--preset", "large_kernel", "--records", str(records), "-o", path],
                   check=True, capture_output=True)
    os.chmod(path, 0o644)
    size = os.path.getsize(path)
    home = env.fresh_home()  # the test user writes the log there
    log = os.path.join(home, "onepass.strace")
    _, out, _ = env.run(["strace", "-f", "-qq", "-e", "trace=read,pread64", "-e", "signal=none", "-o", log,
                         env.args.tshark, "-r", path, "-q", "-z", "io,stat,0"], home=home)
    got = 0
    with open(log, errors="replace") as f:
        for line in f:
            m = re.search(r"\b(?:read|pread64)\(.*\)\s+=\s+(\d+)", line)
            if m:
                got += int(m.group(1))
    frames = re.search(r"\|\s*(\d+)\s*\|\s*\d+\s*\|\s*$", out, re.M)
    check(frames is not None and int(frames.group(1)) == records,
          f"io,stat counted {frames.group(1) if frames else 'no'} frames, expected {records}")
    check(got <= 3 * size + (8 << 20),
          f"one-pass tshark read {got} bytes of a {size}-byte trace ({got / size:.1f}x)")
    print(f"  ok {records} frames; {got} bytes read for a {size}-byte trace ({got / size:.2f}x)")


def _capinfos(env, name, machine):
    _, out, _ = env.run([env.args.capinfos] + (["-M"] if machine else []) +
                        ["-t", "-E", "-c", env.capture(name)])
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def test_inputs(env):
    """Input without random access or known size: a trace on standard input and a gzip-compressed
    trace read exactly like the plain file (same frames, same bytes)."""
    names = [n for n in ("tx_HTTP_Server_manifest.etl", "perfview_smallEtlFile_32bit_compressed.etl",
                         "etlparser_AMSITrace_tracelogging.etl") if n in env.expected] or nonempty(env)[:2]
    for name in names:
        records = env.expected[name]["records"]
        plain, n_plain, _ = env.run_hash([env.args.tshark, "-r", env.capture(name), "-V", "-x"])
        gz = os.path.join(env.root, name + ".gz")
        with open(env.capture(name), "rb") as src, gzip.open(gz, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.chmod(gz, 0o644)
        zipped, n_zipped, _ = env.run_hash([env.args.tshark, "-r", gz, "-V", "-x"])
        check(zipped == plain, f"{name}.gz: output differs from the plain file ({n_zipped} vs {n_plain} bytes)")
        _, out, err = env.run([env.args.tshark, "-r", "-", "-T", "fields", "-e", "frame.protocols",
                               "-e", "etl.header_type"], stdin_path=env.capture(name))
        rows = out.splitlines()
        check(len(rows) == records and all(r.startswith("etl\t0x") for r in rows),
              f"{name} on standard input: {len(rows)} frames (expected {records}); {err.strip()[:300]}")
        print(f"  ok {name}: gzip output identical ({n_plain} bytes), stdin {len(rows)} frames")


def test_capinfos(env):
    """capinfos names the file type and encapsulation (long and short names) and counts the
    records."""
    for name in nonempty(env):
        info = _capinfos(env, name, machine=False)
        check(info.get("File type") == "Windows ETW trace (.etl)",
              f"{name}: capinfos file type {info.get('File type')!r}")
        # Wireshark's ETW encapsulation (pcapng link type 290), so pcapng can hold the frames
        check(info.get("File encapsulation") == "Event Tracing for Windows messages",
              f"{name}: capinfos encapsulation {info.get('File encapsulation')!r}")
        info_m = _capinfos(env, name, machine=True)
        check(info_m.get("File type") == "etl" and info_m.get("File encapsulation") == "etw",
              f"{name}: capinfos -M names {info_m.get('File type')!r}/{info_m.get('File encapsulation')!r}")
        check(info_m.get("Number of packets") == str(env.expected[name]["records"]),
              f"{name}: capinfos counts {info_m.get('Number of packets')!r} packets, "
              f"expected {env.expected[name]['records']}")
        print(f"  ok {name}: {info['File type']} / {info['File encapsulation']} / "
              f"{info_m['Number of packets']}")


def stop_group(p):
    """End a process started with start_new_session=True, and its children: TERM, then KILL
    after 10 s."""
    if p is None or p.poll() is not None:
        return
    os.killpg(p.pid, signal.SIGTERM)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def _x_windows(display, env_vars):
    out = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                         env=dict(env_vars, DISPLAY=display), timeout=30).stdout
    wins = []
    for line in out.splitlines():
        m = re.match(r'\s+0x[0-9a-f]+ "(.*)": \((.*?)\)\s+(\d+)x(\d+)', line)
        if m:
            wins.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
    return wins


def gui_home(env, recent=None):
    """A fresh HOME for wireshark-qt: the main window at 0,0 filling a 1280x900 screen, the
    profile's `recent` lines given, owned by the user the tools run as."""
    home = env.fresh_home()
    cfg = os.path.join(home, ".config", "wireshark")
    os.makedirs(cfg)
    with open(os.path.join(cfg, "recent_common"), "w") as f:
        f.write("gui.geometry_main_x: 0\ngui.geometry_main_y: 0\n"
                "gui.geometry_main_width: 1280\ngui.geometry_main_height: 900\n")
    if recent:
        with open(os.path.join(cfg, "recent"), "w") as f:
            f.write(recent)
    if env.as_user:
        for dirpath, _, filenames in os.walk(home):
            os.chown(dirpath, env.as_user.pw_uid, env.as_user.pw_gid)
            for fn in filenames:
                os.chown(os.path.join(dirpath, fn), env.as_user.pw_uid, env.as_user.pw_gid)
    return home


def _gui_open(env, display, capture, settle):
    """Start wireshark on a capture; return the windows of class wireshark once settled."""
    home = gui_home(env)
    kw = env.popen_kwargs(home, {"DISPLAY": display, "XDG_RUNTIME_DIR": home})
    p = subprocess.Popen([env.args.wireshark, "-r", capture], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True, **kw)
    try:
        deadline = time.monotonic() + 90
        title = os.path.basename(capture)
        wins = []
        while time.monotonic() < deadline:
            wins = [w for w in _x_windows(display, kw["env"]) if '"wireshark"' in w[1]]
            if any(w[0] in (title, "The Wireshark Network Analyzer") for w in wins):
                break
            if p.poll() is not None:
                raise Failure(f"wireshark exited {p.returncode}: {p.stderr.read().decode()[-1000:]}")
            time.sleep(1)
        time.sleep(settle)  # let a late error dialog appear
        wins = [w for w in _x_windows(display, kw["env"]) if '"wireshark"' in w[1]]
        return wins
    finally:
        stop_group(p)


def test_gui(env):
    """wireshark-qt under Xvfb opens a capture: the main window is titled with the file name and
    no other Wireshark window (an error dialog) appears.  Control: the empty .etl does raise a
    dialog, so the check can see one."""
    for tool in (env.args.wireshark, "Xvfb", "xwininfo"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (apt-get install wireshark xvfb x11-utils)")
            return SKIP
    num = next(n for n in range(90, 200) if not os.path.exists(f"/tmp/.X11-unix/X{n}")
               and not os.path.exists(f"/tmp/.X{n}-lock"))
    display = f":{num}"
    home = env.fresh_home()
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, **env.popen_kwargs(home))
    try:
        for _ in range(50):
            if os.path.exists(f"/tmp/.X11-unix/X{num}"):
                break
            time.sleep(0.2)
        else:
            raise Failure("Xvfb did not start")
        good = "tx_HTTP_Server_manifest.etl" if "tx_HTTP_Server_manifest.etl" in env.expected \
            else nonempty(env)[0]
        wins = _gui_open(env, display, env.capture(good), settle=5)
        titles = [w[0] for w in wins]
        check(good in titles, f"GUI: no main window titled {good!r}; windows: {titles}")
        others = [w for w in wins if w[0] != good]
        check(not others, f"GUI: unexpected Wireshark windows (error dialog?) after opening {good}: {others}")
        print(f"  ok GUI opened {good}: windows {titles}")

        empties = [n for n, e in env.expected.items() if e.get("size", 1) == 0]
        if empties:
            wins = _gui_open(env, display, env.capture(empties[0]), settle=3)
            titles = [w[0] for w in wins]
            check(empties[0] not in titles, f"GUI: the empty file was opened as a capture: {titles}")
            dialogs = [w for w in wins if w[0] != "The Wireshark Network Analyzer"]
            check(dialogs, f"GUI control: no error dialog for the empty file; windows: {titles}")
            print(f"  ok GUI control: empty file raises a dialog: {titles}")
    finally:
        stop_group(xvfb)
    return 0

# ---- synthetic frames (user DLT) and damaged files ----------------------------------------------

USER_DLT_PREF = 'uat:user_dlts:"User 0 (DLT=147)","etl","0","","0",""'
# The tests that need only the dissector (crafted frames in a pcap on user DLT 147): they also
# run in a build without the file reader (--no-reader), e.g. against Wireshark 4.4 here.
DISSECTOR_ONLY = {"malformed", "kernelcrafted"}


def _trailer(record_size, notes_size, note_count=0, flags=1, ts=132392018711387363, position=0x1234):
    """etl_frame.h trailer, version 1 (written independently of the plugin's code)."""
    t = b"ETLS" + struct.pack("<HHIIQQIHHHBBBBHqQ", 1, 64, record_size, notes_size, position,
                              0x4000, 0x48, 3, 20, 0x21, 0, 8, 1, flags, note_count, ts, 0)
    assert len(t) == 64
    return t


def _ext_item(ext_type, data, linkage):
    total = (8 + len(data) + 7) // 8 * 8
    return struct.pack("<HHHH", total, ext_type, linkage, len(data)) + data + \
        b"\0" * (total - 8 - len(data))


def _event_header64(broken_chain=False):
    """An EVENT_HEADER64 record (format doc 3.1/3.3) with SID, STACK_TRACE64 and
    RELATED_ACTIVITYID items and a 4-byte payload."""
    prov = uuid.UUID("0cd1c309-0878-4515-83db-749843b3f5c9").bytes_le
    act = uuid.UUID("11111111-2222-3333-4444-555555555555").bytes_le
    rel = uuid.UUID("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee").bytes_le
    sid = bytes([1, 1, 0, 0, 0, 0, 0, 5]) + struct.pack("<I", 18)          # S-1-5-18
    stack = struct.pack("<QQQ", 0x77, 0x7FF600001000, 0x7FF600002000)
    items = _ext_item(2, sid, 1) + _ext_item(6, stack, 1) + _ext_item(1, rel, 0)
    if broken_chain:  # second item claims 0x200 bytes: runs past the record
        items = items[:24] + struct.pack("<H", 0x200) + items[26:]
    payload = b"ABCD"
    size = 0x50 + len(items) + len(payload)
    hdr = struct.pack("<HBBHHIIq", size, 0x13, 0xC0, 0x0001, 0, 4321, 1234, 111046465597) + prov
    hdr += struct.pack("<HBBBBHQ", 42, 1, 16, 4, 7, 9, 0x8000000000000001)
    hdr += struct.pack("<II", 5, 6) + act
    assert len(hdr) == 0x50
    return hdr + items + payload


def _note(kind, status, offset, text, text_len=None):
    b = text.encode()
    return struct.pack("<BBHiQ", kind, 0, len(b) if text_len is None else text_len, status, offset) + b


def _write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 147))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1594728271 + i, 0, len(fr), len(fr)) + fr)
    os.chmod(path, 0o644)


def test_malformed(env):
    """The dissector on crafted frames (pcap, user DLT 147 -> "etl"): extended items the corpus
    lacks decode to the right values, and every kind of malformed frame gets expert info with
    its reason while the rest of the tree is still shown."""
    frames = []
    r = _event_header64()
    frames.append(r + _trailer(len(r), 0))                                     # 1 good
    r = _event_header64(broken_chain=True)
    frames.append(r + _trailer(len(r), 0))                                     # 2 bad ext chain
    frames.append(bytes(range(20)))                                            # 3 no trailer
    r = b"\x5a" * 32
    frames.append(r + _trailer(len(r), 0))                                     # 4 not a record
    r = _event_header64()
    n = _note(1, -5, 0xA000, "buffer header at 0xa000 is impossible") + \
        _note(1, -4, 0x14000, "short", text_len=500)
    frames.append(r + n + _trailer(len(r), len(n), note_count=2))              # 5 notes
    path = os.path.join(env.root, "crafted.pcap")
    _write_pcap(path, frames)

    fields = ["frame.number", "_ws.col.Protocol", "_ws.expert.message", "etl.provider", "etl.pid",
              "etl.tid", "etl.event_id", "etl.level", "etl.opcode", "etl.task", "etl.keyword",
              "etl.activity_id", "etl.sid", "etl.stack.match_id", "etl.stack.address",
              "etl.related_activity_id", "etl.payload", "etl.position", "etl.ext.count",
              "etl.timestamp", "etl.cpu"]
    _, out, _ = env.run([env.args.tshark, "-r", path, "-o", USER_DLT_PREF, "-T", "fields",
                         "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"] +
                        [a for f in fields for a in ("-e", f)])
    rows = [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]
    check(len(rows) == 5, f"crafted.pcap: {len(rows)} frames, expected 5")
    good = rows[0]
    want = {
        "_ws.col.Protocol": "ETW",
        "etl.provider": "0cd1c309-0878-4515-83db-749843b3f5c9", "etl.pid": "1234", "etl.tid": "4321",
        "etl.event_id": "42", "etl.level": "4", "etl.opcode": "7", "etl.task": "9",
        "etl.keyword": "0x8000000000000001", "etl.activity_id": "11111111-2222-3333-4444-555555555555",
        "etl.sid": "S-1-5-18", "etl.stack.match_id": "0x0000000000000077",
        "etl.stack.address": "0x00007ff600001000|0x00007ff600002000",
        "etl.related_activity_id": "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "etl.payload": "41424344",
        "etl.position": "0x0000000000001234", "etl.ext.count": "3",
        "etl.timestamp": "Jul 14, 2020 12:04:31.138736300 UTC", "etl.cpu": "3",
    }
    for k, v in want.items():
        check(good.get(k) == v, f"crafted frame 1: {k} = {good.get(k)!r}, expected {v!r}")
    # no manifest describes the crafted event: only the note saying how to add one
    msg = good.get("_ws.expert.message", "")
    check(msg.startswith("no schema for {0cd1c309-0878-4515-83db-749843b3f5c9} event id 42 version 1: add its "
                         "manifest to the manifest path (payload shown raw; preference etl.manifest_path")
          and "|" not in msg, f"crafted frame 1: expert info {msg!r}, expected only the missing-schema note")
    bad_chain = rows[1]
    check("Record damage" in bad_chain["_ws.expert.message"] and
          "extended" in bad_chain["_ws.expert.message"],
          f"crafted frame 2: no record-damage expert info: {bad_chain['_ws.expert.message']!r}")
    check(bad_chain["etl.provider"] == want["etl.provider"] and bad_chain["etl.pid"] == "1234",
          "crafted frame 2: the header is not shown beside the damage")
    check("etlshark record trailer" in rows[2]["_ws.expert.message"],
          f"crafted frame 3: {rows[2]['_ws.expert.message']!r}")
    check("cannot be framed" in rows[3]["_ws.expert.message"] and "0x5a5a5a5a" in rows[3]["_ws.expert.message"]
          and rows[3]["etl.position"] == "0x0000000000001234",
          f"crafted frame 4: {rows[3]['_ws.expert.message']!r} / position {rows[3]['etl.position']!r}")
    notes = rows[4]["_ws.expert.message"]
    check("Trace damage: buffer header at 0xa000 is impossible" in notes and
          "Damage note 2 text runs past the notes block" in notes and rows[4]["etl.sid"] == "S-1-5-18",
          f"crafted frame 5: {notes!r}")
    # expert fields are filterable
    for flt, frame_no in (("etl.expert.record_damage", "2"), ("etl.expert.no_trailer", "3"),
                          ("etl.expert.unframed", "4"), ("etl.expert.trace_damage", "5")):
        _, out, _ = env.run([env.args.tshark, "-r", path, "-o", USER_DLT_PREF, "-Y", flt,
                             "-T", "fields", "-e", "frame.number"])
        check(out.split() == [frame_no], f"crafted: -Y {flt} selected {out.split()}, expected [{frame_no}]")
    print("  ok crafted frames: extended items decoded, 4 kinds of damage reported")


def _system64(hook_id, version, payload, pid=4, tid=8, ts=111046465597):
    """A SYSTEM64 kernel record (format doc 2): version, header type 0x02, marker 0xC0, size,
    HookId (group << 8 | type), thread, process, timestamp, kernel and user time."""
    size = 0x20 + len(payload)
    return struct.pack("<HBBHHIIqII", version, 0x02, 0xC0, size, hook_id, tid, pid, ts, 0, 0) + payload


def test_kernelcrafted(env):
    """Kernel records the corpus lacks: a version newer than the kernel class document knows
    decodes with the highest lower version and says so (etl.schema_version + expert note); a
    kernel group without a known class and an undescribed type of a known class are named from
    their key with the raw payload and the unknown-event note - never an error."""
    frames = []
    # Thread/Start (group THREAD, 0x05) version 200: the document's highest lower version decodes it
    r = _system64(0x0501, 200, struct.pack("<II", 1234, 5678) + b"\0" * 64)  # version 3's 72 bytes
    frames.append(r + _trailer(len(r), 0))
    r = _system64(0x5503, 0, b"\x01\x02\x03")                     # unknown group 0x55
    frames.append(r + _trailer(len(r), 0))
    r = _system64(0x0363, 3, b"\xaa" * 6)                          # Process type 0x63: undescribed
    frames.append(r + _trailer(len(r), 0))
    path = os.path.join(env.root, "kernelcrafted.pcap")
    _write_pcap(path, frames)
    fields = ["frame.number", "etl.provider_name", "etl.event_name", "etl.schema_version",
              "etl.data_raw", "_ws.expert.message", "_ws.expert.severity"]
    _, out, _ = env.run([env.args.tshark, "-r", path, "-o", USER_DLT_PREF, "-T", "fields",
                         "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"] +
                        [a for f in fields for a in ("-e", f)])
    rows = [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]
    check(len(rows) == 3, f"kernelcrafted.pcap: {len(rows)} frames, expected 3")
    if len(rows) != 3:
        return
    newer = rows[0]
    check(newer["etl.provider_name"] == "Windows Kernel" and newer["etl.event_name"] == "Thread/Start",
          f"version 200: named {newer['etl.provider_name']!r}/{newer['etl.event_name']!r}")
    check(newer["etl.schema_version"].isdigit() and int(newer["etl.schema_version"]) < 200,
          f"version 200: schema version {newer['etl.schema_version']!r}")
    check("No description of version 200 of Thread/Start; decoded with version "
          f"{newer['etl.schema_version']}'s layout" in newer["_ws.expert.message"],
          f"version 200: expert info {newer['_ws.expert.message']!r}")
    group = rows[1]
    check(group["etl.event_name"] == "Group(0x55)/Opcode(3)" and group["etl.data_raw"] == "010203",
          f"unknown group: {group['etl.event_name']!r}, raw {group['etl.data_raw']!r}")
    typ = rows[2]
    check(typ["etl.event_name"] == "Process/Opcode(99)" and typ["etl.data_raw"] == "aa" * 6,
          f"undescribed type: {typ['etl.event_name']!r}, raw {typ['etl.data_raw']!r}")
    for row in rows[1:]:
        check("Unknown event" in row["_ws.expert.message"], f"{row['etl.event_name']}: {row['_ws.expert.message']!r}")
    for row in rows:  # notes only: the trace is fine, a description is missing
        check(set(row["_ws.expert.severity"].split("|")) <= {str(PI_NOTE)},
              f"{row['etl.event_name']}: expert severities {row['_ws.expert.severity']!r}")
    for flt, want in (("etl.expert.older_version", ["1"]), ("etl.expert.unknown_event", ["2", "3"])):
        _, out, _ = env.run([env.args.tshark, "-r", path, "-o", USER_DLT_PREF, "-Y", flt,
                             "-T", "fields", "-e", "frame.number"])
        check(out.split() == want, f"kernelcrafted: -Y {flt} selected {out.split()}, expected {want}")
    print("  ok crafted kernel records: newer version decoded with an older layout, unknown group and type raw")


def test_damage(env):
    """Damaged copies of a corpus file open with everything readable: frames before and after the
    damage are delivered, the damage is expert info naming its file offset, and a second pass
    reads the same bytes."""
    name = "tx_HTTP_Server_manifest.etl"
    if name not in env.expected:
        name = max(nonempty(env), key=lambda n: env.expected[n]["buffers"])
    exp = env.expected[name]
    with open(env.capture(name), "rb") as f:
        src = f.read()
    bufsize = exp["size"] // exp["buffers"]
    check(exp["compressed_buffers"] == 0 and bufsize * exp["buffers"] == exp["size"],
          f"{name}: not a file of equal uncompressed buffers")
    b5 = 5 * bufsize
    b3 = 3 * bufsize
    cases = {
        "bad_buffer_header": (src[:b5] + b"\xff" * 0x48 + src[b5 + 0x48:], f"{b5:#x}"),
        "bad_record": (src[:b3 + 0x48] + b"\x5a" * 0x40 + src[b3 + 0x88:], f"{b3 + 0x48:#x}"),
        "truncated": (src[:10 * bufsize + 3000], f"{10 * bufsize:#x}"),
    }
    for case, (data, offset_text) in cases.items():
        path = os.path.join(env.root, f"damaged_{case}.etl")
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o644)
        _, out, err = env.run([env.args.tshark, "-r", path, "-T", "fields", "-E", "occurrence=a",
                               "-e", "frame.protocols", "-e", "etl.expert.trace_damage",
                               "-e", "_ws.expert.message"])
        rows = [line.split("\t") for line in out.splitlines()]
        check(0 < len(rows) < exp["records"],
              f"{case}: {len(rows)} frames (intact file has {exp['records']})")
        check(all(r[0] == "etl" for r in rows), f"{case}: a frame is not dissected as etl")
        damage = [r[2] for r in rows if "Trace damage" in r[2]]
        check(damage and any(offset_text in d for d in damage),
              f"{case}: no trace-damage expert info naming offset {offset_text}: {damage[:3]}")
        one, n1, _ = env.run_hash([env.args.tshark, "-r", path, "-V", "-x"])
        two, n2, _ = env.run_hash([env.args.tshark, "-2", "-r", path, "-V", "-x"])
        check(one == two, f"{case}: two-pass output differs from one-pass ({n1} vs {n2} bytes)")
        print(f"  ok {case}: {len(rows)} frames, damage: {damage[0][:120]}")



# ---- TraceLogging fields (etl.data.*, etl.field.*, etl.kv) ------------------------------------------

PRIMITIVE = "perfview_primitive-types_tracelogging.etl"
TL_CORPUS = ["etlparser_AMSITrace_tracelogging.etl", "etlparser_lxcore_kernel_tracelogging.etl",
             "perfview_diaghub_user_paged_clr_tl.etl", "perfview_SelfDescribingSingleEvent_tl_compressed.etl"]
EXT_SCHEMA_TL = 11


def store_path(home):
    """The per-profile field store of a fresh HOME (default profile, XDG layout)."""
    return os.path.join(home, ".config", "wireshark", "etlshark_fields")


def read_store(home):
    """{field: type} of the store's field lines, in file order."""
    out = {}
    with open(store_path(home), encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if parts and not parts[0].startswith("#") and len(parts) == 2:
                out.setdefault(parts[0], parts[1])
    return out


def _pdml(env, path, extra=(), home=None):
    """[(fields of the etl proto in document order, {first show per name})] per packet, and
    stderr.  Hidden fields are included (PDML marks them hide="yes")."""
    _, out, err = env.run([env.args.tshark, "-r", path, "-T", "pdml"] + list(extra), home=home)
    pkts = []
    for pk in ET.fromstring(out).findall("packet"):
        protos = [p for p in pk.findall("proto") if p.get("name") == "etl"]
        fields = list(protos[0].iter("field")) if protos else []
        first = {}
        for fe in fields:
            first.setdefault(fe.get("name"), fe.get("show"))
        pkts.append((fields, first))
    return pkts, err


def _shows(fields, name):
    return [fe.get("show") for fe in fields if fe.get("name") == name]


def _typed(fields):
    """The typed event fields (etl.data.<path>) of a packet, in order, as (name, show, field)."""
    return [(fe.get("name")[len("etl.data."):], fe.get("show"), fe) for fe in fields
            if fe.get("name", "").startswith("etl.data.")]


def _is_tl(fields):
    """Is this packet a TraceLogging event (an EVENT_SCHEMA_TL extended item)?  Classic records
    (the logfile header, kernel events) are named too, so the name alone does not tell."""
    return any(fe.get("name") == "etl.ext.type" and fe.get("show") == str(EXT_SCHEMA_TL) for fe in fields)


def _g_fields(env, home):
    """{abbrev: (type, base)} of every etl.data.* field tshark knows at start-up in `home`."""
    _, out, _ = env.run([env.args.tshark, "-G", "fields"], home=home)
    known = {}
    for line in out.splitlines():
        p = line.split("\t")
        if len(p) >= 6 and p[0] == "F" and p[2].startswith("etl.data."):
            known[p[2]] = (p[3], p[5])
    return known


def _ws_time(text):
    """Wireshark's absolute time 'Sep  9, 2021 14:59:35.799000000 UTC' -> (datetime to the second,
    9 fraction digits)."""
    m = re.match(r"(\w{3})\s+(\d+), (\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{9}) UTC$", text.strip())
    if not m:
        raise Failure(f"unexpected time text {text!r}")
    mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec"].index(m.group(1)) + 1
    return datetime.datetime(int(m.group(3)), mon, int(m.group(2)), int(m.group(4)), int(m.group(5)),
                             int(m.group(6))), m.group(7)


def test_tlkv(env):
    """In a fresh profile (nothing learned yet), the generic fields filter in one pass:
    `etl.kv == "string_type=Venus"` selects exactly the one event with that value."""
    path = env.capture(PRIMITIVE)
    _, out, err = env.run([env.args.tshark, "-r", path, "-Y", 'etl.kv == "string_type=Venus"',
                           "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=|",
                           "-e", "frame.number", "-e", "etl.event_name", "-e", "etl.kv"])
    rows = [line.split("\t") for line in out.splitlines()]
    check(err.strip() == "", f"tshark wrote to stderr: {err.strip()[:300]}")
    check(len(rows) == 1, f"etl.kv == \"string_type=Venus\" selected {len(rows)} frames, expected 1")
    frame, event, kvs = rows[0]
    kvs = kvs.split("|")
    check(event == "PrimitiveTypesTest" and "string_type=Venus" in kvs and "int32_type=-190" in kvs
          and "boolean_type=true" in kvs,
          f"the selected frame {frame} is not the Venus event: {event} {kvs}")
    # the same frame by an independent route: the 2nd PrimitiveTypesTest event of the file
    _, out, _ = env.run([env.args.tshark, "-r", path, "-Y", 'etl.event_name == "PrimitiveTypesTest"',
                         "-T", "fields", "-e", "frame.number"])
    check(out.split()[1:2] == [frame], f"Venus is the 2nd event (frames {out.split()}), got frame {frame}")
    for flt, want in (('etl.kv == "string_type=Pluto"', 0), ('etl.field.name == "guid_type"', 5),
                      ('etl.field.value == "-190"', 1), ('etl.kv contains "_type="', 5)):
        _, out, _ = env.run([env.args.tshark, "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"])
        check(len(out.split()) == want, f"-Y '{flt}' selected {out.split()}, expected {want} frames")
    print(f"  ok etl.kv == \"string_type=Venus\" -> frame {frame} only, in a fresh profile")


def test_tlhidden(env):
    """The hidden generic fields (etl.kv, etl.field.name, etl.field.value) are built only when
    something asks for them, and then they are there: a display filter in one pass (no tree
    shown, no -e: the filter alone asks) and with -2 selects the Venus event; -T fields -e
    names them (Wireshark 4.0 builds a shown tree for -T fields and says nothing of -e); the
    outputs that print hidden items (pdml, json, ek) carry them; -V, which prints no hidden
    item, shows none, and shows them with Wireshark's preference to show hidden items."""
    path = env.capture(PRIMITIVE)
    flt = 'etl.kv == "string_type=Venus"'
    _, out, _ = env.run([env.args.tshark, "-r", path, "-Y", 'etl.event_name == "PrimitiveTypesTest"',
                         "-T", "fields", "-e", "frame.number"])
    venus = out.split()[1]  # the 2nd PrimitiveTypesTest event (test_tlkv)
    for extra in ([], ["-2"]):
        _, out, err = env.run([env.args.tshark, "-r", path] + extra + ["-Y", flt])
        frames = [line.split()[0] for line in out.splitlines() if line.strip()]
        check(frames == [venus], f"tshark {' '.join(extra)} -Y '{flt}' (summary lines) selected "
              f"{frames}, expected [{venus}]; stderr {err.strip()[:200]}")
        _, out, _ = env.run([env.args.tshark, "-r", path] + extra +
                            ["-Y", 'etl.field.name == "guid_type" && etl.field.value == "-190"'])
        frames = [line.split()[0] for line in out.splitlines() if line.strip()]
        check(frames == [venus], f"tshark {' '.join(extra)} -Y on etl.field.name and etl.field.value "
              f"selected {frames}, expected [{venus}]")
    one = ["-Y", f"frame.number == {venus}"]
    _, out, _ = env.run([env.args.tshark, "-r", path] + one + ["-Tfields", "-e", "etl.kv",
                                                                "-e", "etl.field.name"])
    kv, names = out.rstrip("\n").split("\t")
    check("string_type=Venus" in kv.split(",") and "int32_type=-190" in kv.split(","),
          f"-T fields -e etl.kv (no filter on it) printed {kv[:200]!r}")
    check("string_type" in names.split(","), f"-T fields -e etl.field.name printed {names[:200]!r}")
    _, out, _ = env.run([env.args.tshark, "-r", path] + one + ["-T", "pdml"])
    check('name="etl.kv" showname="Field name=value: string_type=Venus" hide="yes"' in out,
          "-T pdml lacks the hidden etl.kv item string_type=Venus")
    check('name="etl.field.value"' in out and 'name="etl.field.name"' in out,
          "-T pdml lacks etl.field.name / etl.field.value")
    _, out, _ = env.run([env.args.tshark, "-r", path] + one + ["-T", "json"])
    check('"etl.kv": "string_type=Venus"' in out, "-T json lacks etl.kv string_type=Venus")
    _, out, _ = env.run([env.args.tshark, "-r", path] + one + ["-T", "ek"])
    check("string_type=Venus" in out, "-T ek lacks etl.kv string_type=Venus")
    _, out, _ = env.run([env.args.tshark, "-r", path] + one + ["-V"])
    check("Venus" in out and "Field name=value" not in out and "Field name:" not in out,
          "-V: the event without its hidden items expected")
    _, out, _ = env.run([env.args.tshark, "-r", path] + one +
                        ["-o", "protocols.display_hidden_proto_items:TRUE", "-V"])
    check("Field name=value: string_type=Venus" in out,
          "-V with protocols.display_hidden_proto_items: the hidden etl.kv items expected")
    print(f"  ok the hidden generic fields: -Y in one pass and -2 (frame {venus}), -T fields -e, "
          "pdml, json, ek; none in -V unless the preference shows hidden items")


def test_tlstore(env):
    """Fields learned by one run are typed display-filter fields of the next run in the same
    profile (-Y and -e); a fresh profile does not know them; the store survives foreign and
    damaged lines and an unwritable profile, with warnings and never a crash."""
    path = env.capture(PRIMITIVE)
    cmd = [env.args.tshark, "-r", path, "-Y", "etl.data.int32_type == -190", "-T", "fields",
           "-e", "etl.data.string_type", "-e", "etl.data.int32_type"]
    # control: unknown to a profile that has not seen the file
    rc, _, err = env.run(cmd, check=False)
    check(rc != 0 and "etl.data.int32_type" in err,
          f"a fresh profile accepted etl.data.int32_type (rc {rc}): {err.strip()[:200]}")

    home = env.fresh_home()
    _, out, err = env.run([env.args.tshark, "-r", path], home=home)
    check(err.strip() == "", f"first run wrote to stderr: {err.strip()[:300]}")
    store = read_store(home)
    want = {"etl.data.string_type": "string", "etl.data.int32_type": "i32", "etl.data.boolean_type": "bool",
            "etl.data.guid_type": "guid", "etl.data.file_time_type": "time", "etl.data.uint16_type": "u16"}
    for k, v in want.items():
        check(store.get(k) == v, f"store {store_path(home)}: {k} -> {store.get(k)!r}, expected {v!r}")

    _, out, err = env.run(cmd, home=home)
    check(out.splitlines() == ["Venus\t-190"] and err.strip() == "",
          f"second run: -Y etl.data.int32_type == -190 -e etl.data.string_type printed {out!r} {err[:200]!r}")
    types = _g_fields(env, home)
    for abbrev, t in (("etl.data.string_type", "FT_STRING"), ("etl.data.int32_type", "FT_INT32"),
                      ("etl.data.guid_type", "FT_GUID"), ("etl.data.file_time_type", "FT_ABSOLUTE_TIME"),
                      ("etl.data.boolean_type", "FT_BOOLEAN")):
        check(types.get(abbrev, ("",))[0] == t, f"-G fields: {abbrev} is {types.get(abbrev)}, expected {t}")
    print(f"  ok second run filters on etl.data.int32_type and prints Venus; {len(store)} fields stored")

    # a store with foreign and damaged lines
    home = env.fresh_home()
    os.makedirs(os.path.dirname(store_path(home)))
    bad_lines = [b"etl.data.no_type_here", b"etl.data.three tokens here", b"etl.data.bad..dots u8",
                 b"etl.data.int32_type string", b"etl.data.ok nosuchtype", b"tcp.port u16",
                 b"etl.data.sp ace u8", b"\xff\xfe\x00binary\x00junk", b"etl.data." + b"x" * 5000 + b" u8"]
    content = (b"# written by hand\n" + b"etl.data.int32_type i32\r\n" + b"\n".join(bad_lines) +
               b"\n\n  etl.data.from_store   u32  \n")
    with open(store_path(home), "wb") as f:
        f.write(content)
    if env.as_user:
        for d in (os.path.join(home, ".config"), os.path.dirname(store_path(home))):
            os.chown(d, env.as_user.pw_uid, env.as_user.pw_gid)
        os.chown(store_path(home), env.as_user.pw_uid, env.as_user.pw_gid)
    rc, out, err = env.run(cmd[:-4] + ["-e", "etl.data.int32_type"], home=home, check=False)
    check(rc == 0 and out.splitlines() == ["-190"],
          f"with a damaged store: rc {rc}, output {out!r}, stderr {err[-300:]!r}")
    ignored = [line for line in err.splitlines() if "line ignored" in line]
    check(len(ignored) == len(bad_lines), f"{len(ignored)} store lines warned about, expected "
                                          f"{len(bad_lines)}: {err[:800]}")
    types = _g_fields(env, home)
    check(types.get("etl.data.from_store") == ("FT_UINT32", "BASE_DEC") and
          types.get("etl.data.int32_type", ("",))[0] == "FT_INT32" and "etl.data.ok" not in types,
          f"fields registered from the damaged store: { {k: v for k, v in types.items()} }")
    with open(store_path(home), "rb") as f:
        after = f.read()
    check(after.startswith(content), "the run did not keep the store's existing lines as they were")
    added = after[len(content):].decode().split()
    check("etl.data.string_type" in added and "etl.data.int32_type" not in added,
          f"fields appended to the damaged store: {added}")
    print(f"  ok damaged store: {len(ignored)} lines warned about, good lines used, new fields appended")

    # a full store (ETLS_FIELDS_MAX = 20000 fields): new fields are shown untyped, with one
    # warning and an expert note, and the generic fields still filter
    home = env.fresh_home()
    os.makedirs(os.path.dirname(store_path(home)))
    with open(store_path(home), "w") as f:
        f.writelines(f"etl.data.filler{i} u32\n" for i in range(20000))
    if env.as_user:
        for d in (os.path.join(home, ".config"), os.path.dirname(store_path(home)), store_path(home)):
            os.chown(d, env.as_user.pw_uid, env.as_user.pw_gid)
    rc, out, err = env.run([env.args.tshark, "-r", path, "-Y", 'etl.kv == "string_type=Venus"', "-T", "fields",
                            "-e", "etl.field.value", "-e", "etl.expert.field_untyped", "-e", "etl.data.filler7"],
                           home=home, check=False)
    ours = [line for line in err.splitlines() if "[etlshark WARNING]" in line]
    check(rc == 0 and out.startswith("Venus,true,V,-95,-190") and len(out.splitlines()) == 1 and
          out.rstrip("\n").split("\t")[1:] == ["1", ""] and
          len(ours) == 1 and "more than 20000" in ours[0] and len(read_store(home)) == 20000,
          f"full store: rc {rc}, output {out[:120]!r}, warnings {ours}")
    print("  ok full store: values shown untyped, one warning, nothing added")

    # a profile folder that cannot be created: one warning, dissection unchanged
    home = env.fresh_home()
    with open(os.path.join(home, ".config"), "w") as f:
        f.write("not a folder\n")
    rc, out, err = env.run([env.args.tshark, "-r", path, "-Y", 'etl.kv == "string_type=Venus"',
                            "-T", "fields", "-e", "etl.field.value"], home=home, check=False)
    ours = [line for line in err.splitlines() if "[etlshark WARNING]" in line]
    check(rc == 0 and out.split("\t")[0].strip().startswith("Venus") and
          sum("not remembered" in line for line in ours) == 1 and
          all("TraceLogging field store" in line for line in ours),
          f"unwritable profile: rc {rc}, output {out[:80]!r}, etlshark's warnings {ours}")
    print("  ok unwritable profile: one warning, same output")


def _golden(path):
    """[(provider, event, {header}, [(field, value)])] and {(provider, event): count}."""
    events, counts = [], {}
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^EVENT ([\d,.]+): ([^/]+)/(\S+) (.*)$", line)
            if m:
                header, fields = {}, []
                for part in m.group(4).split("; "):
                    part = part.strip().rstrip(";")
                    if "=" in part:
                        k, v = part.split("=", 1)
                        (header.__setitem__(k, v) if k in ("PID", "TID", "PName", "ProceNum", "DataLen")
                         else fields.append((k, v)))
                events.append((m.group(2), m.group(3), header, fields))
            m = re.match(r"^COUNT ([^/]+)/(\S+):(\d+)$", line.strip())
            if m:
                counts[(m.group(1), m.group(2))] = int(m.group(3))
    return events, counts


def _golden_same(name, g, show, ftype, notes):
    """Does the golden's printed value g equal our typed value (PDML show of a field of type
    ftype)?  The golden's conventions (goldens/README.md): values over 20 characters cut to 20 +
    '...', thousands separators, False/True, dates as yy/MM/dd HH:mm:ss.ff..."""
    cut = g.endswith("...") and len(g) == 23
    if ftype == "bool":
        return g == ("True" if show == "1" else "False")
    if ftype[0] in "iu" and ftype[1:].isdigit():
        gi, ours = int(g.replace(",", "")), int(show)
        if gi == ours:
            return True
        # int64_type is declared UINT64 in this capture's metadata, so Windows' TDH reads -204 as
        # 18446744073709551412; TraceEvent prints every 64-bit integer signed.  Same 64 bits.
        if ftype == "u64" and gi % (1 << 64) == ours:
            notes.add(f"{name}: {g} (TraceEvent, signed) == {show} (UINT64 per the metadata)")
            return True
        return False
    if ftype == "time":
        when, frac = _ws_time(show)
        gd = g[:-3] if cut else g
        d, t = gd.split(" ")
        sec, _, gfrac = t.partition(".")
        if datetime.datetime.strptime(d + " " + sec, "%y/%m/%d %H:%M:%S") != when:
            return False
        if frac.startswith(gfrac):
            return True
        # TraceEvent prints ".03" for every SYSTEMTIME of this golden, whatever its milliseconds
        # (799, 239, ...; the same instants as file_time_type, which it prints right).
        if name == "system_time_type":
            notes.add(f"{name}: fraction .{gfrac} (TraceEvent) vs .{frac[:3]} (milliseconds)")
            return True
        return False
    if ftype == "string" and len(show) == 1 and re.fullmatch(r"\d+", g):
        # UINT8 with the STRING out-type is a character: Windows shows 'V', TraceEvent its code
        notes.add(f"{name}: {g} (TraceEvent, code) == {show!r} (character)")
        return int(g) == ord(show)
    if cut:
        return show.startswith(g[:-3]) and len(show) > 20
    return g == show


def _filetime_dt(ft):
    return datetime.datetime(1601, 1, 1) + datetime.timedelta(microseconds=ft // 10)


def _highlight_value(ftype, raw, show):
    """Decode the bytes a typed item highlights, independently of the plugin, and compare."""
    if ftype in ("i16", "i32", "i64"):
        return int.from_bytes(raw, "little", signed=True) == int(show)
    if ftype in ("u16", "u32", "u64"):
        return int.from_bytes(raw, "little") == int(show)
    if ftype == "bool":                                      # BOOL32, or UINT8 with BOOLEAN out
        return len(raw) in (1, 4) and (int.from_bytes(raw, "little") != 0) == (show == "1")
    if ftype == "guid":
        return len(raw) == 16 and str(uuid.UUID(bytes_le=raw)) == show
    if ftype == "string":
        if len(raw) == 1:                                    # a character (UINT8, STRING out-type)
            return raw.decode("cp1252") == show
        if len(raw) % 2 == 0 and raw.endswith(b"\0\0"):       # UTF-16LE, NUL-terminated
            return raw.decode("utf-16-le").rstrip("\0") == show
        return raw.rstrip(b"\0").decode("utf-8") == show      # 8-bit, NUL-terminated
    if ftype == "time":
        when, frac = _ws_time(show)
        if len(raw) == 8:
            dt = _filetime_dt(int.from_bytes(raw, "little"))
        elif len(raw) == 16:
            y, mo, _, d, h, mi, s_, ms = struct.unpack("<8H", raw)
            dt = datetime.datetime(y, mo, d, h, mi, s_, ms * 1000)
        else:
            return False
        return dt.replace(microsecond=0) == when and f"{dt.microsecond:06d}" == frac[:6]
    return False


def test_tlgolden(env):
    """The dissection of the primitive-types capture equals TraceEvent's decode on Windows
    (goldens/primitive-types.baseline.txt): event counts, and for every listed event its fields'
    names, order and typed values; each typed item highlights exactly its value's bytes."""
    gpath = os.path.join(env.args.goldens, "primitive-types.baseline.txt")
    if not os.path.exists(gpath):
        raise Failure(f"{gpath} is missing")
    events, counts = _golden(gpath)
    events = [e for e in events if e[0] != "Windows Kernel"]
    counts = {k: v for k, v in counts.items() if k[0] != "Windows Kernel"}
    check(len(events) == 5 and counts, f"golden: {len(events)} events, counts {counts}")
    home = env.fresh_home()
    pkts, err = _pdml(env, env.capture(PRIMITIVE), home=home)
    check(err.strip() == "", f"stderr: {err.strip()[:300]}")
    types = read_store(home)
    tl = [(f, first) for f, first in pkts if _is_tl(f)]
    ours = {}
    for _, first in tl:
        key = (first.get("etl.provider_name"), first.get("etl.event_name"))
        ours[key] = ours.get(key, 0) + 1
    check(ours == counts, f"events by provider/name {ours} != golden {counts}")
    notes = set()
    for (provider, event, header, gfields), (fields, first) in zip(events, tl):
        what = f"{event} {gfields[0][1]}"
        check((first.get("etl.provider_name"), first.get("etl.event_name")) == (provider, event),
              f"{what}: provider/event {first.get('etl.provider_name')}/{first.get('etl.event_name')}")
        for k, f in (("PID", "etl.pid"), ("TID", "etl.tid"), ("ProceNum", "etl.cpu"), ("DataLen", "etl.payload_size")):
            check(int(header[k].replace(",", "")) == int(first.get(f)), f"{what}: {k}={header[k]} but {f}={first.get(f)}")
        typed = _typed(fields)
        check([n for n, _, _ in typed] == [n for n, _ in gfields],
              f"{what}: fields {[n for n, _, _ in typed]} != golden {[n for n, _ in gfields]}")
        payload = [fe for fe in fields if fe.get("name") == "etl.payload"][0]
        p_start, p_end = int(payload.get("pos")), int(payload.get("pos")) + int(payload.get("size"))
        kvs = _shows(fields, "etl.kv")
        values = _shows(fields, "etl.field.value")
        for (gname, gval), (name, show, fe) in zip(gfields, typed):
            ftype = types.get("etl.data." + name, "?")
            check(_golden_same(name, gval, show, ftype, notes),
                  f"{what}: {name}: golden {gval!r} vs ours {show!r} ({ftype})")
            pos, size = int(fe.get("pos")), int(fe.get("size"))
            raw = bytes.fromhex(fe.get("value"))
            check(p_start <= pos and pos + size <= p_end and len(raw) == size,
                  f"{what}: {name} highlights {pos}+{size}, outside the payload {p_start}..{p_end}")
            check(_highlight_value(ftype, raw, show),
                  f"{what}: {name}: the highlighted bytes {raw.hex()} do not hold {show!r}")
        check(len(kvs) == len(gfields) and all(kv == f"{n}={v}" for kv, (n, _, _), v in zip(kvs, typed, values)),
              f"{what}: etl.kv {kvs} does not pair names with etl.field.value {values}")
        print(f"  ok {what}: {len(gfields)} fields equal the golden, highlights checked")
    for n in sorted(notes):
        print(f"  allowed: {n}")


def test_tlcorpus(env):
    """Every TraceLogging event of the real TraceLogging captures shows an event name and no
    unsupported placeholder; etl.event_name counts equal expected.json's tl_event_names; provider
    names (also remembered for events without traits) are the ones the trace declares; a few
    values checked against the bytes by hand."""
    for name in TL_CORPUS:
        exp = env.expected[name]
        fields = ["frame.number", "etl.ext.type", "etl.event_name", "etl.provider_name", "etl.provider",
                  "etl.data_unsupported", "etl.data_trailing", "_ws.expert.message"]
        _, out, err = env.run([env.args.tshark, "-r", env.capture(name), "-T", "fields",
                               "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"] +
                              [a for f in fields for a in ("-e", f)])
        check(err.strip() == "", f"{name}: stderr: {err.strip()[:300]}")
        rows = [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]
        check(len(rows) == exp["records"], f"{name}: {len(rows)} frames, expected {exp['records']}")
        tl = [r for r in rows if str(EXT_SCHEMA_TL) in r["etl.ext.type"].split("|")]
        check(len(tl) == exp["tl_events"], f"{name}: {len(tl)} TraceLogging frames, expected {exp['tl_events']}")
        nameless = [r["frame.number"] for r in tl if not r["etl.event_name"]]
        check(not nameless, f"{name}: TraceLogging frames without an event name: {nameless[:10]}")
        bad = [(r["frame.number"], r["_ws.expert.message"]) for r in tl
               if r["etl.data_unsupported"] or r["etl.data_trailing"] or "cannot be decoded" in r["_ws.expert.message"]]
        check(not bad, f"{name}: frames with undecoded field data: {bad[:5]}")
        names = {}
        for r in tl:
            names[r["etl.event_name"]] = names.get(r["etl.event_name"], 0) + 1
        check(names == exp["tl_event_names"], f"{name}: event names {names} != {exp['tl_event_names']}")
        # Frames outside TraceLogging are named too when they are manifest events with a schema
        # (EventSource manifests, carried schemas): the mf* tests compare those with etldump.
        for guid, pname in exp["provider_names_in_trace"].items():
            mine = {r["etl.provider_name"] for r in rows if r["etl.provider"] == guid}
            check(mine == {pname}, f"{name}: provider {guid} named {mine}, expected {{{pname!r}}}")
        print(f"  ok {name}: {len(tl)} TraceLogging events, {names}")
    # Microsoft-Diagnostics-DiagnosticSource in the diaghub user capture: all 256 named and typed
    name = "perfview_diaghub_user_paged_clr_tl.etl"
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y",
                         'etl.provider_name == "Microsoft-Diagnostics-DiagnosticSource"', "-T", "fields",
                         "-e", "etl.event_name", "-e", "etl.data"])
    rows = [line.split("\t") for line in out.splitlines()]
    check(len(rows) == 256 and all(r[0] for r in rows),
          f"{name}: {len(rows)} DiagnosticSource events ({sum(1 for r in rows if not r[0])} unnamed), expected 256")

    # values, by hand from the payload bytes (as the etldump tests check them)
    home = env.fresh_home()
    pkts, _ = _pdml(env, env.capture("etlparser_lxcore_kernel_tracelogging.etl"), home=home,
                    extra=["-Y", 'etl.event_name == "BreakPoint"'])
    f0 = pkts[0][1]
    check(f0.get("etl.data.Function") == "LxpDrvFsTypeMount" and f0.get("etl.data.LxPid") == "-1"
          and f0.get("etl.data.instanceId") == "00000000-0000-0000-0000-000000000000",
          f"lxcore BreakPoint: {[(n, v) for n, v, _ in _typed(pkts[0][0])]}")
    pkts, _ = _pdml(env, env.capture("perfview_SelfDescribingSingleEvent_tl_compressed.etl"),
                    extra=["-Y", 'etl.event_name == "TestEvent"'])
    check([(n, v) for n, v, _ in _typed(pkts[0][0])] == [("a.b", "Hello"), ("a.c", "World!")] and
          _shows(pkts[0][0], "etl.kv") == ["a.b=Hello", "a.c=World!"] and
          any(fe.get("show") == "a" and fe.get("name") == "" for fe in pkts[0][0]),
          f"SelfDescribing TestEvent: {[(fe.get('name'), fe.get('show')) for fe in pkts[0][0]][-12:]}")
    pkts, _ = _pdml(env, env.capture("perfview_diaghub_user_paged_clr_tl.etl"),
                    extra=["-Y", 'etl.event_name == "Activity1Start"'])
    kv = _shows(pkts[0][0], "etl.kv")
    check("Arguments.Key=IsAsync" in kv and "Arguments.Value=False" in kv and
          any(fe.get("show") == "Arguments[1]" for fe in pkts[0][0]),
          f"Activity1Start arguments: {kv}")
    pkts, _ = _pdml(env, env.capture("etlparser_AMSITrace_tracelogging.etl"),
                    extra=["-Y", 'etl.event_name == "AmsiScript"'])
    same = [p[1].get("etl.data.Raw_Script") == p[1].get("etl.data.Script") and p[1].get("etl.data.Script")
            for p in pkts]
    check(len(pkts) == 19 and all(same), "AMSI: the char array 'Raw Script' does not read as 'Script'")
    print("  ok values: lxcore BreakPoint, TestEvent struct a.b/a.c, DiagnosticSource arguments, AMSI char array")


TL64_EXPECT = {
    # event name -> [(path, typed show of each occurrence)], from tests/etlgen/etlgen_presets.c
    "AllScalars": [("I8", "-5"), ("U8", "200"), ("I16", "-1234"), ("U16", "0xbeef"), ("I32", "-100000"),
                   ("U32", "4000000000"), ("I64", "-5000000000000"), ("U64", "18000000000000000000"),
                   ("F32", "1.5"), ("F64", "-2.25"), ("Bool", "1"), ("Guid", "01234567-89ab-cdef-0123-456789abcdef"),
                   ("FileTime", "Jan  2, 2024 03:04:05.000000000 UTC"),
                   ("SystemTime", "Jan  2, 2024 03:04:05.678000000 UTC"),
                   ("Sid", "S-1-5-21-1004336348-1177238915-682003330-1001"), ("Hex32", "0xdeadbeef"),
                   ("Hex64", "0x00007ff612345678"), ("Wide", "Gr\u00fc\u00dfe \u20ac \U0001F600"),
                   ("Narrow", "plain ascii"), ("CountedWide", "counted \u2713"), ("CountedNarrow", "counted ansi"),
                   ("Binary", "de:ad:be:ef"), ("CountedBinary", "01:02:03")],
    "Nested": [("Point.X", "-7"), ("Point.Y", "12"), ("Outer.Name", "outer"), ("Outer.Inner.A", "165"),
               ("Outer.Inner.B", "0x1234"), ("Outer.Tag", "99"), ("Pairs.Key", "1"), ("Pairs.Value", "one"),
               ("Pairs.Key", "2"), ("Pairs.Value", "two")] + [("Grid.Row", str(v)) for v in (-1, 0, 1, 9, 10, 11)],
    # Status and Flag are kernel event fields of other types (a pointer, an INT8), registered at
    # every start: these two take the type suffix by the naming rule
    "Formats": [("Pid", "4242"), ("Tid", "5001"), ("Port", "443"), ("IPv4", "192.168.1.20"), ("IPv6", "2001:db8::1"),
                ("Status_x32", "0xc0000005"), ("Result", "0x80070005"), ("Error", "2"), ("Flag_bool", "1"),
                ("Letter", "Z"),
                ("Json", '{"k":[1,2]}'), ("When", "Jan  2, 2024 03:04:05.000000000 UTC"), ("Tagged", "7"),
                ("Pointer", "0x00007ff6abcd1234")],
    "Custom": [("Before", "286331153"), ("Opaque", "0a:03:65:74:6c"), ("After", "572662306")],
}
TL64_TYPES = {
    "etl.data.I8": ("FT_INT8", "BASE_DEC"), "etl.data.U16": ("FT_UINT16", "BASE_HEX"),
    "etl.data.I64": ("FT_INT64", "BASE_DEC"), "etl.data.U64": ("FT_UINT64", "BASE_DEC"),
    "etl.data.F32": ("FT_DOUBLE", ""), "etl.data.Bool": ("FT_BOOLEAN", "0"), "etl.data.Guid": ("FT_GUID", ""),
    "etl.data.FileTime": ("FT_ABSOLUTE_TIME", ""), "etl.data.Wide": ("FT_STRING", ""),
    "etl.data.Binary": ("FT_BYTES", ""), "etl.data.Port": ("FT_UINT16", "BASE_DEC"),
    "etl.data.IPv4": ("FT_IPv4", ""), "etl.data.IPv6": ("FT_IPv6", ""), "etl.data.Status_x32": ("FT_UINT32", "BASE_HEX"),
    "etl.data.Pointer": ("FT_UINT64", "BASE_HEX"), "etl.data.Outer.Inner.B": ("FT_UINT16", "BASE_HEX"),
    "etl.data.Pairs.Value": ("FT_STRING", ""), "etl.data.Grid.Row": ("FT_INT16", "BASE_DEC"),
    "etl.data.Opaque": ("FT_BYTES", ""),
}


def test_tlgenerated(env):
    """captures/tl64.etl (tests/etlgen preset tl64) dissects to the values the generator wrote:
    every scalar type, arrays, nested structs, out-types, a custom field; with the Wireshark types
    the rule gives them, arrays and structs as subtrees with indexed elements."""
    name = "tl64.etl"
    if name not in env.generated:
        raise Failure(f"{name} is not in {env.args.repo_captures}")
    home = env.fresh_home()
    pkts, err = _pdml(env, env.capture(name), home=home)
    check(err.strip() == "", f"stderr: {err.strip()[:300]}")
    tl = [(f, first) for f, first in pkts if _is_tl(f)]
    names = {}
    for _, first in tl:
        names[first["etl.event_name"]] = names.get(first["etl.event_name"], 0) + 1
    check(names == {"Hello": 5, "AllScalars": 1, "Arrays": 2, "Nested": 1, "Formats": 1, "Custom": 1, "Work": 2},
          f"tl64 event names {names}")
    check(all(first.get("etl.provider_name") == "Etlshark.Test" for _, first in tl), "tl64: provider name")
    for fields, first in tl:
        ev = first["etl.event_name"]
        got = [(n, v) for n, v, _ in _typed(fields)]
        check(not _shows(fields, "etl.data_unsupported"), f"tl64 {ev}: unsupported data")
        if ev in TL64_EXPECT:
            check(got == TL64_EXPECT[ev], f"tl64 {ev}: {got}\n  expected {TL64_EXPECT[ev]}")
    hello = [[v for _, v, _ in _typed(f)] for f, first in tl if first["etl.event_name"] == "Hello"]
    check(hello == [[f"hello from etlshark #{n}", str(n), str(n % 2)] for n in range(5)], f"tl64 Hello: {hello}")
    arrays = [[(n, v) for n, v, _ in _typed(f)] for f, first in tl if first["etl.event_name"] == "Arrays"]
    guids = [("Guids", "11111111-2222-3333-4444-555555555555"), ("Guids", "66666666-7777-8888-9999-aaaaaaaaaaaa")]
    want = [[("Fixed", str(10 * (i + 1) + v)) for i in range(4)] +
            [("Var", str(0x100 + i)) for i in range(3 + v)] +
            [("Names", "alpha"), ("Names", "" if v else "beta")] + guids for v in (0, 1)]
    check(arrays == want, f"tl64 Arrays: {arrays}\n  expected {want}")
    work = [[(n, v) for n, v, _ in _typed(f)] for f, first in tl if first["etl.event_name"] == "Work"]
    check(work == [[("Item", "job-1"), ("Step", "1")], [("Item", "job-1"), ("Step", "2")]], f"tl64 Work: {work}")
    # containers: subtrees with element indexes (text items of the tree)
    nested = [f for f, first in tl if first["etl.event_name"] == "Nested"][0]
    labels = [fe.get("show") for fe in nested if fe.get("name") == ""]
    for want_label in ("Point", "Outer", "Inner", "Pairs (2 elements)", "Pairs[0]", "Pairs[1]", "Grid (2 elements)",
                       "Grid[1]", "Row (3 elements)"):
        check(want_label in labels, f"tl64 Nested: no subtree {want_label!r} in {labels}")
    shown = [fe.get("showname") for fe in nested if fe.get("name") == "etl.data.Grid.Row"]
    check(shown == ["Row[0]: -1", "Row[1]: 0", "Row[2]: 1", "Row[0]: 9", "Row[1]: 10", "Row[2]: 11"],
          f"tl64 Nested: element labels {shown}")
    b = [fe for fe in nested if fe.get("name") == "etl.data.Outer.Inner.B"][0]
    check(b.get("size") == "2" and b.get("value") == "3412" and b.get("showname") == "B: 0x1234",
          f"tl64 Outer.Inner.B highlights {b.get('size')} bytes {b.get('value')} ({b.get('showname')})")
    types = _g_fields(env, home)
    for abbrev, t in TL64_TYPES.items():
        check(types.get(abbrev) == t, f"tl64: {abbrev} is {types.get(abbrev)}, expected {t}")
    print(f"  ok tl64: {len(tl)} events, values of {sum(len(v) for v in TL64_EXPECT.values())} fields, "
          f"{len(TL64_TYPES)} field types, subtrees")


def _tlclash_captures(env):
    if not env.args.tlclash_gen or not os.path.exists(env.args.tlclash_gen):
        raise Failure("--tlclash-gen (the built tests/plugin/tlclash_gen) is needed")
    paths = {}
    for variant, extra in (("tlclash.etl", []), ("tlclash_rev.etl", ["--reverse"])):
        path = os.path.join(env.root, variant)
        subprocess.run([env.args.tlclash_gen] + extra + ["-o", path], check=True)
        os.chmod(path, 0o644)
        paths[variant] = path
    return paths


def test_tlclash(env):
    """One field name with two types gets two fields by the rule (plain name for the first type,
    <name>_<type> for the other, <name>_<type>_<n> past a real field of that name); both filter
    correctly in the next run, the choice is kept when the types come in the other order, and a
    mistyped comparison is an error, never a crash.  Also: odd names sanitised, placeholders shown
    with their bytes and expert info while the next frames decode."""
    caps = _tlclash_captures(env)
    home = env.fresh_home()
    pkts, err = _pdml(env, caps["tlclash.etl"], home=home)
    check(err.strip() == "", f"stderr: {err.strip()[:300]}")
    ev = [(first.get("etl.event_name"), [(n, v) for n, v, _ in _typed(f)], f) for f, first in pkts
          if _is_tl(f)]
    want = [
        ("First", [("Tally", "7"), ("Label", "alpha")]),
        ("Second", [("Tally_string", "seven"), ("Label_u64", "5")]),
        ("Third", [("Tally_string_u32", "9")]),
        ("Odd", [("Raw_Script", "x = 1"), ("a_b", "3"), ("_dash", "-2"), ("_", "11"), ("Gr____e", "12"),
                 ("S.x", "1"), ("S.x_2", "2")]),
        ("Short", [("Before", "16909060")]),
        ("Future", [("A", "5")]),
        ("First", [("Tally", "8"), ("Label", "beta")]),
    ]
    check([(e, t) for e, t, _ in ev] == want, f"tlclash fields {[(e, t) for e, t, _ in ev]}\n  expected {want}")
    odd = ev[3][2]
    check(_shows(odd, "etl.field.name") == ["Raw Script", "a.b", "-dash", "", "Gr\u00fc\u00dfe", "S.x", "S.x_2"],
          f"tlclash Odd: original names {_shows(odd, 'etl.field.name')}")
    for i, nbytes, reason in ((4, "aa:bb:cc", "Missing"), (5, "dd:dd:dd:dd:06:00:00:00", "unknown in-type 27")):
        f = ev[i][2]
        un = _shows(f, "etl.data_unsupported")
        expert = [fe.get("show") for fe in f if fe.get("name") == "_ws.expert.message"]
        check(un == [nbytes] and any(reason in x for x in expert) and
              not _shows(ev[6][2], "etl.data_unsupported"),
              f"tlclash {ev[i][0]}: unsupported {un}, expert {expert}")
    store = read_store(home)
    for k, v in (("etl.data.Tally", "u32"), ("etl.data.Tally_string", "string"), ("etl.data.Label", "string"),
                 ("etl.data.Label_u64", "u64"), ("etl.data.Tally_string_u32", "u32")):
        check(store.get(k) == v, f"tlclash store: {k} -> {store.get(k)!r}, expected {v!r}")
    with open(store_path(home), "rb") as f:
        stored = f.read()

    # the next run, same profile, the types met the other way round: same names, both filter
    for flt, want_event in (("etl.data.Tally == 7", "First"), ('etl.data.Tally_string == "seven"', "Second"),
                            ("etl.data.Label_u64 == 5", "Second"), ('etl.data.Label == "alpha"', "First"),
                            ("etl.data.Tally_string_u32 == 9", "Third"), ("etl.data.Tally > 7", "First")):
        rc, out, err = env.run([env.args.tshark, "-r", caps["tlclash_rev.etl"], "-Y", flt, "-T", "fields",
                                "-e", "etl.event_name", "-e", "etl.data.Tally", "-e", "etl.data.Tally_string"],
                               home=home, check=False)
        check(rc == 0 and out.split("\t")[0] == want_event and len(out.splitlines()) == 1,
              f"next run -Y '{flt}': rc {rc}, {out!r} {err.strip()[:200]}")
    # comparisons of the wrong type: a clean error (the numeric field), or a text comparison that
    # matches nothing (Wireshark reads 7 as the text "7" for a string field) - never a crash
    for flt, must_fail in (('etl.data.Tally == "seven"', True), ('etl.data.Label_u64 == "alpha"', True),
                           ("etl.data.Tally_string == 7", False)):
        rc, out, err = env.run([env.args.tshark, "-r", caps["tlclash.etl"], "-Y", flt], home=home, check=False)
        ok = (rc != 0 and rc > 0 and "etl.data." in err) if must_fail else (rc == 0 and out.strip() == "")
        if not must_fail and newer_than_40(env.ws_xy):
            # after 4.0 Wireshark refuses 7 for a string field (a clean filter error) instead
            ok = ok or (0 < rc < 128 and "cannot be converted" in err)
        check(ok, f"-Y '{flt}' (wrong type for the field): rc {rc}, stdout {out[:100]!r} stderr {err.strip()[:200]}")
    with open(store_path(home), "rb") as f:
        check(f.read() == stored, "the store changed although the second run met no new field")
    one, _, _ = env.run_hash([env.args.tshark, "-r", caps["tlclash_rev.etl"], "-V", "-x"], home=home)
    two, _, _ = env.run_hash([env.args.tshark, "-2", "-r", caps["tlclash_rev.etl"], "-V", "-x"], home=home)
    check(one == two, "tlclash_rev: two-pass output differs from one-pass")

    # control: without the store the order decides - the reversed file in a fresh profile
    pkts, _ = _pdml(env, caps["tlclash_rev.etl"])
    first = [(n, v) for f, fi in pkts if fi.get("etl.event_name") in ("First", "Second") for n, v, _ in _typed(f)]
    check(first[:4] == [("Tally", "seven"), ("Label", "5"), ("Tally_u32", "7"), ("Label_string", "alpha")],
          f"fresh profile, reversed order: {first[:4]}")
    print("  ok Tally u32/string -> etl.data.Tally, etl.data.Tally_string, Tally_string_u32; stable across "
          "runs and orders; mistyped filters rejected cleanly; placeholders shown")



# ---- manifest-based events --------------------------------------------------------------------

MF_ENV = "ETLSHARK_MANIFEST_PATH"


def _manifests(env):
    """A copy of the shared manifests the test user can read (None when there are none)."""
    src = env.args.manifests
    if not src or not os.path.isdir(src):
        return None
    dst = os.path.join(env.root, "manifests")
    if not os.path.isdir(dst):
        shutil.copytree(src, dst)
        os.chmod(dst, 0o755)
        for name in os.listdir(dst):
            os.chmod(os.path.join(dst, name), 0o644)
    return dst


def _etldump(env, name, manifest_path=None):
    """etldump's records of a capture (JSON objects), with `manifest_path` as the only search
    path (the environment's ETLSHARK_MANIFEST_PATH is not passed on)."""
    cmd = [env.args.etldump]
    if manifest_path:
        cmd += ["--manifest-path", manifest_path]
    cmd.append(env.capture(name))
    e = {k: v for k, v in os.environ.items() if k != MF_ENV}
    p = subprocess.run(cmd, capture_output=True, timeout=900, env=e)
    if p.returncode not in (0, 1):
        raise Failure(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[:500]}")
    recs = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return recs


def _mf_pre(env, names):
    if not env.args.etldump or not os.path.exists(env.args.etldump):
        print("SKIP: --etldump not given")
        return False
    for name in names:
        if name not in env.expected and not os.path.exists(env.capture(name)):
            print(f"SKIP: {name} is not in the corpus")
            return False
    return True


def _name_counts_tshark(env, name, extra_env=None):
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-T", "fields",
                         "-E", "occurrence=f", "-e", "etl.provider_name", "-e", "etl.event_name"],
                        extra_env=extra_env)
    counts = collections.Counter()
    for line in out.splitlines():
        prov, _, ev = line.partition("\t")
        if ev:
            counts[(prov, ev)] += 1
    return counts


def _name_counts_etldump(recs):
    return collections.Counter((r.get("provider_name", ""), r["event_name"]) for r in recs
                               if "event_name" in r)


def test_mffilter(env):
    """With ETLSHARK_MANIFEST_PATH on the manifests at start-up, in a fresh profile, one run of
    -Y 'etl.data.ProcessID == N' selects exactly the records etldump gives ProcessID N."""
    name = "tx_Process_kernelprocess_manifest.etl"
    mf = _manifests(env)
    if mf is None or not _mf_pre(env, [name]):
        return SKIP
    recs = _etldump(env, name, mf)
    pids = collections.Counter()
    for r in recs:
        pid = r.get("fields", {}).get("ProcessID") if isinstance(r.get("fields"), dict) else None
        if isinstance(pid, int):
            pids[pid] += 1
    check(len(pids) >= 2, f"{name}: etldump finds fewer than two ProcessID values: {dict(pids)}")
    # the least frequent value: a filter that matched everything would not pass
    pid = min(pids, key=lambda k: (pids[k], k))
    want = sorted(r["position"] for r in recs
                  if isinstance(r.get("fields"), dict) and r["fields"].get("ProcessID") == pid)
    home = env.fresh_home()
    check(not os.path.exists(store_path(home)), "fresh profile has a field store")
    _, out, err = env.run([env.args.tshark, "-r", env.capture(name), "-Y", f"etl.data.ProcessID == {pid}",
                           "-T", "fields", "-e", "etl.position", "-e", "etl.event_name",
                           "-e", "etl.message"],
                          home=home, extra_env={MF_ENV: mf})
    got = sorted(int(line.split("\t")[0], 0) for line in out.splitlines() if line.strip())
    check(got == want, f"{name}: -Y ProcessID == {pid}: {len(got)} frames, etldump says {len(want)}")
    check(all(line.split("\t")[1] for line in out.splitlines() if line.strip()),
          f"{name}: selected frames without etl.event_name")
    print(f"  ok ProcessID == {pid}: {len(got)} frames in one run, as etldump")
    # the same with the preference instead of the environment (-o applies it before -Y)
    _, out, _ = env.run([env.args.tshark, "-o", f"etl.manifest_path:{mf}", "-r", env.capture(name),
                         "-Y", f"etl.data.ProcessID == {pid}", "-T", "fields", "-e", "etl.position"])
    got = sorted(int(line.split("\t")[0], 0) for line in out.splitlines() if line.strip())
    check(got == want, f"{name}: -o etl.manifest_path, -Y ProcessID == {pid}: {len(got)} frames, "
          f"etldump says {len(want)}")
    print(f"  ok the same with -o etl.manifest_path")
    # every manifest event named as etldump names it, message included
    keys = ["event_name", "task_name", "opcode_name", "level_name", "channel_name", "keywords_name",
            "provider_name", "message"]
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-T", "fields", "-E", "occurrence=f",
                         "-e", "etl.position"] + [a for k in keys for a in ("-e", "etl." + k)],
                        extra_env={MF_ENV: mf})
    ws = {int(line.split("\t")[0], 0): dict(zip(keys, line.split("\t")[1:]))
          for line in out.splitlines() if line.startswith("0x")}
    n = 0
    for r in recs:
        if "event_name" not in r:
            continue
        n += 1
        mine = ws.get(r["position"], {})
        for k in keys:
            if k == "message" and ("\n" in r.get(k, "") or "\t" in r.get(k, "")):
                continue
            check(mine.get(k, "") == r.get(k, ""),
                  f"{name}: record {r['position']:#x}: {k} {mine.get(k)!r}, etldump {r.get(k)!r}")
    check(n > 0, f"{name}: etldump names no event")
    print(f"  ok {n} events: {', '.join(keys)} as etldump")


def test_mfcountedarray(env):
    """A typed field inside an array counted by another field (GC/PerHeapHistory's Values[Count]
    of the CLR manifest) is registered at start-up from the schema itself - not from a zeroed
    payload, where the count reads 0 and the array's fields never show - so in the FIRST run in
    a fresh profile -Y 'etl.data.Values.SizeBefore == V' selects exactly the records etldump
    gives an element with SizeBefore V."""
    name = "perfview_gcevents_clr.etl"
    mf = _manifests(env)
    if mf is None or not _mf_pre(env, [name]):
        return SKIP
    recs = _etldump(env, name, mf)
    per_value = collections.defaultdict(set)
    for r in recs:
        values = r.get("fields", {}).get("Values") if isinstance(r.get("fields"), dict) else None
        for el in values if isinstance(values, list) else []:
            if isinstance(el, dict) and isinstance(el.get("SizeBefore"), str):
                per_value[int(el["SizeBefore"], 16)].add(r["position"])
    check(len(per_value) >= 2, f"{name}: etldump finds fewer than two Values.SizeBefore values")
    with_values = set().union(*per_value.values())
    # the value in the fewest records: a filter that matched every PerHeapHistory would not pass
    v = min(per_value, key=lambda k: (len(per_value[k]), k))
    want = sorted(per_value[v])
    check(len(want) < len(with_values), f"{name}: SizeBefore {v:#x} is in every record with Values")
    home = env.fresh_home()
    check(not os.path.exists(store_path(home)), "fresh profile has a field store")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y", f"etl.data.Values.SizeBefore == {v:#x}",
                         "-T", "fields", "-e", "etl.position", "-e", "etl.event_name"],
                        home=home, extra_env={MF_ENV: mf})
    got = sorted(int(line.split("\t")[0], 0) for line in out.splitlines() if line.strip())
    check(got == want, f"{name}: -Y Values.SizeBefore == {v:#x}: {len(got)} frames, etldump says {len(want)}")
    print(f"  ok Values.SizeBefore == {v:#x}: {len(got)} of {len(with_values)} PerHeapHistory frames, "
          f"first run, fresh profile")


def test_mfcounts(env):
    """etl.event_name counts equal etldump's: perfview_gcevents_clr.etl with the manifests on
    ETLSHARK_MANIFEST_PATH; perfview_net452_x64_merged_compressed.etl with no manifest path
    (DNS-Client, Kernel-File, TplEventSource from the schemas the trace carries and its
    EventSource manifests); tx_BondEtwSample_eventsource.etl (its 12 events from the in-stream
    manifest)."""
    gc, net, bond = ("perfview_gcevents_clr.etl", "perfview_net452_x64_merged_compressed.etl",
                     "tx_BondEtwSample_eventsource.etl")
    mf = _manifests(env)
    if mf is None or not _mf_pre(env, [gc, net, bond]):
        return SKIP

    recs_gc = _etldump(env, gc, mf)
    want = _name_counts_etldump(recs_gc)
    got = _name_counts_tshark(env, gc, {MF_ENV: mf})
    check(sum(want.values()) > 0, f"{gc}: etldump names no event")
    check(got == want, f"{gc}: event_name counts differ from etldump's: "
          f"{sorted((k, got[k], want[k]) for k in set(got) | set(want) if got[k] != want[k])[:10]}")
    print(f"  ok {gc}: {sum(got.values())} events in {len(got)} kinds, as etldump")
    # every scalar field's Name=Value (map names included: Type=SmallObjectHeap) as etldump has it
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(gc), "-T", "fields", "-E", "occurrence=a",
                         "-E", "aggregator=\x1e", "-e", "etl.position", "-e", "etl.kv"],
                        extra_env={MF_ENV: mf})
    kv = {}
    lines = []
    for line in out.rstrip("\n").split("\n"):  # a value with a line break continues its line
        if line.startswith("0x") or not lines:
            lines.append(line)
        else:
            lines[-1] += "\n" + line
    for line in lines:
        pos, _, rest = line.partition("\t")
        if pos:
            kv[int(pos, 0)] = set(rest.split("\x1e")) if rest else set()
    n = 0
    mapped = 0
    for r in recs_gc:
        if "event_name" not in r or not isinstance(r.get("fields"), dict) or \
                not r.get("header_type", "").startswith("EVENT_HEADER"):
            continue
        for k, v in r["fields"].items():
            if isinstance(v, (dict, list)):
                continue
            t = v if isinstance(v, str) else ("true" if v is True else "false" if v is False else str(v))
            have = kv.get(r["position"], set())
            # etldump writes GUIDs without the braces Windows shows
            check(f"{k}={t}" in have or f"{k}={{{t}}}" in have,
                  f"{gc}: record {r['position']:#x} {r['event_name']}: {k}={t!r} not among "
                  f"{sorted(x for x in have if x.startswith(k + '='))}")
            n += 1
            mapped += k == "Type" and t.endswith("Heap")
    check(n > 0 and mapped > 0, f"{gc}: {n} fields compared, {mapped} mapped Type values")
    print(f"  ok {gc}: {n} field values as etldump ({mapped} mapped Type=...Heap)")
    # the typed field keeps the number; its item's text shows the name
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(gc), "-Y", 'etl.kv == "Type=SmallObjectHeap"',
                         "-T", "fields", "-e", "etl.data.Type"], extra_env={MF_ENV: mf})
    vals = [line.strip() for line in out.splitlines() if line.strip()]
    check(vals and all(v.isdigit() for v in vals), f"{gc}: etl.data.Type of SmallObjectHeap events: {vals}")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(gc), "-Y", 'etl.kv == "Type=SmallObjectHeap"',
                         "-V", "-c", "1000"], extra_env={MF_ENV: mf})
    check("Type: SmallObjectHeap" in out, f"{gc}: no 'Type: SmallObjectHeap' item text")

    want = _name_counts_etldump(_etldump(env, net))
    got = _name_counts_tshark(env, net)
    for prov in ("Microsoft-Windows-DNS-Client", "Microsoft-Windows-Kernel-File",
                 "System.Threading.Tasks.TplEventSource"):
        w = {k: v for k, v in want.items() if k[0] == prov}
        g = {k: v for k, v in got.items() if k[0] == prov}
        check(w, f"{net}: etldump names no event of {prov}")
        check(g == w, f"{net}: {prov}: {g} but etldump says {w}")
        print(f"  ok {net}: {prov}: {sum(g.values())} events, as etldump")
    check(got == want, f"{net}: event_name counts differ from etldump's: "
          f"{sorted((k, got[k], want[k]) for k in set(got) | set(want) if got[k] != want[k])[:10]}")

    want = _name_counts_etldump(_etldump(env, bond))
    got = _name_counts_tshark(env, bond)
    check(sum(v for k, v in got.items() if k[0] != "Windows Kernel") == 12 and got == want,
          f"{bond}: {dict(got)} but etldump says {dict(want)} (12 events besides the logfile header)")
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(bond), "-Y", "etl.data_unsupported or _ws.expert",
                         "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message"])
    check("no schema for" not in out, f"{bond}: events without a schema: {out[:300]}")
    print(f"  ok {bond}: 12 events from the in-stream manifest")


def test_mfmissing(env):
    """Without a manifest, a manifest event shows its raw payload with expert info naming the
    provider, id and version and how to add a manifest."""
    name = "tx_Process_kernelprocess_manifest.etl"
    if not _mf_pre(env, [name]):
        return SKIP
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-Y", "etl.expert.schema_missing",
                         "-T", "fields", "-e", "_ws.expert.message"])
    lines = [line for line in out.splitlines() if line.strip()]
    check(lines, f"{name}: no frame has etl.expert.schema_missing without a manifest path")
    check("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716" in lines[0] and "event id" in lines[0]
          and "version" in lines[0] and "etl.manifest_path" in lines[0] and MF_ENV in lines[0],
          f"{name}: expert message: {lines[0][:300]}")
    print(f"  ok {len(lines)} frames: {lines[0][:120]}...")


def test_mfbadmanifest(env):
    """A manifest that does not parse is reported once, naming its file and line; the other
    manifests of the path still load (their typed fields filter in the first run)."""
    name = "tx_Process_kernelprocess_manifest.etl"
    mf = _manifests(env)
    if mf is None or not _mf_pre(env, [name]):
        return SKIP
    folder = os.path.join(env.root, "badmanifests")
    os.makedirs(folder)
    shutil.copyfile(os.path.join(mf, "Microsoft-Windows-Kernel-Process.xml"),
                    os.path.join(folder, "Microsoft-Windows-Kernel-Process.xml"))
    with open(os.path.join(folder, "a_broken.man"), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0"?>\n'
                '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">\n'
                '<instrumentation><events>\n'
                '<provider name="Broken" guid="{11111111-2222-3333-4444-555555555555}">\n'
                '<events><event value="1" </events>\n'
                '</provider></events></instrumentation></instrumentationManifest>\n')
    os.chmod(folder, 0o755)
    for n in os.listdir(folder):
        os.chmod(os.path.join(folder, n), 0o644)
    _, out, err = env.run([env.args.tshark, "-r", env.capture(name), "-Y", "etl.data.ProcessID == 852",
                           "-T", "fields", "-e", "etl.event_name"], extra_env={MF_ENV: folder})
    bad = os.path.join(folder, "a_broken.man")
    reports = [line for line in err.splitlines() if bad + ":5:" in line]
    check(len(reports) == 1, f"a_broken.man: {len(reports)} reports naming it with line 5, expected one: "
          f"{err.strip()[:500]}")
    check([line for line in out.splitlines() if line.strip()],
          f"{name}: no frame selected by etl.data.ProcessID with the good manifest beside the broken one")
    print(f"  ok reported once: {reports[0][reports[0].find(bad):][:120]}; the other manifest loaded")


def test_mftwopass(env):
    """With the manifests on the path, two-pass output equals one-pass output on the manifest
    captures."""
    mf = _manifests(env)
    names = ["tx_Process_kernelprocess_manifest.etl", "tx_BondEtwSample_eventsource.etl",
             "perfview_gcevents_clr.etl"]
    if mf is None or not _mf_pre(env, names):
        return SKIP
    for name in names:
        cmd = [env.args.tshark, "-r", env.capture(name), "-V", "-x"]
        one, n1, _ = env.run_hash(cmd, extra_env={MF_ENV: mf})
        two, n2, _ = env.run_hash(cmd[:1] + ["-2"] + cmd[1:], extra_env={MF_ENV: mf})
        check(n1 > 0 and one == two, f"{name}: two-pass output ({n2} bytes) differs from one-pass ({n1} bytes)")
        print(f"  ok {name}: {n1} bytes identical")


# ---- classic kernel events, processes, stack walks --------------------------------------------

NET452 = "perfview_net452_x64_merged_compressed.etl"
KERNEL_CAPTURES = ["etlparser_ShutdownPerfDiagLogger_kernel.etl", "perfview_diaghub_kernel_relogged.etl"]
# Classic header kinds (format doc section 2): SYSTEM, COMPACT, PERFINFO, FULL_HEADER, INSTANCE.
CLASSIC_HEADER_TYPES = {0x01, 0x02, 0x03, 0x04, 0x0A, 0x0B, 0x10, 0x11, 0x14, 0x15}
# Expert severities (Wireshark's PI_NOTE, PI_ERROR).
PI_NOTE = 0x00400000
PI_ERROR = 0x00800000


def _kernel_pre(env, names):
    if not env.args.etldump or not os.path.exists(env.args.etldump):
        print("SKIP: --etldump not given")
        return False
    missing = [n for n in names if n not in env.expected]
    if missing:
        print(f"SKIP: {missing} not in the corpus")
        return False
    return True


def _kv_text(v):
    """etldump's JSON value as the text etl.kv shows (None: not a scalar)."""
    if isinstance(v, (dict, list)):
        return None
    if v is True or v is False:
        return "true" if v else "false"
    return str(v)


def _rows(env, name, fields, extra=(), home=None):
    """-T fields rows (all occurrences, joined by \x1e) as dicts; a value with a line break
    continues its row."""
    _, out, err = env.run([env.args.tshark, "-r", env.capture(name)] + list(extra) +
                          ["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=\x1e"] +
                          [a for f in fields for a in ("-e", f)], home=home)
    lines = []
    for line in out.rstrip("\n").split("\n") if out.strip() else []:
        if line.split("\t")[0].isdigit() or not lines:
            lines.append(line)
        else:
            lines[-1] += "\n" + line
    return [dict(zip(fields, line.split("\t"))) for line in lines], err


def test_kernel(env):
    """Classic kernel events are named and decoded: on the two kernel captures every classic
    frame has etl.event_name and none has etl.data_unsupported, and the (provider, event) counts
    of every capture frame equal etldump's; in the merged .NET trace every scalar field of the
    kernel events (Windows Kernel, KernelTraceControl, MSNT_SystemTrace) shows as etl.kv with
    etldump's value, -T json carries the names and typed fields, and the one unknown event
    (SysConfig Opcode(37)) shows its raw payload with etl.expert.unknown_event, never an error."""
    if not _kernel_pre(env, KERNEL_CAPTURES + [NET452]):
        return SKIP
    for name in KERNEL_CAPTURES + [NET452]:
        recs = _etldump(env, name)
        by_pos = {r["position"]: r for r in recs}
        rows, err = _rows(env, name, ["frame.number", "etl.position", "etl.header_type", "etl.provider_name",
                                      "etl.event_name", "etl.data_unsupported", "etl.kv"])
        check(err.strip() == "", f"{name}: stderr: {err.strip()[:300]}")
        check(len(rows) == len(recs), f"{name}: {len(rows)} frames, etldump {len(recs)} records")
        classic = [r for r in rows if int(r["etl.header_type"], 16) in CLASSIC_HEADER_TYPES]
        check(classic, f"{name}: no classic frame")
        nameless = [r["frame.number"] for r in classic if not r["etl.event_name"]]
        check(not nameless, f"{name}: classic frames without etl.event_name: {nameless[:10]}")
        if name in KERNEL_CAPTURES:
            uns = [r["frame.number"] for r in rows if r["etl.data_unsupported"]]
            check(not uns, f"{name}: frames with etl.data_unsupported: {uns[:10]}")
            # the frames left unnamed are the ones etldump cannot name either (no manifest)
            unnamed = {int(r["etl.position"], 16) for r in rows if not r["etl.event_name"]}
            check(unnamed == {p for p, r in by_pos.items() if "event_name" not in r},
                  f"{name}: unnamed frames differ from etldump's: {sorted(unnamed)[:5]}")
        got = collections.Counter((r["etl.provider_name"], r["etl.event_name"]) for r in rows if r["etl.event_name"])
        want = _name_counts_etldump(recs)
        check(got == want, f"{name}: (provider, event) counts differ from etldump's: "
              f"{sorted((k, got[k], want[k]) for k in set(got) | set(want) if got[k] != want[k])[:10]}")
        # every scalar field of every classic event, as etldump decodes it
        n = 0
        for r in classic:
            d = by_pos[int(r["etl.position"], 16)]
            have = set(r["etl.kv"].split("\x1e")) if r["etl.kv"] else set()
            for k, v in (d.get("fields") or {}).items() if isinstance(d.get("fields"), dict) else ():
                t = _kv_text(v)
                if t is None or "\n" in t or "\t" in t:
                    continue
                # etldump writes GUIDs in lower case without the braces Windows shows
                check(f"{k}={t}" in have or f"{k}={{{t.upper()}}}" in have,
                      f"{name}: frame {r['frame.number']} {d.get('event_name')}: {k}={t!r} not among "
                      f"{sorted(x for x in have if x.startswith(k + '='))}")
                n += 1
        kinds = len({(r['etl.provider_name'], r['etl.event_name']) for r in classic})
        print(f"  ok {name}: {len(classic)} classic frames of {kinds} kinds named, {n} field values as etldump")

    # -T json: names and typed fields of TcpIp/UdpIp and Process events
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-Y",
                         'etl.event_name == "UdpIp/Recv" or etl.event_name == "Process/DCStart"', "-T", "json",
                         "--no-duplicate-keys"])
    pkts = json.loads(out)
    check(len(pkts) == 19 + 32, f"{NET452}: -T json UdpIp/Recv + Process/DCStart: {len(pkts)} packets, expected 51")
    for pkt in pkts:
        etl = _json_layers(pkt)["etl"]
        ev = _find_json(etl, "etl.event_name")
        check(_find_json(etl, "etl.provider_name") == "Windows Kernel" and
              _find_json(etl, "etl.task_name") == ev.split("/")[0] and _find_json(etl, "etl.opcode_name") == ev.split("/")[1],
              f"{NET452}: JSON names of {ev}")
        if ev == "UdpIp/Recv":
            check(re.fullmatch(r"\d+\.\d+\.\d+\.\d+", _find_json(etl, "etl.data.daddr") or "") and
                  (_find_json(etl, "etl.data.dport") or "").isdigit(), f"{NET452}: JSON UdpIp/Recv fields")
        else:
            check((_find_json(etl, "etl.data.ProcessId") or "").isdigit() and _find_json(etl, "etl.data.ImageFileName"),
                  f"{NET452}: JSON Process/DCStart fields")
    print(f"  ok {NET452}: -T json: {len(pkts)} UdpIp/Recv and Process/DCStart events with names and typed fields")

    # the unknown event: named from its key, raw payload, a note - no error
    recs = _etldump(env, NET452)
    unknown = sorted(r["position"] for r in recs if r.get("event_unknown"))
    check(unknown, f"{NET452}: etldump flags no unknown event")
    rows, _ = _rows(env, NET452, ["frame.number", "etl.position", "etl.event_name", "etl.data_raw", "etl.payload",
                                  "_ws.expert.severity", "_ws.expert.message"], extra=["-Y", "etl.expert.unknown_event"])
    check(sorted(int(r["etl.position"], 16) for r in rows) == unknown,
          f"{NET452}: etl.expert.unknown_event on {[r['etl.position'] for r in rows]}, etldump: {unknown}")
    for r in rows:
        check(r["etl.event_name"] == "SysConfig/Opcode(37)", f"{NET452}: unknown event named {r['etl.event_name']!r}")
        check(r["etl.data_raw"] == r["etl.payload"] and r["etl.payload"], f"{NET452}: unknown event raw payload")
        sev = [int(x) for x in r["_ws.expert.severity"].split("\x1e") if x]
        check(sev and max(sev) < PI_ERROR, f"{NET452}: unknown event expert severities {sev}")
        check("SysConfig/Opcode(37)" in r["_ws.expert.message"], f"{NET452}: expert: {r['_ws.expert.message']}")
    print(f"  ok {NET452}: {len(rows)} unknown event(s) SysConfig/Opcode(37): raw payload, a note")


def test_kernelfilter(env):
    """In a fresh profile, one run: the kernel events' typed fields filter - TcpIp/UdpIp IPv4
    addresses as FT_IPv4 (etl.data.daddr == a.b.c.d), IPv6 ones as FT_IPv6 (daddr_ipv6), ports
    as FT_UINT16 with the big-endian value - selecting what etldump shows; a pointer field is
    one name on 32- and 64-bit traces; the start-up registration leaves the field store alone."""
    if not _kernel_pre(env, [NET452, "syzygy_sawbuck_image_data_32_v2_win7x86.etl"]):
        return SKIP
    home = env.fresh_home()
    known = _g_fields(env, home)
    for f, t in (("etl.data.daddr", "FT_IPv4"), ("etl.data.saddr", "FT_IPv4"), ("etl.data.daddr_ipv6", "FT_IPv6"),
                 ("etl.data.saddr_ipv6", "FT_IPv6"), ("etl.data.dport", "FT_UINT16"), ("etl.data.sport", "FT_UINT16"),
                 ("etl.data.ProcessId", "FT_UINT32"), ("etl.data.ImageFileName", "FT_STRING"),
                 ("etl.data.ImageBase", "FT_UINT64")):
        check(known.get(f, ("?",))[0] == t, f"start-up: {f} is {known.get(f)}, expected {t}")
    check(not os.path.exists(store_path(home)), "start-up registration of kernel fields wrote the field store")
    recs = _etldump(env, NET452)
    addrs = collections.Counter()
    ports = collections.Counter()
    for r in recs:
        f = r.get("fields") if isinstance(r.get("fields"), dict) else {}
        if r.get("provider_name") == "Windows Kernel" and "daddr" in f:
            addrs[f["daddr"]] += 1
            ports[f["dport"]] += 1
    v4 = [a for a in addrs if ":" not in a]
    v6 = [a for a in addrs if ":" in a]
    check(v4 and v6, f"{NET452}: etldump has no IPv4 and IPv6 daddr: {dict(addrs)}")
    # the most and the least frequent of each (a whole file of tshark runs per value is slow)
    def ends(c, keys):
        keys = sorted(keys, key=lambda k: (c[k], str(k)))
        return sorted(set(keys[:1] + keys[-1:]), key=str)
    for flt, want in ([(f"etl.data.daddr == {a}", addrs[a]) for a in ends(addrs, v4)] +
                      [(f"etl.data.daddr_ipv6 == {a}", addrs[a]) for a in ends(addrs, v6)] +
                      [(f"etl.data.dport == {p}", ports[p]) for p in ends(ports, ports)]):
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-Y", flt, "-T", "fields",
                             "-e", "etl.event_name"], home=home)
        got = [line for line in out.splitlines() if line.strip()]
        check(len(got) == want, f"{NET452}: -Y '{flt}': {len(got)} frames, etldump {want}")
        check(all(e.startswith(("TcpIp/", "UdpIp/")) for e in got), f"{NET452}: -Y '{flt}' selected {set(got)}")
    print(f"  ok {NET452}: IPv4 and IPv6 addresses and ports select as many frames as etldump shows")
    # a subnet filter works on the typed address
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-Y", "etl.data.daddr == 224.0.0.0/4",
                         "-T", "fields", "-e", "etl.data.daddr"], home=home)
    got = collections.Counter(line for line in out.splitlines() if line)
    check(got == {a: addrs[a] for a in v4 if 224 <= int(a.split(".")[0]) < 240},
          f"{NET452}: -Y 'etl.data.daddr == 224.0.0.0/4': {dict(got)}")
    # pointers: the 32-bit trace's ImageBase is the same field as the 64-bit one's
    name32 = "syzygy_sawbuck_image_data_32_v2_win7x86.etl"
    recs32 = _etldump(env, name32)
    bases = collections.Counter(r["fields"]["ImageBase"] for r in recs32
                                if isinstance(r.get("fields"), dict) and "ImageBase" in r["fields"])
    check(bases, f"{name32}: etldump has no ImageBase")
    base, cnt = bases.most_common(1)[0]
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(name32), "-Y", f"etl.data.ImageBase == {base}",
                         "-T", "fields", "-e", "etl.event_name"], home=home)
    check(len(out.splitlines()) == cnt, f"{name32}: -Y 'etl.data.ImageBase == {base}': {len(out.splitlines())}, "
          f"etldump {cnt}")
    print(f"  ok {name32}: etl.data.ImageBase == {base} selects {cnt} frames of the 32-bit trace")


# Kernel events whose payload names the process they are about (procs.h, rule 1).
_SUBJECT_THREAD = ("Thread/Start", "Thread/Stop", "Thread/DCStart", "Thread/DCStop")
_PAYLOAD_PID = ("PID", "StackProcess")
_PAYLOAD_TID = ("ThreadId", "StackThread", "TThreadId", "IssuingThreadId", "TTID", "NewThreadId")


def _oracle_pids(recs):
    """position -> pid of every record, worked out here from etldump's fields, not from its
    process_name: the event's own subject (Process, Image, Thread Start/Stop/rundown, SystemConfig
    Services: the payload's ProcessId), else the header's pid, else a pid in the payload, else the
    process of the record's thread (header or payload thread) from the trace's Thread events."""
    threads = collections.defaultdict(set)
    for r in recs:
        f = r.get("fields")
        if r.get("event_name", "").startswith("Thread/") and isinstance(f, dict) and "TThreadId" in f:
            threads[f["TThreadId"]].add(f["ProcessId"])
    pids = {}
    for r in recs:
        en = r.get("event_name", "")
        f = r.get("fields") if isinstance(r.get("fields"), dict) else {}
        pid = None
        if r.get("provider_name") in ("Windows Kernel", "MSNT_SystemTrace") and \
                (en.startswith(("Process/", "Image/")) or en in _SUBJECT_THREAD or en == "SystemConfig/Services") and \
                isinstance(f.get("ProcessId"), int):
            pid = f["ProcessId"]
        elif r.get("pid") is not None and r["pid"] != 0xFFFFFFFF:
            pid = r["pid"]
        else:
            pid = next((f[k] for k in _PAYLOAD_PID if isinstance(f.get(k), int)), None)
            if pid is None:
                tid = r.get("tid")
                if tid is None:
                    tid = next((f[k] for k in _PAYLOAD_TID if isinstance(f.get(k), int)), None)
                owners = threads.get(tid, set())
                pid = next(iter(owners)) if len(owners) == 1 else None
        pids[r["position"]] = pid
    return pids


def test_process(env):
    """etl.process_name == "<image>" selects exactly the frames of that process - worked out
    independently from the trace's Process/Thread events and the records' headers - on every
    record kind; etl.process_pid and the Info column agree; with the trace read from a pipe
    (no prescan) names still come, from the rundown events on."""
    if not _kernel_pre(env, [NET452]):
        return SKIP
    recs = _etldump(env, NET452)
    pids = _oracle_pids(recs)
    names = collections.defaultdict(set)
    for r in recs:
        f = r.get("fields")
        if r.get("event_name", "").startswith("Process/") and isinstance(f, dict) and f.get("ImageFileName"):
            names[f["ImageFileName"]].add(f["ProcessId"])
    kinds = collections.Counter(r["header_type"] for r in recs)
    checked = 0
    for image in ("Test.x64.exe", "PerfView.exe", "svchost.exe"):
        check(image in names, f"{NET452}: no process named {image} in the trace's Process events")
        want = sorted(p for p, pid in pids.items() if pid in names[image])
        rows, _ = _rows(env, NET452, ["frame.number", "etl.position", "etl.header_type", "etl.process_pid",
                                      "_ws.col.Info"], extra=["-Y", f'etl.process_name == "{image}"'])
        got = sorted(int(r["etl.position"], 16) for r in rows)
        check(got == want, f"{NET452}: -Y 'etl.process_name == \"{image}\"': {len(got)} frames, expected "
              f"{len(want)}; first differences {sorted(set(got) ^ set(want))[:5]}")
        for r in rows:
            pid = int(r["etl.process_pid"])
            check(pid in names[image] and f"[{image} ({pid})]" in r["_ws.col.Info"],
                  f"{NET452}: frame {r['frame.number']}: pid {pid}, Info {r['_ws.col.Info'][:150]!r}")
        hts = collections.Counter(HEADER_TYPES[int(r["etl.header_type"], 16)] for r in rows)
        checked += len(got)
        print(f"  ok {image} (pids {sorted(names[image])}): {len(got)} frames, as worked out; kinds {dict(hts)}")
    check(len({k for k in kinds if k.startswith(("PERFINFO", "SYSTEM", "EVENT_HEADER", "FULL_HEADER"))}) >= 4,
          f"{NET452}: header kinds {kinds}")
    # every frame whose process is known has a name or pid; compare the pid with the oracle
    rows, _ = _rows(env, NET452, ["frame.number", "etl.position", "etl.process_pid", "etl.process_name"])
    agree = sum(1 for r in rows if r["etl.process_pid"] and pids.get(int(r["etl.position"], 16)) == int(r["etl.process_pid"]))
    known = sum(1 for p in pids.values() if p is not None)
    check(agree == known and sum(1 for r in rows if r["etl.process_pid"]) == known,
          f"{NET452}: {agree} frames agree with the worked-out pid, {known} known")
    print(f"  ok {known} of {len(rows)} frames have a process, every pid as worked out")
    # a pipe: no prescan, the first pass feeds the table; the trace starts with a rundown
    _, out, _ = env.run([env.args.tshark, "-r", "-", "-T", "fields", "-e", "etl.position", "-e", "etl.process_name"],
                        stdin_path=env.capture(NET452))
    piped = {int(p, 16): n for p, n in (line.split("\t") for line in out.splitlines())}
    filed = {int(r["etl.position"], 16): r["etl.process_name"] for r in rows}
    same = sum(1 for p, n in piped.items() if n and n == filed.get(p))
    check(len(piped) == len(filed) and same >= 0.9 * sum(1 for n in filed.values() if n) and
          all(not n or n == filed.get(p) for p, n in piped.items()),
          f"{NET452} from a pipe: {same} frames named as from the file")
    print(f"  ok from a pipe: {same} frames named as from the file, none differently")


def _reads_per_opening(trace_out, path):
    """From an `strace -f -y` log: per opening of `path`, in order, the bytes read through it."""
    opened = []       # bytes read per opening
    op = re.compile(r'^(\d+)\s+openat\(.*"' + re.escape(path) + r'", [^)]*\) = (\d+)')
    rd = re.compile(r'^(\d+)\s+(?:read|pread64)\((\d+)<' + re.escape(path) + r'>, .*\) = (\d+)$')
    cl = re.compile(r'^(\d+)\s+close\((\d+)<' + re.escape(path) + r'>\)')
    fds = {}          # fd -> index (threads share the table: keyed by fd alone)
    with open(trace_out, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = op.match(line)
            if m:
                fds[m.group(2)] = len(opened)
                opened.append(0)
                continue
            m = rd.match(line)
            if m and m.group(2) in fds:
                opened[fds[m.group(2)]] += int(m.group(3))
                continue
            m = cl.match(line)
            if m:
                fds.pop(m.group(2), None)
    return opened


def test_prescan(env):
    """Wireshark reads a trace once before its first frame: besides the reader plugin's handles
    (Wireshark's own, the first opening of the file, and in a one-pass read the reader's own
    descriptor, the second), the dissector opens and reads the file exactly once - one prescan for the schemas the trace carries and its processes alike (traced
    with strace: the bytes read through each opening of the capture, up to the first frame)."""
    if not shutil.which("strace"):
        print("SKIP: strace is not installed (tests/install-deps.sh installs it)")
        return SKIP
    rc, _, err = env.run(["strace", "-qq", "-o", os.devnull, "true"], check=False)
    if rc != 0:
        print(f"SKIP: strace cannot trace here (no ptrace in this container?): {err.strip()[:200]}")
        return SKIP
    for name in (NET452, "tx_BondEtwSample_eventsource.etl"):
        path = env.capture(name)
        home = env.fresh_home()
        log = os.path.join(home, "strace.log")
        _, out, _ = env.run(["strace", "-f", "-y", "-qq", "-e", "trace=openat,read,pread64,close", "-o", log,
                             env.args.tshark, "-r", path, "-c", "1"], home=home)
        check(out.strip(), f"{name}: tshark -c 1 printed no frame")
        opened = _reads_per_opening(log, path)
        check(len(opened) >= 1, f"{name}: strace saw no opening of the capture")
        # A one-pass read opens the file twice for the reader plugin: Wireshark's own handle,
        # then the reader's own descriptor (pread: no rewinds, plugin_onepassio).
        check(len(opened) >= 2, f"{name}: the reader's own descriptor was not opened (openings: {opened})")
        reads = [n for n in opened[2:] if n > 0]
        check(len(reads) == 1,
              f"{name}: besides the reader's two handles the file was read {len(reads)} times "
              f"before the first frame (bytes per opening: {opened}); expected one prescan")
        print(f"  ok {name}: read once by the prescan; bytes per opening {opened}")
    # the prescan's findings are used: names of processes (procs) and manifest events (registry)
    _, out, _ = env.run([env.args.tshark, "-r", env.capture(NET452), "-c", "300", "-T", "fields",
                         "-e", "etl.process_name", "-e", "etl.event_name"])
    rows = [line.split("\t") for line in out.splitlines()]
    check(any(r[0] for r in rows) and any(len(r) > 1 and r[1] for r in rows),
          f"{NET452}: no process or event names in the first 300 frames")
    print("  ok process and event names from the one prescan")


def test_stacks(env):
    """StackWalk events point to their event (etl.stack_of: same raw timestamp and thread), the
    event back to them (etl.stack_frame, with -2); the links are etldump's."""
    if not _kernel_pre(env, [NET452]):
        return SKIP
    fields = ["frame.number", "etl.position", "etl.event_name", "etl.timestamp_raw", "etl.tid", "etl.process_tid",
              "etl.data.EventTimeStamp", "etl.data.StackThread", "etl.stack_of", "etl.stack_frame"]
    rows, _ = _rows(env, NET452, fields, extra=["-2"])
    frames = {int(r["frame.number"]): r for r in rows}
    links = {int(r["frame.number"]): int(r["etl.stack_of"]) for r in rows if r["etl.stack_of"]}
    check(links, f"{NET452}: no etl.stack_of")
    for walk, ev in links.items():
        w, e = frames[walk], frames[ev]
        check(w["etl.event_name"].startswith("StackWalk/"), f"frame {walk}: etl.stack_of on {w['etl.event_name']}")
        check(int(e["etl.timestamp_raw"]) == int(w["etl.data.EventTimeStamp"]),
              f"frame {walk} -> {ev}: timestamps {e['etl.timestamp_raw']} != {w['etl.data.EventTimeStamp']}")
        thread = e["etl.tid"] or e["etl.process_tid"]
        check(thread == "" or int(thread) == int(w["etl.data.StackThread"]),
              f"frame {walk} -> {ev}: thread {thread} != StackThread {w['etl.data.StackThread']}")
    with_thread = sum(1 for ev in links.values() if frames[ev]["etl.tid"] or frames[ev]["etl.process_tid"])
    check(with_thread == len(links), f"{NET452}: {len(links) - with_thread} linked events without a thread")
    back = {}
    for r in rows:
        for w in filter(None, r["etl.stack_frame"].split("\x1e")):
            back[int(w)] = int(r["frame.number"])
    check(back == links, f"{NET452}: etl.stack_frame does not mirror etl.stack_of ({len(back)} vs {len(links)})")
    recs = _etldump(env, NET452)
    pos = {int(r["etl.position"], 16): int(r["frame.number"]) for r in rows}
    want = {pos[r["position"]]: pos[r["stack_of"]] for r in recs if "stack_of" in r}
    check(links == want, f"{NET452}: {len(links)} links, etldump {len(want)}")
    walks = sum(1 for r in rows if r["etl.event_name"] == "StackWalk/Stack")
    print(f"  ok {len(links)} stack walks linked ({walks} StackWalk/Stack events): same time and thread; "
          "etl.stack_frame mirrors them; as etldump")
    # one pass: the same etl.stack_of, and no etl.stack_frame (the walk comes after its event)
    rows1, _ = _rows(env, NET452, ["frame.number", "etl.stack_of", "etl.stack_frame"])
    check({int(r["frame.number"]): int(r["etl.stack_of"]) for r in rows1 if r["etl.stack_of"]} == links and
          not any(r["etl.stack_frame"] for r in rows1), f"{NET452}: one-pass stack links differ")
    print("  ok one pass: the same etl.stack_of, no etl.stack_frame")

# ---- packets in pktmon and netsh traces (issue 12) -----------------------------------------

PKTMON = "pktmon_demikernel_ws2022.etl"
PKTMON_GOLDEN = "pktmon_demikernel_ws2022.reference.pcapng"
# Fields that depend on the time (a pcapng holds microseconds, the .etl 100 ns) or on frame
# numbers (the .etl has its ETW events between the packets): left out of layer comparisons.
_PKT_VOLATILE = re.compile(r"time|Timestamps|resptime|rtt|resp_to|response_in|request_in|"
                           r"_frame$|reassembled_in|duplicate_of|retransmitted_in", re.I)


def _pkt_strip(o):
    if isinstance(o, dict):
        return {k: _pkt_strip(v) for k, v in o.items() if not _PKT_VOLATILE.search(k)}
    if isinstance(o, list):
        return [_pkt_strip(v) for v in o]
    return o


def _pkt_layers(env, path):
    """-T json of every packet frame: the layers after the ETW one (.etl) or after frame
    (pcapng), with time- and frame-number-dependent fields left out; and each frame's number."""
    _, out, _ = env.run([env.args.tshark, "-r", path, "-T", "json", "--no-duplicate-keys"])
    res = []
    for pkt in json.loads(out):
        layers = _json_layers(pkt)
        keys = list(layers)
        if path.endswith(".etl"):
            if "etl" not in layers or "etl.pkt.link_type" not in json.dumps(layers["etl"]):
                continue
            i = keys.index("etl")
        else:
            i = keys.index("frame")
        rest = {k: layers[k] for k in keys[i + 1:]}
        if path.endswith(".etl") and not rest:
            continue
        res.append((layers["frame"]["frame.number"], _pkt_strip(rest)))
    return res


def _pkt_first_diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            d = _pkt_first_diff(a.get(k), b.get(k), f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            d = _pkt_first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {str(a)[:80]!r} vs {str(b)[:80]!r}"


def _pkt_same_layers(env, etl, pcapng):
    a, b = _pkt_layers(env, etl), _pkt_layers(env, pcapng)
    check(len(a) == len(b), f"{os.path.basename(etl)}: {len(a)} packet frames, the pcapng has {len(b)}")
    for (na, x), (nb, y) in zip(a, b):
        check(x == y, f"{os.path.basename(etl)}: frame {na} dissects otherwise than pcapng frame {nb}: "
                      f"{_pkt_first_diff(x, y)}")
    return len(a)


def _pkt_stat(env, path, z):
    _, out, _ = env.run([env.args.tshark, "-r", path, "-q", "-z", z])
    return out


def _usec(t):
    whole, _, frac = t.partition(".")
    return whole + "." + (frac + "000000")[:6]


def test_packets(env):
    """The shared pktmon capture as packets: 114 frames with eth, ip and icmp; time/addresses/
    sequence numbers as in pktmon's own pcapng (to the microsecond); every packet layer as the
    pcapng dissects it; Protocol and Info columns, conversations, endpoints and the protocol
    hierarchy as the pcapng's; the pktmon context fields."""
    if PKTMON not in env.expected:
        print(f"SKIP: {PKTMON} is not in the corpus")
        return SKIP
    etl = env.capture(PKTMON)
    golden = os.path.join(env.root, PKTMON_GOLDEN)
    shutil.copyfile(os.path.join(env.args.goldens, PKTMON_GOLDEN), golden)
    os.chmod(golden, 0o644)
    for proto in ("eth", "ip", "icmp"):
        _, out, _ = env.run([env.args.tshark, "-r", etl, "-Y", proto, "-T", "fields", "-e", "frame.number"])
        n = len(out.split())
        check(n == 114, f"{PKTMON}: {n} frames with {proto}, expected 114")
    fields = ["frame.time_epoch", "ip.src", "ip.dst", "icmp.seq"]
    ef = [a for f in fields for a in ("-e", f)]
    _, a, _ = env.run([env.args.tshark, "-r", etl, "-Y", "etl.pkt.link_type", "-T", "fields"] + ef)
    _, b, _ = env.run([env.args.tshark, "-r", golden, "-T", "fields"] + ef)
    ra = [l.split("\t") for l in a.splitlines()]
    rb = [l.split("\t") for l in b.splitlines()]
    check(len(ra) == len(rb) == 114, f"{PKTMON}: {len(ra)} packet frames, the golden {len(rb)}")
    for x, y in zip(ra, rb):
        check([_usec(x[0])] + x[1:] == [_usec(y[0])] + y[1:], f"{PKTMON}: {x} vs the golden's {y}")
    print("  ok 114 frames with eth, ip, icmp; time (us), ip.src, ip.dst, icmp.seq as pktmon's pcapng")
    n = _pkt_same_layers(env, etl, golden)
    print(f"  ok {n} frames: every packet layer (-T json) as in the pcapng")

    # the packet's columns, not ETW's (frame references differ: the .etl has other events)
    cols = ["-e", "_ws.col.Protocol", "-e", "_ws.col.Info"]
    _, a, _ = env.run([env.args.tshark, "-r", etl, "-Y", "etl.pkt.link_type", "-T", "fields"] + cols)
    _, b, _ = env.run([env.args.tshark, "-r", golden, "-T", "fields"] + cols)
    ref = re.compile(r"\((request|reply) in \d+\)")
    ca = [ref.sub("", l) for l in a.splitlines()]
    cb = [ref.sub("", l) for l in b.splitlines()]
    check(ca == cb, f"{PKTMON}: Protocol/Info columns differ from the pcapng's "
                    f"({next(((x, y) for x, y in zip(ca, cb) if x != y), None)})")
    print("  ok Protocol and Info columns as the pcapng's")

    # statistics: the same conversations and endpoints (frames; bytes count the ETW record)
    def table(out):
        rows = []
        for l in out.splitlines():
            m = re.match(r"^(\S+)\s+<->\s+(\S+)\s+(\d+)\s+\S+\s+\S+\s+(\d+)\s+\S+\s+\S+\s+(\d+)", l)
            if m:
                rows.append(m.group(1, 2, 3, 4, 5))
        return rows
    ca, cb = table(_pkt_stat(env, etl, "conv,ip")), table(_pkt_stat(env, golden, "conv,ip"))
    check(ca and ca == cb, f"{PKTMON}: IP conversations {ca} vs the pcapng's {cb}")

    def endpoints(out):
        return sorted(re.findall(r"^(\d+\.\d+\.\d+\.\d+)\s+(\d+)", out, re.M))
    ea, eb = endpoints(_pkt_stat(env, etl, "endpoints,ip")), endpoints(_pkt_stat(env, golden, "endpoints,ip"))
    check(ea and ea == eb, f"{PKTMON}: IP endpoints {ea} vs the pcapng's {eb}")

    def phs(out, top):
        lines = [l for l in out.splitlines() if "frames:" in l]
        got = []
        for l in lines:
            ind = len(l) - len(l.lstrip())
            name, frames = l.split()[0], re.search(r"frames:(\d+)", l).group(1)
            got.append((ind, name, frames))
        base = next(i for i, n, _ in got if n == "eth")
        return [(i - base, n, f) for i, n, f in got if i >= base and n not in top]
    pa = phs(_pkt_stat(env, etl, "io,phs"), ("etl", "frame"))
    pb = phs(_pkt_stat(env, golden, "io,phs"), ("frame",))
    check(pa and pa == pb, f"{PKTMON}: protocol hierarchy below eth {pa} vs the pcapng's {pb}")
    print(f"  ok {len(ca)} IP conversations, {len(ea)} endpoints, the protocol hierarchy as the pcapng's")

    # pktmon context: components named from the rundown, each packet once, one packet followed
    rows, _ = _rows(env, PKTMON, ["frame.number", "etl.pkt.interface_name", "etl.pkt.component_type",
                                  "etl.pkt.group_id", "etl.pkt.appearance", "etl.pkt.first_appearance",
                                  "etl.pkt.dir_tag", "frame.protocols"], extra=["-Y", "etl.pkt"])
    check(len(rows) == 114 and all(r["etl.pkt.interface_name"] for r in rows),
          f"{PKTMON}: every packet names its component")
    check(all(r["frame.protocols"].startswith("etl:eth:") for r in rows), f"{PKTMON}: ETW first, then eth")
    groups = collections.Counter(r["etl.pkt.group_id"] for r in rows)
    firsts = [r for r in rows if r["etl.pkt.first_appearance"] in ("1", "True")]
    check(len(firsts) == len(groups), f"{PKTMON}: {len(firsts)} first appearances for {len(groups)} packets")
    gid, count = groups.most_common(1)[0]
    _, out, _ = env.run([env.args.tshark, "-r", etl, "-Y", f"etl.pkt.group_id == {gid}", "-T", "fields",
                         "-e", "etl.pkt.appearance"])
    check(sorted(int(x) for x in out.split()) == list(range(1, count + 1)),
          f"{PKTMON}: etl.pkt.group_id == {gid} follows the packet through its {count} appearances ({out.split()})")
    # the built-in layouts' typed fields are registered at start-up: a filter works in the first run
    _, out, _ = env.run([env.args.tshark, "-r", etl, "-Y", "etl.data.DropReason == 0 && etl.data.PktGroupId",
                         "-T", "fields", "-e", "frame.number"])
    check(len(out.split()) == 114, f"{PKTMON}: -Y etl.data.DropReason in the first run: {len(out.split())} frames")
    print(f"  ok {len(groups)} packets at {len(set(r['etl.pkt.interface_name'] for r in rows))} components; "
          f"etl.pkt.first_appearance selects each once; etl.pkt.group_id follows one")


def _pkt_generated(env, preset):
    path = env.capture(preset + "_gen.etl")
    subprocess.run([env.args.etlgen, "--preset", preset, "-o", path], check=True, capture_output=True)
    pcap = env.capture(preset + "_gen.pcapng")
    p = subprocess.run([env.args.etldump, "--pcapng", pcap, path], capture_output=True)
    check(p.returncode in (0, 1) and os.path.getsize(pcap) > 0,
          f"etldump --pcapng {preset}: exit {p.returncode}: {p.stderr.decode()[:300]}")
    os.chmod(path, 0o644)
    os.chmod(pcap, 0o644)
    return path, pcap


def test_pktgen(env):
    """Generated ndiscap (802.3, 802.11 with radio metadata, WWAN raw IPv4/IPv6, three fragments,
    VMSwitch VLAN, truncated, bad input) and pktmon (two components, drops, 128-byte snaplen,
    Wi-Fi, raw IP, bad input) traces dissect as the pcapng etldump --pcapng writes of them: every
    packet layer, frame and captured lengths; the context fields and expert info; the same
    output in one and two passes."""
    for tool, what in ((env.args.etlgen, "--etlgen"), (env.args.etldump, "--etldump")):
        if not tool or not os.path.exists(tool):
            print(f"SKIP: {what} not given")
            return SKIP
    for preset in ("ndiscap", "pktmon"):
        etl, pcap = _pkt_generated(env, preset)
        n = _pkt_same_layers(env, etl, pcap)
        lens = ["-e", "frame.len", "-e", "frame.cap_len"]
        _, a, _ = env.run([env.args.tshark, "-r", etl, "-Y", "etl.pkt.captured_len > 0 && etl.pkt.link_type != 0xffff",
                           "-T", "fields", "-e", "etl.pkt.original_len", "-e", "etl.pkt.captured_len"] + lens)
        _, b, _ = env.run([env.args.tshark, "-r", pcap, "-T", "fields"] + lens)
        la = [l.split("\t") for l in a.splitlines()]
        lb = [l.split("\t") for l in b.splitlines()]
        ok = len(la) == len(lb) and all(
            x[0] == y[0] and x[1] == y[1] and int(x[2]) - int(x[3]) == int(y[0]) - int(y[1])
            for x, y in zip(la, lb))
        check(ok, f"{preset}: lengths (original, captured, wire - captured) {la} vs the pcapng's {lb}")
        print(f"  ok {preset}: {n} packet frames dissect as the pcapng's; truncated ones as a snaplen cut")
        cmd = [env.args.tshark, "-r", etl, "-V", "-x"]
        one, n1, _ = env.run_hash(cmd)
        two, n2, _ = env.run_hash(cmd[:1] + ["-2"] + cmd[1:])
        check(one == two, f"{preset}: two-pass output ({n2} bytes) differs from one pass ({n1} bytes)")

    ctx = ["frame.number", "etl.event_id", "etl.pkt.held", "etl.pkt.fragments", "etl.pkt.radio.frequency",
           "etl.pkt.radio.rssi", "etl.pkt.vlan.id", "etl.pkt.vlan.priority", "etl.pkt.direction",
           "etl.pkt.interface_id", "etl.pkt.medium", "_ws.expert.message", "frame.protocols", "wlan.fc.protected"]
    rows, _ = _rows(env, "ndiscap_gen.etl", ctx, extra=["-Y", "etl.pkt"])
    held = [r for r in rows if r["etl.pkt.held"]]
    frames = [r for r in rows if not r["etl.pkt.held"]]
    check(len(held) == 3, f"ndiscap: a 1002 and two leading fragments are held ({len(held)})")
    check(frames[1]["etl.pkt.radio.frequency"] == "2437" and frames[1]["etl.pkt.radio.rssi"] == "-42"
          and frames[1]["wlan.fc.protected"] == "0",
          f"ndiscap: the 802.11 frame carries the radio metadata before it, decrypted ({frames[1]})")
    check(frames[4]["etl.pkt.fragments"] == "3", f"ndiscap: the joined packet has 3 fragments ({frames[4]})")
    check(frames[5]["etl.pkt.vlan.id"] == "100" and frames[5]["etl.pkt.vlan.priority"] == "5",
          f"ndiscap: the VMSwitch frame's VLAN ({frames[5]})")
    check(frames[2]["etl.pkt.direction"] == "2" and frames[0]["etl.pkt.direction"] == "1",
          "ndiscap: direction from SendPath/ReceivePath")
    check(frames[1]["etl.pkt.medium"] == "16", f"ndiscap: the media rundown names the 802.11 interface's medium")
    bad = [r for r in frames if "Bad packet event" in r["_ws.expert.message"]]
    check(len(bad) == 3 and all(r["etl.event_id"] == "1001" for r in bad),
          f"ndiscap: FragmentSize past the payload, PacketEnd without a start, an empty fragment: "
          f"expert info on the ETW event ({[r['_ws.expert.message'] for r in bad]})")
    check(bad[0]["frame.protocols"].startswith("etl:eth:") and bad[1]["frame.protocols"].startswith("etl:eth:"),
          "ndiscap: the bytes that exist are still dissected")
    print(f"  ok ndiscap: {len(frames)} packets, {len(held)} held events; radio metadata, fragments, VLAN, "
          "direction, media rundown; bad input as expert info")

    _, out, _ = env.run([env.args.tshark, "-r", env.capture("ndiscap_gen.etl"), "-Y", "etl.data.FragmentSize > 0",
                         "-T", "fields", "-e", "etl.data.LowerIfIndex"])
    check(len(out.split()) >= 9, f"ndiscap: -Y etl.data.FragmentSize in the first run (built-in layout, no schema "
                                 f"in the trace): {out.split()}")
    rows, _ = _rows(env, "pktmon_gen.etl", ["frame.number", "etl.pkt.interface_name", "etl.pkt.drop",
                                            "etl.pkt.drop_reason", "etl.pkt.drop_reason_name",
                                            "_ws.expert.message", "frame.protocols"], extra=["-Y", "etl.pkt"])
    drops = [r for r in rows if r["etl.pkt.drop"] in ("1", "True")]
    check(len(drops) == 2 and all(r["etl.pkt.drop_reason_name"] and
                                  f"Packet dropped: {r['etl.pkt.drop_reason_name']}" in r["_ws.expert.message"]
                                  for r in drops),
          f"pktmon: drops with their reason names as expert info ({drops})")
    check([r["etl.pkt.interface_name"] for r in rows[:2]] == ["netvsc.sys", "tcpip.sys"],
          "pktmon: components named from the rundown at the trace's end")
    bad = [r for r in rows if "Bad packet event" in r["_ws.expert.message"]]
    check(len(bad) == 2 and bad[0]["frame.protocols"] == "etl" and bad[1]["frame.protocols"].startswith("etl:raw:ip"),
          f"pktmon: unknown PacketType and LoggedPayloadSize past the event as expert info, the bytes there dissected ({bad})")
    print(f"  ok pktmon: {len(rows)} packet events, {len(drops)} drops named, bad input as expert info")


TESTS = {
    "packets": test_packets,
    "pktgen": test_pktgen,
    "open": test_open,
    "empty": test_empty,
    "formats": test_formats,
    "providers": test_providers,
    "twopass": test_twopass,
    "onepassio": test_onepassio,
    "capinfos": test_capinfos,
    "gui": test_gui,
    "inputs": test_inputs,
    "malformed": test_malformed,
    "damage": test_damage,
    "tlkv": test_tlkv,
    "tlhidden": test_tlhidden,
    "tlstore": test_tlstore,
    "tlgolden": test_tlgolden,
    "tlcorpus": test_tlcorpus,
    "tlgenerated": test_tlgenerated,
    "tlclash": test_tlclash,
    "mffilter": test_mffilter,
    "mfcounts": test_mfcounts,
    "mfcountedarray": test_mfcountedarray,
    "mfmissing": test_mfmissing,
    "mftwopass": test_mftwopass,
    "mfbadmanifest": test_mfbadmanifest,
    "kernel": test_kernel,
    "kernelcrafted": test_kernelcrafted,
    "kernelfilter": test_kernelfilter,
    "process": test_process,
    "prescan": test_prescan,
    "stacks": test_stacks,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reader", help="built etl_reader.so (wiretap plugin)")
    ap.add_argument("--no-reader", metavar="REASON",
                    help="the reader was not built (degraded build): skip (77), printing REASON")
    ap.add_argument("--dissector", required=True, help="built etl_dissector.so (epan plugin)")
    ap.add_argument("--captures", required=True, help="folder with the .etl corpus and expected.json")
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--capinfos", default="capinfos")
    ap.add_argument("--wireshark", default="wireshark")
    ap.add_argument("--repo-captures", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                            "..", "..", "captures"),
                    help="the project's generated captures (default: captures/ of this checkout)")
    ap.add_argument("--goldens", help="TraceEvent golden decodes (default: goldens/ beside --captures)")
    ap.add_argument("--tlclash-gen", help="built tests/plugin/tlclash_gen (tests tlclash, tlstore)")
    ap.add_argument("--etldump", help="built etldump (manifest tests mf*: the oracle)")
    ap.add_argument("--etlgen", help="built tests/etlgen/etlgen (pktgen: generated packet captures)")
    ap.add_argument("--manifests", help="instrumentation manifests (default: manifests/ beside --captures)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("tests", nargs="+", choices=sorted(TESTS) + ["all"])
    args = ap.parse_args()
    if args.no_reader is not None:
        # Only the tests that feed crafted frames to the dissector (a pcap, user DLT 147) can run.
        wanted = sorted(TESTS) if "all" in args.tests else args.tests
        runnable = [t for t in wanted if t in DISSECTOR_ONLY]
        for t in wanted:
            if t not in DISSECTOR_ONLY:
                print(f"SKIP {t}: it opens .etl files through the file reader; {args.no_reader}")
        if not runnable:
            return SKIP
        args.tests = runnable
    elif not args.reader:
        ap.error("--reader or --no-reader is required")
    if not args.goldens:
        args.goldens = os.path.join(os.path.dirname(os.path.abspath(args.captures)), "goldens")
    if not args.manifests:
        args.manifests = os.path.join(os.path.dirname(os.path.abspath(args.captures)), "manifests")

    for tool in (args.tshark, args.capinfos):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed")
            return SKIP
    for path in (args.reader, args.dissector, os.path.join(args.captures, "expected.json")):
        if path is not None and not os.path.exists(path):
            print(f"FAIL: {path} does not exist")
            return 1

    names = sorted(TESTS) if "all" in args.tests else args.tests
    env = Env(args)
    failed = skipped = 0
    try:
        who = env.as_user.pw_name if env.as_user else pwd.getpwuid(os.getuid()).pw_name
        print(f"Wireshark {env.ws_xy}; tools run as {who} in {env.root}")
        for name in names:
            print(f"[{name}]")
            try:
                rc = TESTS[name](env)
                if rc == SKIP:
                    skipped += 1
                else:
                    print(f"PASS {name}")
            except Failure as e:
                failed += 1
                print(f"FAIL {name}: {e}")
            except subprocess.TimeoutExpired as e:
                failed += 1
                print(f"FAIL {name}: timeout: {e}")
    finally:
        env.cleanup()
    if failed:
        return 1
    if skipped and skipped == len(names):
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
