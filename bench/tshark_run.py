"""tshark_run.py - what the tshark benches share (pktshark.py, tshark_bench.py): a folder the
unprivileged user can read with the build's plugins, the CPU time of one tshark run, and the
whole comparison (options, files counted, one line per mode: `bench`).

Wireshark ignores WIRESHARK_PLUGIN_DIR for root, so as root tshark runs as the user
etlsharktest (created if missing), as the plugin tests do.  Python 3 standard library only.
"""
import argparse
import os
import pwd
import shutil
import subprocess
import sys
import tempfile


class Tshark:
    """A temporary folder with BUILD/plugins copied in, and how to run tshark over files in it."""

    def __init__(self, build, tshark="tshark", extra_env=None):
        self.build = os.path.abspath(build)
        plugins = os.path.join(self.build, "plugins")
        if not os.path.isdir(plugins):
            sys.exit(f"{plugins} is missing (build the project first)")
        self.tshark = tshark
        self.root = tempfile.mkdtemp(prefix="tshark-bench-")
        os.chmod(self.root, 0o755)
        shutil.copytree(plugins, os.path.join(self.root, "plugins"))
        self.readable(os.path.join(self.root, "plugins"))
        home = os.path.join(self.root, "home")
        os.makedirs(home)
        self.kw = {}
        if os.geteuid() == 0:
            try:
                u = pwd.getpwnam("etlsharktest")
            except KeyError:
                subprocess.run(["useradd", "-m", "etlsharktest"], capture_output=True)
                u = pwd.getpwnam("etlsharktest")
            os.chown(home, u.pw_uid, u.pw_gid)
            self.kw = dict(user=u.pw_uid, group=u.pw_gid, extra_groups=[])
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
                    "LC_ALL": "C.UTF-8", "TZ": "UTC",
                    "WIRESHARK_PLUGIN_DIR": os.path.join(self.root, "plugins")}
        self.env.update(extra_env or {})

    def path(self, name):
        return os.path.join(self.root, name)

    @staticmethod
    def readable(top):
        """Make a file or a folder tree readable by everyone."""
        if os.path.isfile(top):
            os.chmod(top, 0o644)
            return
        os.chmod(top, 0o755)
        for dirpath, dirnames, filenames in os.walk(top):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
            for f in filenames:
                os.chmod(os.path.join(dirpath, f), 0o755)

    def copy_in(self, src, name):
        """Copy a file or folder into the readable folder; its new path."""
        dst = self.path(name)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copyfile(src, dst)
        self.readable(dst)
        return dst

    def cpu(self, path, extra):
        """CPU seconds (user + system, tshark and its children) of `tshark -r path extra...`,
        output to /dev/null."""
        with open(os.devnull, "wb") as out:
            p = subprocess.Popen([self.tshark, "-r", path] + list(extra), stdout=out,
                                 stderr=subprocess.PIPE, cwd=self.root, env=self.env, **self.kw)
            err = p.stderr.read().decode(errors="replace")
            _, status, ru = os.wait4(p.pid, 0)
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:
            sys.exit(f"tshark -r {path} {' '.join(extra)} exited {rc}: {err[:300]}")
        return ru.ru_utime + ru.ru_stime

    def count(self, path, flt):
        """Frames of `path` matching the display filter `flt`."""
        p = subprocess.run([self.tshark, "-r", path, "-Y", flt, "-T", "fields", "-e", "frame.number"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.root,
                           env=self.env, check=True, **self.kw)
        return p.stdout.count(b"\n")

    def compare(self, runs, modes, files, start):
        """For each mode (name -> extra args): every file of `files` (key -> (path, frames), the
        first the one measured, the second its yardstick) and the start-up file `start` read
        `runs` times, alternating; best CPU time of each; one line per mode: per frame =
        (best - start-up) / frames, and the ratio of the first to the second."""
        (ka, (_, na)), (kb, (_, nb)) = list(files.items())[:2]
        for mode, extra in modes.items():
            best = {}
            sbest = None
            for _ in range(runs):
                t = self.cpu(start, extra)
                sbest = t if sbest is None else min(sbest, t)
                for key, (path, _) in files.items():
                    t = self.cpu(path, extra)
                    best[key] = t if key not in best else min(best[key], t)
            pa = (best[ka] - sbest) / na * 1e6
            pb = (best[kb] - sbest) / nb * 1e6
            print(f"{mode:8s} start-up {sbest:.2f} s; {ka} {best[ka]:.2f} s, {kb} {best[kb]:.2f} s; "
                  f"per frame {ka} {pa:.2f} us, {kb} {pb:.2f} us: ratio {pa / pb:.2f}x", flush=True)

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def bench(doc, modes, add_args, prepare):
    """A tshark bench's main: the options every bench has (BUILD_DIR, --runs, --tshark, --modes)
    plus its own (`add_args(parser)`); `prepare(ts, args)` writes or copies the files into the
    readable folder and returns (files, start, describe): `files` maps a key to (path, display
    filter counting its frames), the first the file measured, the second its yardstick;
    `start` the start-up file; `describe(counts)` the first line of the report, from the frame
    counts by key.  Then every mode is compared (Tshark.compare) and the folder removed."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    add_args(ap)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--modes", default=",".join(modes), help="comma-separated subset of " + ",".join(modes))
    args = ap.parse_args()
    ts = Tshark(args.build, args.tshark)
    try:
        files, start, describe = prepare(ts, args)
        for path in [p for p, _ in files.values()] + [start]:
            ts.readable(path)
        counted = {key: (path, ts.count(path, flt)) for key, (path, flt) in files.items()}
        print(f"{describe({key: n for key, (_, n) in counted.items()})}; {args.runs} runs, best CPU time")
        ts.compare(args.runs, {m: modes[m] for m in args.modes.split(",")}, counted, start)
    finally:
        ts.close()
