#!/usr/bin/env python3
"""etldump --threads N: the same output as one thread, byte for byte (docs/parallel.md).

Usage: test_threads.py ETLDUMP ETLGEN SHARED_DIR TEST
TEST is one of:
  corpus     every shared capture, in every decoding mode (JSON, --no-payload, the shared
             manifests, the shared TMF files): stdout, stderr and the exit status of
             --threads 2, 3 and 4 equal those of --threads 1
  damaged    truncated and corrupted copies of several captures, the same comparison
  batches    a generated kernel trace of many batches (more than the ring of 2 x 4 batches
             holds): the same comparison, and every record written
  halves     a generated kernel trace large enough for the pre-scan on two threads (prescan.h:
             over 8 MiB, uncompressed), clean and with damage in the pieces the helper takes
             from the back, in the main thread's, between pieces and at a piece's start (where
             the helper's copies are not used): the same comparison
  memory     peak memory does not grow with the trace: a generated TraceLogging trace (every
             event names its provider in its own PROV_TRAITS) of 50,000 and of 400,000 records at
             --threads 2 and 4 (the answers kept for the slots once grew with every record:
             cli/parallel.h); skipped under AddressSanitizer, whose quarantine keeps freed memory
  default    without --threads, etldump makes the threads of --threads K, K the CPUs it may use
             (its affinity set: one under `taskset -c 0`, not the machine's cores), counted
             as the thread-making clone calls strace sees (not LeakSanitizer's tracer task under
             AddressSanitizer), and writes the same
Each prints what it checked and ends with an "N passed, N failed" line.  Every etldump run has a
time limit (RUN_TIMEOUT, or $ETLSHARK_RUN_TIMEOUT seconds): a run past it is a hang - a race in
the pool, say - and fails the test at once, naming the run, instead of holding CI until ctest's
own limit (a race once hung threads.corpus for 954 s).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from checks import check, finish

ETLDUMP, ETLGEN, SHARED, WHICH = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
CAPTURES = os.path.join(SHARED, "captures")
MODES = {
    "json": [],
    "no-payload": ["--no-payload"],
    "manifests": ["--manifest-path", os.path.join(SHARED, "manifests")],
    "tmf": ["--tmf-path", os.path.join(SHARED, "tmf")],
}


# Seconds one run may take: the slowest, a shared capture at --threads 4 under AddressSanitizer,
# takes a few (threads.corpus: ~270 runs in 107 s in CI).
RUN_TIMEOUT = float(os.environ.get("ETLSHARK_RUN_TIMEOUT", "120"))


def bounded(cmd, **kw):
    """subprocess.run with the time limit; a run past it ends the test as failed."""
    try:
        return subprocess.run(cmd, timeout=RUN_TIMEOUT, **kw)
    except subprocess.TimeoutExpired:
        check(False, f"{' '.join(cmd)}: still running after {RUN_TIMEOUT:g} s (killed: a hang)")
        finish()


def run(threads, args, path):
    p = bounded([ETLDUMP, "--threads", str(threads), *args, path], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def same_across_threads(path, args, what, threads=(2, 3, 4)):
    """Compare every thread count with one thread; the one-thread result."""
    one = run(1, args, path)
    for n in threads:
        got = run(n, args, path)
        check(got[0] == one[0], f"{what} --threads {n}: exit {got[0]} == {one[0]}")
        if got[1] != one[1]:
            a, b = one[1].split(b"\n"), got[1].split(b"\n")
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            check(False, f"{what} --threads {n}: stdout differs from line {i + 1} ({len(b)} vs {len(a)} lines)")
        else:
            check(True, "")
        check(got[2] == one[2], f"{what} --threads {n}: stderr equal ({got[2][:200]!r} vs {one[2][:200]!r})")
    return one


def captures():
    return sorted(f for f in os.listdir(CAPTURES) if f.endswith(".etl"))


def test_corpus():
    caps = captures()
    check(len(caps) == 22, f"22 shared captures (found {len(caps)})")
    for name in caps:
        path = os.path.join(CAPTURES, name)
        for mode, args in MODES.items():
            rc, out, err = same_across_threads(path, args, f"{name} {mode}")
            if mode == "json" and os.path.getsize(path) > 0:
                # real records came out (the comparison is not of two empty outputs)
                check(out.count(b"\n") > 0 and rc in (0, 1), f"{name}: records written (rc {rc})")


def test_damaged():
    tmp = tempfile.mkdtemp(prefix="etl-threads-")
    try:
        for cap in ["perfview_net452_x64_merged_compressed.etl", "perfview_diaghub_user_paged_clr_tl.etl",
                    "etlparser_ShutdownPerfDiagLogger_kernel.etl", "wpp_onedrive_cldflt0.etl",
                    "tx_HTTP_Server_manifest.etl"]:
            data = open(os.path.join(CAPTURES, cap), "rb").read()
            path = os.path.join(tmp, "bad.etl")
            # truncated at a few points
            for k in (3, 11, 23):
                with open(path, "wb") as f:
                    f.write(data[: len(data) * k // 29])
                rc, out, err = same_across_threads(path, [], f"{cap} cut at {k}/29", threads=(2, 4))
                check(rc == 1 and err, f"{cap} cut at {k}/29: damage reported (rc {rc})")
            # bytes overwritten inside buffers (headers and records): damage reported in order
            bad = bytearray(data)
            for k in range(1, 40):
                at = len(bad) * k // 41
                bad[at : at + 24] = bytes([0xA5 ^ (i * 7 & 0xFF) for i in range(24)])
            with open(path, "wb") as f:
                f.write(bad)
            same_across_threads(path, [], f"{cap} corrupted", threads=(2, 4))
        # not a trace, and no file at all: the decoding reader's open fails while the pre-scan's
        # reader opens on another thread (etldump.c, prescan_open_job): nothing more is said
        with open(path, "wb") as f:
            f.write(bytes(range(256)) * 64)
        rc, out, err = same_across_threads(path, [], "not a trace", threads=(2, 4))
        check(rc == 2 and b"not an ETW trace" in err and not out, f"not a trace: refused (rc {rc}, {err[:120]!r})")
        rc, out, err = same_across_threads(os.path.join(tmp, "missing.etl"), [], "missing file", threads=(2, 4))
        check(rc == 2 and err.count(b"\n") == 1, f"missing file: one line on stderr (rc {rc}, {err!r})")
    finally:
        shutil.rmtree(tmp)


def test_batches():
    tmp = tempfile.mkdtemp(prefix="etl-threads-")
    try:
        path = os.path.join(tmp, "large.etl")
        bounded([ETLGEN, "--preset", "large_kernel", "--records", "60000", "-o", path], check=True)
        rc, out, err = same_across_threads(path, [], "large_kernel 60000")
        check(rc == 0, f"large_kernel: exit 0 (got {rc})")
        lines = out.count(b"\n")
        check(lines >= 60000, f"large_kernel: every record written ({lines} lines)")
        rc, out, err = same_across_threads(path, ["--no-payload"], "large_kernel 60000 --no-payload", threads=(2,))
        # TraceLogging and kernel records mixed: provider names learnt from earlier records
        bounded([ETLGEN, "--preset", "large", "--records", "30000", "-o", path], check=True)
        rc, out, err = same_across_threads(path, [], "large 30000", threads=(2, 3))
        check(rc == 0 and out.count(b"\n") >= 30000, f"large: every record written (rc {rc})")
    finally:
        shutil.rmtree(tmp)


def test_halves():
    tmp = tempfile.mkdtemp(prefix="etl-threads-")
    try:
        path = os.path.join(tmp, "large.etl")
        bounded([ETLGEN, "--preset", "large_kernel", "--records", "150000", "-o", path], check=True)
        data = open(path, "rb").read()
        bs = 65536  # the generator's buffer size
        check(len(data) > 8 << 20 and len(data) % bs == 0, f"large_kernel 150000: {len(data)} bytes, whole buffers")
        rc, out, err = same_across_threads(path, [], "large_kernel 150000", threads=(2, 3))
        check(rc == 0 and out.count(b"\n") >= 150000, f"large_kernel 150000: every record written (rc {rc})")
        # The pieces the helper takes from the back (prescan.c: SPLIT_PIECES of the file, none
        # under SPLIT_PIECE_MIN_BYTES, in whole buffers).  Where the two threads meet depends on
        # their speeds: damage in the last pieces is the helper's, in the first the main thread's,
        # and the middle either's; the output is one thread's wherever it is.
        buffers = len(data) // bs
        per = max(buffers // 64, -(-(1 << 20) // bs))
        pieces = -(-buffers // per)
        last, mid = (pieces - 1) * per * bs, pieces // 2 * per * bs
        for what, at, junk in [("the last piece's first buffer header", last, b"\xff" * 8),
                               ("a buffer header in the piece before the last", last - per * bs + 5 * bs, b"\xff" * 8),
                               ("records in the middle piece", mid + 7 * bs + 0x48, bytes(range(64))),
                               ("records near the front (the main thread's)", 20 * bs + 0x300, b"\xee" * 48),
                               ("the last buffer before the middle piece", mid - bs + 0x48, bytes(16)),
                               ("the middle piece's first buffer header", mid, b"\xff" * 8)]:
            bad = bytearray(data)
            bad[at : at + len(junk)] = junk
            with open(path, "wb") as f:
                f.write(bad)
            rc, out, err = same_across_threads(path, [], f"large_kernel 150000, {what} damaged", threads=(2,))
            check(rc == 1 and err, f"{what}: damage reported (rc {rc})")
    finally:
        shutil.rmtree(tmp)


def threads_in_strace(lines):
    """The threads a `strace -f -e trace=clone,clone3` log shows made: the calls that asked for
    CLONE_THREAD and did not fail.  Other clones are not etldump's threads: under
    AddressSanitizer, LeakSanitizer's check at exit clones a tracer task (CLONE_VM without
    CLONE_THREAD), once a run.  A call another thread's line interrupts is printed in two
    parts, "clone3(... <unfinished ...>" and "<... clone3 resumed> ... = TID", on its pid."""
    made, pending = 0, {}
    for line in lines:
        pid, _, rest = line.partition(" ")
        rest = rest.lstrip()
        if rest.startswith("<... clone"):
            if pending.pop(pid, False) and "= -1" not in rest:
                made += 1
        elif rest.startswith("clone"):
            thread = "CLONE_THREAD" in rest
            if rest.endswith("<unfinished ...>"):
                pending[pid] = thread
            elif thread and "= -1" not in rest:
                made += 1
    return made


def test_strace_parse():
    """The counter on the lines strace prints (tests/integration/test_threads.py's own check)."""
    log = ["100 clone3({flags=CLONE_VM|CLONE_THREAD|CLONE_SETTLS, stack_size=0x7fff80} => {parent_tid=[101]}, 88) = 101",
           "100 clone3({flags=CLONE_VM|CLONE_THREAD, stack_size=0x7fff80} <unfinished ...>",
           "101 clone3({flags=CLONE_VM|CLONE_THREAD} = -1 ENOSYS (Function not implemented)",
           "100 <... clone3 resumed> => {parent_tid=[102]}, 88) = 102",
           "100 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_UNTRACED) = 103"]
    check(threads_in_strace(log) == 2, "strace log: two threads counted, not a failed clone3 nor LSan's tracer")


def threads_made(args, cpus):
    """(threads etldump made, its stdout) when run on the CPU set `cpus`: its clone calls."""
    tmp = tempfile.mkdtemp(prefix="etlshark-threads-")
    try:
        log = os.path.join(tmp, "clone.strace")
        p = bounded(["strace", "-f", "-qq", "-e", "trace=clone,clone3", "-e", "signal=none", "-o", log,
                     ETLDUMP, *args], capture_output=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        with open(log) as f:
            made = threads_in_strace(line.rstrip("\n") for line in f)
        return made, p.stdout
    finally:
        shutil.rmtree(tmp)


def peak_rss_kb(cmd):
    """Run cmd (output discarded) with the time limit: its exit status and peak resident memory."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    timer = threading.Timer(RUN_TIMEOUT, p.kill)
    timer.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode == -9:
        check(False, f"{' '.join(cmd)}: still running after {RUN_TIMEOUT:g} s (killed: a hang)")
        finish()
    return p.returncode, ru.ru_maxrss


def test_memory():
    with open(ETLDUMP, "rb") as f:
        if b"__asan_init" in f.read():
            print("SKIP: AddressSanitizer's quarantine keeps freed memory: peak memory is not the program's")
            return
    tmp = tempfile.mkdtemp(prefix="etl-threads-")
    try:
        paths = {}
        for n in (50000, 400000):
            paths[n] = os.path.join(tmp, f"large-{n}.etl")
            bounded([ETLGEN, "--preset", "large", "--records", str(n), "-o", paths[n]], check=True)
        for threads in (2, 4):
            rss = {}
            for n, path in paths.items():
                rc, rss[n] = peak_rss_kb([ETLDUMP, "--threads", str(threads), path])
                check(rc == 0, f"large {n} --threads {threads}: exit 0 (got {rc})")
            # measured: 0.8 MB more for 8x the records (17 MB more while answers were kept per record)
            grew = rss[400000] - rss[50000]
            check(grew < 4096, f"large --threads {threads}: peak memory {rss[50000]} KB for 50,000 records, "
                               f"{rss[400000]} KB for 400,000 (grew {grew} KB; at most 4096)")
    finally:
        shutil.rmtree(tmp)


def test_default():
    test_strace_parse()
    if shutil.which("strace") is None or subprocess.run(["strace", "-qq", "-o", os.devnull, "true"]).returncode:
        print("SKIP: strace is missing or cannot trace here (tests/install-deps.sh installs it)")
        return
    net452 = os.path.join(CAPTURES, "perfview_net452_x64_merged_compressed.etl")
    mine = sorted(os.sched_getaffinity(0))
    for cpus in [{mine[0]}, {mine[-1]}, set(mine)]:
        k = min(len(cpus), 64)  # etldump's --threads takes 1 to 64
        for what, args in [("JSON", [net452]), ("--summary", ["--summary", net452])]:
            made, out = threads_made(args, cpus)
            want, want_out = threads_made(["--threads", str(k)] + args, cpus)
            check(made == want, f"{what} on CPUs {sorted(cpus)}: {made} threads made by default, "
                                f"{want} by --threads {k}")
            check(out == want_out, f"{what} on CPUs {sorted(cpus)}: the same output as --threads {k}")
        if k == 1:  # a taskset of one CPU: no helper thread at all, and --threads 2 does make them
            made, _ = threads_made([net452], cpus)
            two, _ = threads_made(["--threads", "2", net452], cpus)
            check(made == 0 and two > 0, f"JSON on CPU {sorted(cpus)}: {made} threads by default, {two} at --threads 2")


{"corpus": test_corpus, "damaged": test_damaged, "batches": test_batches, "halves": test_halves,
 "memory": test_memory, "default": test_default}[WHICH]()
finish()
