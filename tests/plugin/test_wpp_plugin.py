#!/usr/bin/env python3
"""test_wpp_plugin.py - WPP software traces in the dissector (docs/wpp.md) through real tshark,
run as test_plugin.py runs the tools (an unprivileged user, plugins and captures copied into a
readable temporary folder).  Same options as test_plugin.py (--etldump is the oracle); the tests:

  wppcldflt     the two real cldflt WPP traces, with no TMF and with the 90 shared TMFs on the
                path (ETLSHARK_TMF_PATH, and the etl.tmf_path preference): every MESSAGE frame
                named Message(43) under its message GUID, its message number and option flags by
                name, its process and thread; exactly one etl.expert.tmf_missing note per file
                (one message GUID each), on its first message, naming the TMF that would decode
                it; every record a frame (counts from expected.json);
  wppgenerated  etlgen's wpp preset with ../shared/tmf on the path: each message's Info reads
                Component/Function: formatted message, etl.message equals etldump's message,
                etl.level_name and etl.keywords_name the TMF's LEVEL and FLAGS, the arguments
                are typed etl.data.<expression> fields that filter in the first run.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("test_plugin", os.path.join(HERE, "test_plugin.py"))
tp = importlib.util.module_from_spec(spec)
sys.modules["test_plugin"] = tp
spec.loader.exec_module(tp)

GUID = "2818ef08-6a54-396f-2244-5a6ea4a98cf0"
TMF_ENV = "ETLSHARK_TMF_PATH"


def shared_tmf(env):
    """The shared TMFs copied where the test user can read them."""
    src = os.path.join(os.path.dirname(os.path.abspath(env.args.captures)), "tmf")
    dst = os.path.join(env.root, "tmf")
    if not os.path.isdir(dst):
        os.makedirs(dst)
        for n in os.listdir(src):
            if n.endswith(".tmf"):
                with open(os.path.join(src, n), "rb") as f, open(os.path.join(dst, n), "wb") as g:
                    g.write(f.read())
                os.chmod(os.path.join(dst, n), 0o644)
        os.chmod(dst, 0o755)
    return dst


def fields(env, path, extra, *names, extra_env=None, filt=None):
    cmd = [env.args.tshark, "-r", path] + extra + (["-Y", filt] if filt else []) + \
        ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for n in names:
        cmd += ["-e", n]
    _, out, err = env.run(cmd, extra_env=extra_env)
    return [line.split("\t") for line in out.splitlines()], err


def test_wppcldflt(env):
    tmf = shared_tmf(env)
    for name, n_msgs in (("wpp_onedrive_cldflt0.etl", 13), ("wpp_onedrive_cldflt1.etl", 3)):
        exp = env.expected[name]
        for how, extra, xenv in (("no TMF", [], None), ("ETLSHARK_TMF_PATH", [], {TMF_ENV: tmf}),
                                 ("etl.tmf_path", ["-o", f"etl.tmf_path:{tmf}"], None)):
            rows, err = fields(env, env.capture(name), extra, "frame.number", "etl.header_type", "etl.provider",
                               "etl.event_name", "etl.message_number", "etl.message_flags",
                               "etl.message_flags.systeminfo", "etl.pid", "etl.tid", "_ws.col.Info",
                               "etl.expert.tmf_missing", "_ws.expert.message", extra_env=xenv)
            where = f"{name} ({how})"
            tp.check(len(rows) == exp["records"], f"{where}: {len(rows)} frames, expected {exp['records']}")
            tp.check("error" not in err.lower(), f"{where}: tshark stderr: {err.strip()[:300]}")
            msgs = [r for r in rows if tp.HEADER_TYPES.get(int(r[1], 0)) == "MESSAGE"]
            tp.check(len(msgs) == n_msgs, f"{where}: {len(msgs)} MESSAGE frames")
            for r in msgs:
                tp.check(r[2] == GUID and r[3] == "Message(43)" and r[4] == "43", f"{where} frame {r[0]}: {r[2:5]}")
                tp.check(r[5] in ("0x00aa", "0xaa", "0x000000aa") and r[6] in ("1", "True"),
                         f"{where} frame {r[0]}: flags {r[5]} systeminfo {r[6]}")
                tp.check(r[7] and r[8], f"{where} frame {r[0]}: pid/tid {r[7]} {r[8]}")
                tp.check(r[9].startswith(f"{GUID}/Message(43)"), f"{where} frame {r[0]}: Info {r[9]}")
            noted = [r for r in rows if f"{GUID}.tmf would decode" in r[11]]
            tp.check(len(noted) == 1 and noted[0][0] == msgs[0][0],
                     f"{where}: {len(noted)} frames note the missing TMF (expected one, frame {msgs[0][0]})")
            if noted:
                tp.check("etl.tmf_path" in noted[0][11] and TMF_ENV in noted[0][11], f"{where}: note {noted[0][11]}")
        # two passes: the same one note
        rows, _ = fields(env, env.capture(name), ["-2"], "frame.number", "_ws.expert.message")
        noted = [r for r in rows if f"{GUID}.tmf would decode" in r[1]]
        tp.check(len(noted) == 1, f"{name} (two passes): {len(noted)} TMF notes")
        print(f"  ok {name}: {len(rows)} frames, {n_msgs} WPP messages named, one TMF note")


def test_wppgenerated(env):
    tmf = shared_tmf(env)
    gen = os.path.join(env.root, "wppgen")
    os.makedirs(gen, exist_ok=True)
    os.chmod(gen, 0o755)
    path = os.path.join(gen, "wpp.etl")
    subprocess.run([env.args.etlgen, "--preset", "wpp", "-o", path], check=True, capture_output=True)
    os.chmod(path, 0o644)
    oracle = subprocess.run([env.args.etldump, "--no-payload", "--tmf-path", tmf, path], capture_output=True, text=True)
    recs = [json.loads(line) for line in oracle.stdout.splitlines()]
    for how, extra, xenv in (("ETLSHARK_TMF_PATH", [], {TMF_ENV: tmf}), ("etl.tmf_path", ["-o", f"etl.tmf_path:{tmf}"], None)):
        rows, err = fields(env, path, extra, "frame.number", "_ws.col.Info", "etl.message", "etl.level_name",
                           "etl.keywords_name", "etl.provider_name", "etl.event_name", "_ws.expert.message",
                           extra_env=xenv)
        tp.check(len(rows) == len(recs), f"wpp.etl ({how}): {len(rows)} frames, etldump {len(recs)}")
        decoded = 0
        for row, r in zip(rows, recs):
            where = f"wpp.etl ({how}) frame {row[0]}"
            if "message" in r:
                decoded += 1
                want = f"{r['provider_name']}/{r['event_name']}: {r['message']}"
                tp.check(row[1] == want, f"{where}: Info {row[1]!r}, want {want!r}")
                tp.check(row[2] == r["message"], f"{where}: etl.message {row[2]!r}, want {r['message']!r}")
                tp.check(row[3] == r["level_name"] and row[4] == r["keywords_name"],
                         f"{where}: level/flags {row[3]} {row[4]}")
                tp.check(row[5] == r["provider_name"] and row[6] == r["event_name"], f"{where}: names {row[5]} {row[6]}")
            elif r["header_type"] != "SYSTEM64":
                tp.check(row[6] == r["event_name"], f"{where}: event name {row[6]}, want {r['event_name']}")
        tp.check(decoded == 18, f"wpp.etl ({how}): {decoded} messages decoded, expected 18")
        notes = [row for row in rows if "would decode" in row[7] or "defines no such message" in row[7]]
        tp.check(len(notes) == 2, f"wpp.etl ({how}): {len(notes)} TMF notes, expected 2")
        # the arguments' typed fields filter in the first run (registered at start-up)
        for filt, n in (("etl.data.status", 3), ('etl.data.remoteName == "PLAYSTATION(R)3 Controller"', 1),
                        ("etl.data.timeout == 250", 1)):
            got, _ = fields(env, path, extra, "frame.number", extra_env=xenv, filt=filt)
            tp.check(len(got) == n, f"wpp.etl ({how}): -Y {filt}: {len(got)} frames, expected {n}")
    print(f"  ok wpp.etl: {len(recs)} frames; Info, etl.message, level and flags as etldump; filters in one pass")


tp.TESTS.clear()
tp.TESTS.update({"wppcldflt": test_wppcldflt, "wppgenerated": test_wppgenerated})

if __name__ == "__main__":
    sys.exit(tp.main())
