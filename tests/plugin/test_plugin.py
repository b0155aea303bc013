#!/usr/bin/env python3
"""End-to-end tests of the etlshark Wireshark plugins (etl_reader.so, etl_dissector.so).

Runs the real tshark / capinfos / wireshark on the capture corpus and checks what they print
against the corpus's expected.json (counts found by an independent scanner).

    test_plugin.py --reader build/plugins/4.0/wiretap/etl_reader.so \
                   --dissector build/plugins/4.0/epan/etl_dissector.so \
                   --captures ../shared/captures  TEST [TEST ...]

TEST is one of: open empty formats providers twopass inputs capinfos malformed damage gui all.

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

    def run(self, cmd, timeout=600, check=True, stdin_path=None):
        """Run a tool; return (rc, stdout, stderr) as text."""
        home = self.fresh_home()
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=stdin,
                               **self.popen_kwargs(home))
        finally:
            if stdin_path:
                stdin.close()
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        if check and p.returncode != 0:
            raise Failure(f"{' '.join(cmd)} exited {p.returncode}: {err.strip()[:2000]}")
        return p.returncode, out, err

    def run_hash(self, cmd, timeout=900):
        """Run a tool and hash its standard output as it streams; return (sha256, bytes, stderr)."""
        home = self.fresh_home()
        h = hashlib.sha256()
        n = 0
        with tempfile.TemporaryFile() as errf:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, **self.popen_kwargs(home))
            start = time.monotonic()
            while True:
                chunk = p.stdout.read(1 << 20)
                if not chunk:
                    break
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
        not_ours = [i + 1 for i, r in enumerate(rows) if r[0] != "etl"]
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
    """-V, -T json, -T pdml, -T fields and -T text show the header fields with the same values."""
    fields = ["frame.number"] + HEADER_FIELDS + ["etl.pid", "etl.event_id", "etl.logfile.logger_name"]
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
                             "--no-duplicate-keys"])
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
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-T", "pdml"])
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
        _, out, _ = env.run([env.args.tshark, "-r", env.capture(name), "-c", str(n), "-V"])
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


def test_twopass(env):
    """Two-pass output (seek_read) equals one-pass output (sequential read), byte for byte."""
    for name in nonempty(env):
        cmd = [env.args.tshark, "-r", env.capture(name), "-V", "-x"]
        one, n1, err1 = env.run_hash(cmd)
        two, n2, err2 = env.run_hash(cmd[:1] + ["-2"] + cmd[1:])
        check(n1 > 0, f"{name}: no output")
        check(err1.strip() == "" and err2.strip() == "",
              f"{name}: stderr: {err1.strip()[:300]} {err2.strip()[:300]}")
        check(one == two, f"{name}: two-pass output ({n2} bytes) differs from one-pass ({n1} bytes)")
        print(f"  ok {name}: {n1} bytes identical")


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
        check(info.get("File encapsulation") == "ETW event record (etlshark)",
              f"{name}: capinfos encapsulation {info.get('File encapsulation')!r}")
        info_m = _capinfos(env, name, machine=True)
        check(info_m.get("File type") == "etl" and info_m.get("File encapsulation") == "etlshark",
              f"{name}: capinfos -M names {info_m.get('File type')!r}/{info_m.get('File encapsulation')!r}")
        check(info_m.get("Number of packets") == str(env.expected[name]["records"]),
              f"{name}: capinfos counts {info_m.get('Number of packets')!r} packets, "
              f"expected {env.expected[name]['records']}")
        print(f"  ok {name}: {info['File type']} / {info['File encapsulation']} / "
              f"{info_m['Number of packets']}")


def _x_windows(display, env_vars):
    out = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                         env=dict(env_vars, DISPLAY=display), timeout=30).stdout
    wins = []
    for line in out.splitlines():
        m = re.match(r'\s+0x[0-9a-f]+ "(.*)": \((.*?)\)\s+(\d+)x(\d+)', line)
        if m:
            wins.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
    return wins


def _gui_open(env, display, capture, settle):
    """Start wireshark on a capture; return the windows of class wireshark once settled."""
    home = env.fresh_home()
    cfg = os.path.join(home, ".config", "wireshark")
    os.makedirs(cfg)
    with open(os.path.join(cfg, "recent_common"), "w") as f:
        f.write("gui.geometry_main_x: 0\ngui.geometry_main_y: 0\n"
                "gui.geometry_main_width: 1280\ngui.geometry_main_height: 900\n")
    if env.as_user:
        for dirpath, _, filenames in os.walk(home):
            os.chown(dirpath, env.as_user.pw_uid, env.as_user.pw_gid)
            for fn in filenames:
                os.chown(os.path.join(dirpath, fn), env.as_user.pw_uid, env.as_user.pw_gid)
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
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def test_gui(env):
    """wireshark-qt under Xvfb opens a capture: the main window is titled with the file name and
    no other Wireshark window (an error dialog) appears.  Control: the empty .etl does raise a
    dialog, so the check can see one."""
    for tool in (env.args.wireshark, "Xvfb", "xwininfo"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (apt-get install wireshark-qt xvfb x11-utils)")
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
        os.killpg(xvfb.pid, signal.SIGTERM)
        try:
            xvfb.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(xvfb.pid, signal.SIGKILL)
            xvfb.wait()
    return 0

# ---- synthetic frames (user DLT) and damaged files ----------------------------------------------

USER_DLT_PREF = 'uat:user_dlts:"User 0 (DLT=147)","etl","0","","0",""'


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
        "_ws.col.Protocol": "ETW", "_ws.expert.message": "",
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



TESTS = {
    "open": test_open,
    "empty": test_empty,
    "formats": test_formats,
    "providers": test_providers,
    "twopass": test_twopass,
    "capinfos": test_capinfos,
    "gui": test_gui,
    "inputs": test_inputs,
    "malformed": test_malformed,
    "damage": test_damage,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reader", required=True, help="built etl_reader.so (wiretap plugin)")
    ap.add_argument("--dissector", required=True, help="built etl_dissector.so (epan plugin)")
    ap.add_argument("--captures", required=True, help="folder with the .etl corpus and expected.json")
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--capinfos", default="capinfos")
    ap.add_argument("--wireshark", default="wireshark")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("tests", nargs="+", choices=sorted(TESTS) + ["all"])
    args = ap.parse_args()

    for tool in (args.tshark, args.capinfos):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed")
            return SKIP
    for path in (args.reader, args.dissector, os.path.join(args.captures, "expected.json")):
        if not os.path.exists(path):
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
