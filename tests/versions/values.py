#!/usr/bin/env python3
"""values.py - the decoded values of every shared capture, to compare Wireshark versions.

  values.py dump --plugins DIR --captures DIR [--manifests DIR] --out FILE
      runs tshark -T pdml on every capture listed in expected.json (the manifest folder given
      as the etl.manifest_path preference) and writes, per capture, the number of frames and
      of etl.* values and a digest of them: each frame's etl.* fields in document order as
      name=value, where value is PDML's `show` text.  PDML is used, not `-T fields`, because
      the escaping of `-T fields` changed (4.6 escapes backslashes); the XML parser undoes
      PDML's own escaping, so the digest covers the values themselves.  Absolute times, which
      4.6 shows as ISO 8601 and 4.0 as 'Feb 28, 2020 09:03:47.744579000 UTC', are written in
      4.0's form (tests/plugin/ws_output.py): the same instant compares equal.
      DIR of --plugins holds <X.Y>/{epan,wiretap}.  As root, tshark runs as etlsharktest
      (Wireshark ignores WIRESHARK_PLUGIN_DIR for root) from a readable copy of everything.
  values.py pcapng --plugins DIR --captures DIR --out DIR
      (on a Wireshark whose .etl reader is built) saves every non-empty capture's records as a
      pcapng of ETW frames (editcap -F pcapng -T user0, as etlsharktest), OUT/<capture>.pcapng,
      and writes OUT/expected.json naming them with the .etl's record count.  A pcapng is a file
      any Wireshark opens by itself: on 4.4, where the reader cannot be built, this is how the
      dissector is tested on every capture's frames.
  values.py dump --user-dlt ...
      reads the captures of such a folder (--captures OUT) with `-2 -o <user DLT 147 = etl>`
      (frames from a pcapng carry no trace path, so the dissector learns schemas as frames come:
      two passes), and fails a capture whose frame count is not the .etl's record count.
  values.py compare REF FILE
      exit 0 when FILE has the same frames and values as REF for every capture of REF, else
      prints the captures that differ (and the first differing value) and exits 1.
"""
import argparse
import contextlib
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TEST_USER = "etlsharktest"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin"))
from ws_output import as_wireshark_40  # noqa: E402  (4.6's ISO 8601 times -> 4.0's text)


def readable_copy(src, dst):
    shutil.copytree(src, dst)
    for d, dirs, files in os.walk(dst):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)


# Frames of a pcapng saved with editcap -T user0 are on user DLT 147; this maps it to "etl"
# (the same preference as tests/plugin/test_plugin.py's USER_DLT_PREF).
USER_DLT_PREF = 'uat:user_dlts:"User 0 (DLT=147)","etl","0","","0",""'


def test_user_env(tmp, plugins):
    """Environment and Popen arguments to run the tools as etlsharktest when root (Wireshark
    ignores WIRESHARK_PLUGIN_DIR for root), with a fresh home in tmp."""
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    kw = {}
    if os.geteuid() == 0:
        u = pwd.getpwnam(TEST_USER)
        os.chown(home, u.pw_uid, u.pw_gid)
        os.chown(tmp, u.pw_uid, u.pw_gid)
        kw = dict(user=u.pw_uid, group=u.pw_gid, extra_groups=[])
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "LC_ALL": "C.UTF-8", "TZ": "UTC",
           "WIRESHARK_PLUGIN_DIR": plugins}
    return env, kw


@contextlib.contextmanager
def test_user_workspace(prefix, args):
    """A temporary folder etlsharktest can read, holding copies of args.plugins and
    args.captures (and args.manifests when given); yields a namespace with tmp, plugins,
    captures, manifests (or None), env and kw (test_user_env) and expected (the captures'
    expected.json).  Removed afterwards."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.chmod(tmp, 0o755)
    try:
        ws = argparse.Namespace(tmp=tmp, manifests=None)
        ws.plugins = os.path.join(tmp, "plugins")
        readable_copy(args.plugins, ws.plugins)
        ws.captures = os.path.join(tmp, "captures")
        readable_copy(args.captures, ws.captures)
        if getattr(args, "manifests", None):
            ws.manifests = os.path.join(tmp, "manifests")
            readable_copy(args.manifests, ws.manifests)
        ws.env, ws.kw = test_user_env(tmp, ws.plugins)
        with open(os.path.join(args.captures, "expected.json"), encoding="utf-8") as f:
            ws.expected = json.load(f)
        yield ws
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def pcapng(args):
    with test_user_workspace("etlshark-pcapng-", args) as ws:
        tmp, captures, env, kw, expected = ws.tmp, ws.captures, ws.env, ws.kw, ws.expected
        os.makedirs(args.out, exist_ok=True)
        made = {}
        for name in sorted(expected):
            records = expected[name].get("records", 0)
            if not records or os.path.getsize(os.path.join(captures, name)) == 0:
                continue  # the empty capture: nothing to save (tshark refuses it)
            out = os.path.join(tmp, name + ".pcapng")
            p = subprocess.run(["editcap", "-F", "pcapng", "-T", "user0",
                                os.path.join(captures, name), out],
                               capture_output=True, text=True, env=env, cwd=tmp,
                               timeout=600, **kw)
            if p.returncode != 0 or not os.path.exists(out):
                print(f"values: editcap failed on {name}: {p.stderr.strip()[:300]}")
                return 1
            shutil.copyfile(out, os.path.join(args.out, name + ".pcapng"))
            made[name + ".pcapng"] = {"records": records, "from": name}
        with open(os.path.join(args.out, "expected.json"), "w", encoding="utf-8") as f:
            json.dump(made, f, indent=1)
        print(f"values: {len(made)} captures saved as pcapng of ETW frames in {args.out}")
        return 0


def dump(args):
    with test_user_workspace("etlshark-values-", args) as ws:
        tmp, captures, manifests = ws.tmp, ws.captures, ws.manifests
        env, kw, expected = ws.env, ws.kw, ws.expected
        names = sorted(expected)
        result = {}
        for name in names:
            cmd = ["tshark", "-r", os.path.join(captures, name), "-T", "pdml"]
            if args.user_dlt:
                cmd += ["-2", "-o", USER_DLT_PREF]
            if manifests:
                cmd += ["-o", f"etl.manifest_path:{manifests}"]
            # Streamed: the PDML of the larger captures is hundreds of megabytes.
            errf = tempfile.TemporaryFile()
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, env=env, cwd=tmp, **kw)
            h = hashlib.sha256()
            frames = values = 0
            first = []
            frame_digests = []
            try:
                for _, pk in ET.iterparse(p.stdout, events=("end",)):
                    if pk.tag != "packet":
                        continue
                    frames += 1
                    fh = hashlib.sha256()
                    for proto in pk.findall("proto"):
                        if proto.get("name") != "etl":
                            continue
                        for fe in proto.iter("field"):
                            n = fe.get("name") or ""
                            if not n.startswith("etl."):
                                continue
                            show = as_wireshark_40(["-T", "pdml"], fe.get("show") or "")
                            # Texts that name a file of the workspace (etl.manifest_problem) name
                            # it relative to it: the folder is a new temporary one each run.
                            show = show.replace(tmp, "$WORKSPACE")
                            line = f"{frames}:{n}={show}\n"
                            h.update(line.encode("utf-8"))
                            fh.update(line.encode("utf-8"))
                            values += 1
                            if len(first) < 4000:
                                first.append(line.rstrip("\n"))
                    # 8 hex digits per frame: enough to name the first frame that differs.
                    frame_digests.append(fh.hexdigest()[:8])
                    pk.clear()
            except ET.ParseError as e:
                # No PDML at all is what a refused file gives (its exit status is compared).
                if frames:
                    p.kill()
                    result[name] = {"error": f"PDML does not parse: {e}"}
            rc = p.wait()
            errf.seek(0)
            err = errf.read().decode("utf-8", "replace")
            errf.close()
            if name in result:
                continue
            if args.user_dlt and frames != expected[name]["records"]:
                result[name] = {"error": f"{frames} frames, the .etl has "
                                         f"{expected[name]['records']} records"}
                continue
            # A capture tshark refuses (the empty one) must be refused everywhere: the exit
            # status is compared, the wording of the message is not.
            result[name] = {"frames": frames, "values": values, "sha256": h.hexdigest(),
                            "rc": rc, "stderr": err[:300], "first": first,
                            "frame_digests": "".join(frame_digests)}
        ver = subprocess.run(["tshark", "--version"], capture_output=True, text=True, env=env, **kw)
        out = {"tshark": ver.stdout.splitlines()[0] if ver.stdout else "?", "captures": result}
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        bad = [n for n, r in result.items() if "error" in r]
        refused = [n for n, r in result.items() if r.get("rc")]
        print(f"values: {out['tshark']}: {len(result)} captures, "
              f"{sum(r.get('values', 0) for r in result.values())} etl.* values"
              + (f"; tshark refused {refused}" if refused else "")
              + (f"; no PDML from {bad}" if bad else ""))
        return 1 if bad else 0


def compare(args):
    ref = json.load(open(args.ref, encoding="utf-8"))
    got = json.load(open(args.file, encoding="utf-8"))
    diffs = 0
    for name, r in sorted(ref["captures"].items()):
        g = got["captures"].get(name)
        if g is None:
            print(f"  FAIL {name}: missing from {args.file}")
            diffs += 1
            continue
        if "error" in r or "error" in g:
            print(f"  FAIL {name}: {r.get('error') or g.get('error')}")
            diffs += 1
            continue
        # Refused (nonzero) must stay refused; the exit code itself changed (4.0: 2, 4.6: 3).
        if (r["frames"], r["values"], r["sha256"], r["rc"] != 0) == \
                (g["frames"], g["values"], g["sha256"], g["rc"] != 0):
            print(f"  ok   {name}: {g['frames']} frames, {g['values']} values equal"
                  + (f" (tshark exits {g['rc']} in both)" if g["rc"] else ""))
            continue
        diffs += 1
        where = next((f"{a!r} vs {b!r}" for a, b in zip(r["first"], g["first"]) if a != b), None)
        if where is None:
            rd, gd = r.get("frame_digests", ""), g.get("frame_digests", "")
            frame = next((i // 8 + 1 for i in range(0, min(len(rd), len(gd)), 8)
                          if rd[i:i + 8] != gd[i:i + 8]), None)
            where = f"frame {frame} (its etl.* values)" if frame else "beyond the first values kept"
        print(f"  FAIL {name}: {r['frames']}/{r['values']} frames/values (exit {r['rc']}) in "
              f"{ref['tshark']}, {g['frames']}/{g['values']} (exit {g['rc']}) in {got['tshark']}; "
              f"first difference: {where}")
    print(f"values: {got['tshark']} vs {ref['tshark']}: "
          + ("all equal" if not diffs else f"{diffs} capture(s) differ"))
    return 1 if diffs else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--plugins", required=True)
    d.add_argument("--captures", required=True)
    d.add_argument("--manifests")
    d.add_argument("--out", required=True)
    d.add_argument("--user-dlt", action="store_true",
                   help="the captures are pcapng of ETW frames (values.py pcapng)")
    g = sub.add_parser("pcapng")
    g.add_argument("--plugins", required=True)
    g.add_argument("--captures", required=True)
    g.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("file")
    args = ap.parse_args()
    return {"dump": dump, "pcapng": pcapng, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
