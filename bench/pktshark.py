#!/usr/bin/env python3
"""pktshark.py - what a packet frame costs tshark read from a pktmon .etl against the same frame
read from the equivalent pcapng (issue 12: at most 1.25x).  A bench, not a timed test.

    bench/pktshark.py BUILD_DIR [--records N] [--runs R]

Generates `etlgen --preset pktmon_large --records N` (default 100000 packet events), writes its
pcapng with `etldump --pcapng`, then, in one run, reads both R times, alternating (best CPU time
of each, user + system, of tshark and its children), and a tiny pcapng for tshark's start-up
(loading the plugins, registering fields).  Per frame = (best - start-up) / packet frames; the
ratio is .etl per frame / pcapng per frame.  Modes:

  summary   tshark -r FILE                       (summary lines: no protocol tree)
  fields    tshark -r FILE -T fields -e ip.src -e udp.srcport   (a tree: every field decoded)

tshark runs with the build's plugins (BUILD_DIR/plugins) for both files; as root it runs as the
unprivileged user etlsharktest (Wireshark ignores WIRESHARK_PLUGIN_DIR for root), from a
temporary folder it can read.  Python 3 standard library only.
"""
import argparse
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

MODES = {
    "summary": [],
    "fields": ["-T", "fields", "-e", "ip.src", "-e", "udp.srcport"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--records", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tshark", default="tshark")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    etlgen = os.path.join(build, "tests", "etlgen", "etlgen")
    etldump = os.path.join(build, "etldump")
    plugins = os.path.join(build, "plugins")
    for p in (etlgen, etldump, plugins):
        if not os.path.exists(p):
            sys.exit(f"pktshark: {p} is missing (build the project first)")

    root = tempfile.mkdtemp(prefix="pktshark-")
    os.chmod(root, 0o755)
    try:
        shutil.copytree(plugins, os.path.join(root, "plugins"))
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, "plugins")):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o755)
        etl = os.path.join(root, "large.etl")
        pcap = os.path.join(root, "large.pcapng")
        tiny_etl = os.path.join(root, "tiny.etl")
        tiny = os.path.join(root, "tiny.pcapng")
        subprocess.run([etlgen, "--preset", "pktmon_large", "--records", str(args.records), "-o", etl], check=True)
        subprocess.run([etlgen, "--preset", "pktmon_large", "--records", "1", "-o", tiny_etl], check=True)
        for src, dst in ((etl, pcap), (tiny_etl, tiny)):
            p = subprocess.run([etldump, "--pcapng", dst, src], capture_output=True)
            if p.returncode not in (0, 1):
                sys.exit(f"pktshark: etldump --pcapng {src}: {p.stderr.decode()[:300]}")
        for f in (etl, pcap, tiny):
            os.chmod(f, 0o644)
        home = os.path.join(root, "home")
        os.makedirs(home)
        kw = {}
        if os.geteuid() == 0:
            try:
                u = pwd.getpwnam("etlsharktest")
            except KeyError:
                subprocess.run(["useradd", "-m", "etlsharktest"], capture_output=True)
                u = pwd.getpwnam("etlsharktest")
            os.chown(home, u.pw_uid, u.pw_gid)
            kw = dict(user=u.pw_uid, group=u.pw_gid, extra_groups=[])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C.UTF-8",
               "TZ": "UTC", "WIRESHARK_PLUGIN_DIR": os.path.join(root, "plugins")}

        def cpu(path, extra):
            """CPU seconds of one tshark run, and its number of output lines."""
            with tempfile.TemporaryFile() as out:
                p = subprocess.Popen([args.tshark, "-r", path] + extra, stdout=out,
                                     stderr=subprocess.PIPE, cwd=root, env=env, **kw)
                _, status, ru = os.wait4(p.pid, 0)
                p.returncode = os.waitstatus_to_exitcode(status)
                err = p.stderr.read().decode()
                if p.returncode != 0:
                    sys.exit(f"pktshark: tshark -r {path} exited {p.returncode}: {err[:300]}")
                out.seek(0)
                lines = sum(1 for _ in out)
            return ru.ru_utime + ru.ru_stime, lines

        # the packet frames of each file: every pcapng frame; the .etl's frames with a packet
        def count(path, flt):
            with tempfile.TemporaryFile() as out:
                subprocess.run([args.tshark, "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"],
                               stdout=out, stderr=subprocess.DEVNULL, cwd=root, env=env, check=True, **kw)
                out.seek(0)
                return sum(1 for _ in out)
        n_etl = count(etl, "etl.pkt.link_type")
        n_pcap = count(pcap, "frame")
        print(f"pktmon_large --records {args.records}: .etl {os.path.getsize(etl)} bytes, {n_etl} packet "
              f"frames; pcapng {os.path.getsize(pcap)} bytes, {n_pcap} frames; {args.runs} runs, best CPU time")
        for mode, extra in MODES.items():
            best = {"etl": None, "pcapng": None, "start": None}
            for _ in range(args.runs):
                for key, path in (("start", tiny), ("pcapng", pcap), ("etl", etl)):
                    t, _ = cpu(path, extra)
                    best[key] = t if best[key] is None else min(best[key], t)
            per_etl = (best["etl"] - best["start"]) / n_etl * 1e6
            per_pcap = (best["pcapng"] - best["start"]) / n_pcap * 1e6
            print(f"{mode:8s} start-up {best['start']:.2f} s; .etl {best['etl']:.2f} s, pcapng "
                  f"{best['pcapng']:.2f} s (whole runs {best['etl'] / best['pcapng']:.2f}x); per frame "
                  f".etl {per_etl:.2f} us, pcapng {per_pcap:.2f} us: ratio {per_etl / per_pcap:.2f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
