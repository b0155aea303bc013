#!/usr/bin/env python3
"""speedbench.py - issue 16's figures, each as a ratio to md5sum of the same file in the same run.
A bench, not a timed test.

    bench/speedbench.py ETLDUMP [--runs R] [--threads N] [--manifests DIR] [--peer CMD] [--base OLD] FILE...

For every FILE, R rounds, each round running md5sum and then every etldump mode once on it
(so the yardstick and the measured command share the moment: the machine is shared), and per
command the best wall time and the best CPU time (user + system, the children's rusage) over
the rounds, plus the peak RSS (of one more run under /usr/bin/time, see peak_rss).  Modes:

  summary     etldump --summary --threads 1 FILE          (framing, merge in timestamp order)
  summary/N   etldump --summary --threads N FILE          (loader threads inflating ahead)
  json        etldump --threads 1 [--manifest-path DIR] FILE > /dev/null
  json/N      etldump --threads N [--manifest-path DIR] FILE > /dev/null

  peer        PEER FILE                                   (--peer PEER: another reader, say one
                                                          that frames and counts every record;
                                                          its exit status is not checked)

  base MODE   the same mode with OLD (--base OLD: another build of etldump, before a change),
              run right after the new build's in every round; printed as the new build's
              wall time over the old one's, best against best and median against median

Printed per mode: best wall s, best CPU s, wall and CPU as a ratio to md5sum's best wall/CPU,
records per second of wall time (JSON: events/s), peak RSS.  Each round also runs md5sum pinned
to each CPU, and the best per CPU is printed: on a VM one core can run much slower than the
other for minutes (session 12: 0.38 against 0.60 s for the same pinned etldump), and a sitting
with a slow core says nothing about what N threads gain (json/N over json, also printed).
Each round also runs one md5sum pinned to every CPU at the same time: the wall time until all
end, over one alone, is what the machine gives to work on all its cores side by side (1.0x on
cores of their own; more where vCPUs share a core or the host is busy), the ceiling json/N
lives under.  With json and json/N, the JSON mode itself is then run pinned to each CPU, alone
and side by side (--ceiling-runs rounds, json_ceiling): md5sum hardly touches memory, and on
the VM of session 18 it missed a vCPU that ran etldump 1.5x slower than the other; the JSON
mode's own ceiling for json/N is printed, and how much of it json/N reaches.  --manifests is passed to the JSON
modes only when the file name contains "net452" (the shared manifests describe its events).
A sitting in which one CPU ran the pinned one-thread JSON more than SLOW_CPU times slower than
another says so (NOT A SITTING): session 21's 13:27 sitting showed json/N at 1.80x a one-thread
run made slow by such a vCPU (0.61 against 0.38 s pinned).
Python 3 standard library only.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

# One CPU this much slower than another at the same pinned work: the sitting does not count.
SLOW_CPU = 1.15


def run(cmd, check=True):
    """(wall s, CPU s, peak RSS KiB) of cmd alone (its own rusage from wait4), stdout to /dev/null."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    if check and p.returncode not in (0, 1):
        sys.exit("%s: exit %d" % (" ".join(cmd), p.returncode))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def run_together(cmds):
    """Wall s until every one of cmds, started at once, has ended."""
    return max(run_each_together(cmds))


def run_each_together(cmds):
    """Each of cmds' wall s, all started at once."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        ps = [subprocess.Popen(c, stdout=null, stderr=subprocess.DEVNULL) for c in cmds]
        ends = {}
        while len(ends) < len(ps):
            pid, _ = os.wait()
            ends[pid] = time.perf_counter() - t0
        return [ends[p.pid] for p in ps]


def json_ceiling(json_cmd, cpus, rounds):
    """What the cores give the JSON mode, from R rounds of json_cmd (one thread) pinned to each
    CPU alone and then pinned to every CPU at once: (best wall per CPU alone, best wall per CPU
    side by side, their rate side by side in files per second).  That rate is what --threads N
    could reach if its threads shared the work perfectly and cost nothing more.  On the 2-core VM of session 18 one vCPU ran etldump 1.5x slower than
    the other for minutes at a time (cpu0 560 ms, cpu1 374 ms) while md5sum ran 1.1x slower
    there: the md5sum yardstick did not show it, and json/N can be no more than ~1.65x then."""
    alone = {c: 1e9 for c in cpus}
    side = {c: 1e9 for c in cpus}
    for _ in range(rounds):
        for c in cpus:
            alone[c] = min(alone[c], run(["taskset", "-c", str(c)] + json_cmd)[0])
        for c, w in zip(cpus, run_each_together([["taskset", "-c", str(c)] + json_cmd for c in cpus])):
            side[c] = min(side[c], w)
    return alone, side, sum(1 / side[c] for c in cpus)


def peak_rss(cmd):
    """Peak RSS KiB of cmd from one more run under GNU time, or None without it.  wait4's
    ru_maxrss cannot tell: a child forked (or vforked) from Python keeps at exec the high-water
    mark of the Python pages it started from (14 MiB here), which hides every smaller peak."""
    if not os.path.exists("/usr/bin/time"):
        return None
    fd, out = tempfile.mkstemp(prefix="speedbench-rss-")
    os.close(fd)
    try:
        with open(os.devnull, "wb") as null:
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out] + cmd, stdout=null, stderr=null)
        with open(out) as f:
            return int(f.read().split()[-1])
    except (ValueError, IndexError):
        return None
    finally:
        os.unlink(out)


def records(etldump, path):
    out = subprocess.run([etldump, "--summary", path], capture_output=True, text=True).stdout
    m = re.search(r'"records":(\d+)', out)
    return int(m.group(1)) if m else 0


def median(xs):
    xs = sorted(xs)
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("etldump")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--manifests", default=None)
    ap.add_argument("--modes", default="summary,summary/N,json,json/N")
    ap.add_argument("--peer", default=None, help="another reader's command, run as PEER FILE in every round")
    ap.add_argument("--base", default=None, help="an older etldump: every mode also run with it, in the same rounds")
    ap.add_argument("--ceiling-runs", type=int, default=5,
                    help="rounds of the JSON mode pinned to each CPU, alone and side by side (json_ceiling); 0: none")
    args = ap.parse_args()
    n = str(args.threads)
    for path in args.files:
        mf = ["--manifest-path", args.manifests] if args.manifests and "net452" in path else []
        def mode_cmds(e):
            return {
                "summary": [e, "--summary", "--threads", "1", path],
                "summary/N": [e, "--summary", "--threads", n, path],
                "json": [e, "--threads", "1"] + mf + [path],
                "json/N": [e, "--threads", n] + mf + [path],
            }
        modes = mode_cmds(args.etldump)
        measured = [m for m in args.modes.split(",") if m in modes]
        if args.base:
            old = mode_cmds(args.base)
            for m in measured:
                modes["base " + m] = old[m]
        if args.peer:
            modes["peer"] = args.peer.split() + [path]
        # each mode, then (with --base) the same mode with the old build, then the peer
        wanted = [x for m in measured for x in ([m, "base " + m] if args.base else [m])] + (["peer"] if args.peer else [])
        walls = {m: [] for m in wanted}
        best = {"md5sum": [1e9, 1e9, 0]}
        for m in wanted:
            best[m] = [1e9, 1e9, 0]
        cpus = sorted(os.sched_getaffinity(0))
        per_cpu = {c: 1e9 for c in cpus}
        together = 1e9
        for _ in range(args.runs):
            for name, cmd in [("md5sum", ["md5sum", path])] + [(m, modes[m]) for m in wanted]:
                w, c, rss = run(cmd, check=name != "peer")
                if name in walls:
                    walls[name].append(w)
                b = best[name]
                b[0], b[1], b[2] = min(b[0], w), min(b[1], c), max(b[2], rss)
            for c in cpus:
                per_cpu[c] = min(per_cpu[c], run(["taskset", "-c", str(c), "md5sum", path])[0])
            if len(cpus) > 1:
                together = min(together, run_together([["taskset", "-c", str(c), "md5sum", path] for c in cpus]))
        for m in wanted:
            best[m][2] = peak_rss(modes[m]) or best[m][2]
        nrec = records(args.etldump, path)
        size = os.path.getsize(path)
        print("%s: %d records, %.1f MB; md5sum best wall %.3f s, CPU %.3f s (best of %d, threads N = %s)"
              % (os.path.basename(path), nrec, size / 1e6, best["md5sum"][0], best["md5sum"][1], args.runs, n))
        print("  %-14s %8s %8s %10s %10s %12s %9s" % ("mode", "wall s", "CPU s", "wall/md5", "CPU/md5", "records/s", "RSS MiB"))
        for m in wanted:
            w, c, rss = best[m]
            print("  %-14s %8.3f %8.3f %9.2fx %9.2fx %12.0f %9.1f"
                  % (m, w, c, w / best["md5sum"][0], c / max(best["md5sum"][1], 1e-9), nrec / w, rss / 1024))
        if "peer" in wanted:
            for m in ("summary", "summary/N"):
                if m in wanted:
                    print("  %s takes %.2fx the peer's wall time" % (m, best[m][0] / best["peer"][0]))
        for m in measured if args.base else []:
            print("  %s: new/old wall %.3fx best, %.3fx median" % (m, best[m][0] / best["base " + m][0],
                                                                  median(walls[m]) / median(walls["base " + m])))
        if "json" in wanted and "json/N" in wanted:
            print("  json/N is %.2fx json's rate" % (best["json"][0] / best["json/N"][0]))
            if len(cpus) > 1 and args.ceiling_runs:
                alone, side, rate = json_ceiling(modes["json"], cpus, args.ceiling_runs)
                one = min([best["json"][0]] + list(alone.values())) # the best one-thread run, pinned or not
                print("  json pinned, best wall per CPU alone: %s; side by side: %s"
                      % (", ".join("cpu%d %.3f s" % (c, alone[c]) for c in cpus),
                         ", ".join("cpu%d %.3f s" % (c, side[c]) for c in cpus)))
                print("  the cores side by side give %.2fx the best one-thread rate (%.3f s); json/N is %.2fx it,"
                      " %.0f%% of what they give" % (rate * one, one, one / best["json/N"][0],
                                                    100 / best["json/N"][0] / rate))
                slow = max(alone, key=alone.get)
                fast = min(alone, key=alone.get)
                if alone[slow] > SLOW_CPU * alone[fast]:
                    print("  NOT A SITTING: cpu%d ran the one-thread JSON %.2fx slower than cpu%d, alone: a vCPU"
                          " slowed, and json/N's ratios say nothing" % (slow, alone[slow] / alone[fast], fast))
        print("  md5sum pinned, best wall per CPU: %s" % ", ".join("cpu%d %.3f s" % (c, per_cpu[c]) for c in cpus))
        if len(cpus) > 1:
            print("  md5sum on every CPU at once: best wall %.3f s, %.2fx one alone (what the cores give side by side)"
                  % (together, together / min(per_cpu.values())))


if __name__ == "__main__":
    main()
