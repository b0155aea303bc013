#!/usr/bin/env python3
"""test_install.py - the first step of a fresh setup, tested on the path a fresh machine takes.

tests/install-deps.sh is quiet when every package is installed, so on a machine where the
project was already set up (CI) its install branch never runs; a broken branch (issue 11: as
root it ran `-E` as a command) stays green.  This test runs the script, and quickstart.sh's use
of it, with stub `dpkg-query` (every package missing), `apt-get`, `sudo`, `cmake` and `tshark`
first on PATH.  The stubs record how they were called; the test then checks, once as root and
once as a normal user:

  root: apt-get update and apt-get install run directly (no sudo), install with
        DEBIAN_FRONTEND=noninteractive and exactly the packages reported missing;
  user: both run as `sudo apt-get ...`, DEBIAN_FRONTEND=noninteractive reaches apt-get;
  quickstart.sh: calls the install step first, stops when it fails, and configures for the
        system folders as root (-DETLSHARK_INSTALL_SYSTEM=ON) or for ~/.local as a user.

The package names themselves (the stubs accept any): none is a versioned LLVM package (the
list named libclang-rt-14-dev, which Debian 13 does not have: the clang runtime is
libclang-rt-dev, the default clang's), and every one has an installation candidate in each apt
index at hand: this machine's (Debian 12) and those of the Debian roots tests/versions caches
($ETLSHARK_ROOTS_CACHE, else /var/cache/etlshark/roots: trixie = Debian 13, sid), read with
`apt-cache -o Dir=ROOT`.  An index that is not there is skipped, saying so.

Identities: the case matching the current uid runs as is.  The other one is made real where
possible: as root the user case runs as the unprivileged user `etlsharktest` (runuser; the
plugin tests use the same user), so `id -u` really is non-zero.  Only a normal user who cannot
become root has the root case faked, by a stub `id` that answers 0 to `id -u` (the script's only
test of identity).

usage: test_install.py [--script PATH] [--quickstart PATH] [--case root|user|all|names]
  --script      the install-deps.sh to test (default: the repository's); the test must fail
                on the one before commit db58432 (git show 5d94b4c~2:tests/install-deps.sh)
Exit status 0 when every check passes, 1 otherwise.
"""
import argparse
import glob
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_USER = "etlsharktest"

# A stub that appends one line per call to $ETLSHARK_STUB_LOG: uid, DEBIAN_FRONTEND, argv.
RECORD = r'''printf '%s|%s|%s\n' "$(/usr/bin/id -u)" "${DEBIAN_FRONTEND-<unset>}" "$(basename "$0") $*" >> "$ETLSHARK_STUB_LOG"
'''
STUBS = {
    # Reports every package as not installed, like a fresh machine.
    "dpkg-query": "exit 1\n",
    # Succeeds, or fails for `install` when the test asks (ETLSHARK_STUB_APT_FAIL).
    "apt-get": 'case " $* " in *" install "*) [ -z "${ETLSHARK_STUB_APT_FAIL-}" ] || exit 100 ;; esac\nexit 0\n',
    # Runs its command like sudo would (VAR=value arguments first, -E keeps the environment).
    "sudo": 'while [ $# -gt 0 ]; do case $1 in -E) shift ;; -*) shift ;; *) break ;; esac; done\n'
            'exec /usr/bin/env "$@"\n',
    "cmake": "exit 0\n",
    "tshark": "exit 0\n",
    "nproc": "echo 1\n",
}


def write_exec(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)


def make_stubs(bindir, fake_root):
    os.makedirs(bindir)
    for name, body in STUBS.items():
        write_exec(os.path.join(bindir, name), RECORD + body)
    if fake_root:
        # Only `id -u` is asked; anything else goes to the real id.
        write_exec(os.path.join(bindir, "id"),
                   '[ "$*" = "-u" ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n')


def expected_packages(script):
    """The PKGS list of the script under test (what a fresh machine misses)."""
    text = open(script).read()
    m = re.search(r'PKGS="([^"]*)"', text)
    if not m:
        raise SystemExit(f"no PKGS=\"...\" list in {script}")
    return m.group(1).split()


class Case:
    def __init__(self, name, work, as_user):
        self.name = name
        self.work = work
        self.as_user = as_user  # run through runuser as TEST_USER
        self.failures = []

    def check(self, ok, what):
        print(f"  {'ok  ' if ok else 'FAIL'} [{self.name}] {what}")
        if not ok:
            self.failures.append(what)


def run(case, tree, argv, env_extra, fake_root):
    """Run argv in tree with the stubs first on PATH; return (rc, output, calls)."""
    bindir = os.path.join(case.work, "bin-" + ("fakeroot" if fake_root else "plain"))
    if not os.path.isdir(bindir):
        make_stubs(bindir, fake_root)
    log = os.path.join(case.work, "calls.log")
    with open(log, "w"):
        pass
    os.chmod(log, 0o666)
    home = os.path.join(case.work, "home")
    os.makedirs(home, exist_ok=True)
    os.chmod(home, 0o777)
    env = {"PATH": bindir + ":/usr/bin:/bin:/usr/sbin:/sbin", "HOME": home,
           "ETLSHARK_STUB_LOG": log, "LC_ALL": "C"}
    env.update(env_extra)
    cmd = list(argv)
    if case.as_user:
        cmd = ["runuser", "-u", TEST_USER, "--", "/usr/bin/env", "-i"] + \
              [f"{k}={v}" for k, v in env.items()] + cmd
        env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}
    p = subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    calls = []
    for line in open(log).read().splitlines():
        uid, frontend, call = line.split("|", 2)
        calls.append((uid, frontend, call))
    return p.returncode, p.stdout, calls


def copy_tree(work, script, quickstart):
    """A readable copy of what the scripts touch (a clone under /root is not readable by the
    test user)."""
    tree = os.path.join(work, "tree")
    os.makedirs(os.path.join(tree, "tests"))
    shutil.copy(script, os.path.join(tree, "tests", "install-deps.sh"))
    shutil.copy(quickstart, os.path.join(tree, "quickstart.sh"))
    for dirpath, dirnames, filenames in os.walk(work):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            os.chmod(p, os.stat(p).st_mode | stat.S_IROTH | stat.S_IRGRP)
    return tree


def test_case(name, work, as_user, fake_root, script, quickstart):
    case = Case(name, work, as_user)
    tree = copy_tree(work, script, quickstart)
    pkgs = expected_packages(script)
    root = name == "root"
    how = ("as " + TEST_USER + " (runuser)") if as_user else \
          ("with a stub `id -u` answering 0" if fake_root else f"as uid {os.getuid()}")
    print(f"== {name} case, {how}")

    # --- 1. install-deps.sh on a machine that misses everything -------------------------------
    rc, out, calls = run(case, tree, ["sh", "tests/install-deps.sh"], {}, fake_root)
    case.check(rc == 0, f"install-deps.sh exits 0 (rc={rc})")
    if rc != 0:
        print("    output: " + out.strip().replace("\n", "\n            "))
    apt = [c for c in calls if c[2].startswith("apt-get ")]
    sudo = [c for c in calls if c[2].startswith("sudo ")]
    update = [c for c in apt if re.search(r"(^| )update( |$)", c[2])]
    install = [c for c in apt if re.search(r"(^| )install( |$)", c[2])]
    case.check(len(update) == 1, f"apt-get update ran once ({len(update)} times)")
    case.check(len(install) == 1, f"apt-get install ran once ({len(install)} times)")
    if install:
        uid, frontend, call = install[0]
        words = call.split()
        got = sorted(w for w in words[1:] if not w.startswith("-") and w != "install")
        case.check(got == sorted(pkgs), "apt-get install got exactly the missing packages" +
                   ("" if got == sorted(pkgs) else f" (got {got}, want {sorted(pkgs)})"))
        case.check("-y" in words, "apt-get install is non-interactive (-y)")
        case.check(frontend == "noninteractive",
                   f"DEBIAN_FRONTEND=noninteractive reaches apt-get install (it saw {frontend})")
    if root:
        case.check(not sudo, "no sudo as root" + (f" (called: {sudo})" if sudo else ""))
        if update or install:
            case.check(all(c[0] == ("0" if not fake_root else str(os.getuid())) for c in update + install),
                       "apt-get ran as root directly")
    else:
        case.check(len(sudo) == 2, f"sudo ran twice: update and install ({len(sudo)} times)")
        case.check(all(re.search(r"\bapt-get (update|install)\b", c[2]) for c in sudo),
                   "each sudo call runs apt-get")
        case.check(all(c[0] != "0" for c in calls), "everything ran as the normal user (sudo stubbed)")

    # --- 2. quickstart.sh: the install step first, then the build for this identity ----------
    rc, out, calls = run(case, tree, ["sh", "quickstart.sh"], {}, fake_root)
    case.check(rc == 0, f"quickstart.sh exits 0 with stub cmake/tshark (rc={rc})")
    if rc != 0:
        print("    output: " + out.strip().replace("\n", "\n            "))
    names = [c[2].split()[0] for c in calls]
    first_cmake = names.index("cmake") if "cmake" in names else len(names)
    first_install = next((i for i, c in enumerate(calls) if re.search(r"apt-get install", c[2])),
                         len(names))
    case.check(first_install < first_cmake, "quickstart installs the packages before it configures")
    cmakes = [c[2] for c in calls if c[2].startswith("cmake ")]
    configure = [c for c in cmakes if " -S " in f" {c} "]
    if root:
        case.check(any("-DETLSHARK_INSTALL_SYSTEM=ON" in c for c in configure),
                   "as root quickstart configures for the system plugin folders")
        case.check(any(c.startswith("cmake --install build") and "--prefix" not in c for c in cmakes),
                   "as root quickstart installs into the system folders")
    else:
        case.check(any("-DETLSHARK_INSTALL_SYSTEM=OFF" in c for c in configure),
                   "as a user quickstart configures for the personal plugin folder")
        case.check(any(c.startswith("cmake --install build") and "--prefix" in c and
                       c.rstrip().endswith("/.local") for c in cmakes),
                   "as a user quickstart installs under ~/.local")

    rc, out, calls = run(case, tree, ["sh", "quickstart.sh"], {"ETLSHARK_STUB_APT_FAIL": "1"}, fake_root)
    case.check(rc != 0 and not any(c[2].startswith("cmake ") for c in calls),
               f"quickstart stops when the install step fails (rc={rc})")
    return case.failures


def apt_indexes():
    """The apt package indexes at hand, as (label, apt-cache options): this machine's when its
    lists are there, and each complete Debian root that tests/versions/make-root.sh cached."""
    out = []
    if glob.glob("/var/lib/apt/lists/*_Packages*"):
        release = open("/etc/debian_version").read().strip() if os.path.exists("/etc/debian_version") else "?"
        out.append((f"this machine (Debian {release})", []))
    else:
        print("  skip: this machine has no apt lists (apt-get update first)")
    cache = os.environ.get("ETLSHARK_ROOTS_CACHE", "/var/cache/etlshark/roots")
    roots = sorted(d for d in glob.glob(os.path.join(cache, "*"))
                   if os.path.exists(os.path.join(d, ".etlshark-ready")))
    if not roots:
        print(f"  skip: no Debian root cached in {cache} (tests/versions/make-root.sh makes them)")
    for d in roots:
        out.append((f"the {os.path.basename(d)} root", ["-o", f"Dir={d}"]))
    return out


def candidates(opts, pkgs):
    """{package: candidate version or None} from `apt-cache policy` (None: unknown or none)."""
    p = subprocess.run(["apt-cache"] + opts + ["policy"] + pkgs, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, timeout=300)
    got, name = {}, None
    for line in p.stdout.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            name = line[:-1].split(":")[0]
        elif name and line.strip().startswith("Candidate:"):
            v = line.split(":", 1)[1].strip()
            got[name] = None if v == "(none)" else v
    return {pk: got.get(pk) for pk in pkgs}


def test_names(script):
    case = Case("names", None, False)
    print("== the package names of install-deps.sh")
    pkgs = expected_packages(script)
    versioned = [pk for pk in pkgs if re.search(r"(clang|llvm|lld)", pk) and re.search(r"-\d+(-dev)?$", pk)]
    case.check(not versioned, "no versioned LLVM package: the clang runtime follows the default clang"
               + (f" (names {versioned})" if versioned else ""))
    case.check("clang" in pkgs and "libclang-rt-dev" in pkgs,
               "clang and its runtime libclang-rt-dev (sanitizers, libFuzzer) are listed")
    for label, opts in apt_indexes():
        cand = candidates(opts, pkgs)
        missing = [pk for pk, v in cand.items() if v is None]
        case.check(not missing, f"every package has an installation candidate in {label}"
                   + (f" (none for {missing})" if missing else
                      f" (clang runtime {cand.get('libclang-rt-dev')})"))
    return case.failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--script", default=os.path.join(REPO, "tests", "install-deps.sh"))
    ap.add_argument("--quickstart", default=os.path.join(REPO, "quickstart.sh"))
    ap.add_argument("--case", choices=["root", "user", "all", "names"], default="all")
    args = ap.parse_args()

    is_root = os.getuid() == 0
    failures = []
    with tempfile.TemporaryDirectory(prefix="etlshark-setup-") as tmp:
        os.chmod(tmp, 0o755)
        if args.case in ("all", "names"):
            failures += test_names(args.script)
        for name in (["root", "user"] if args.case == "all" else [] if args.case == "names" else [args.case]):
            work = os.path.join(tmp, name)
            os.makedirs(work)
            if name == "root":
                failures += test_case(name, work, False, not is_root, args.script, args.quickstart)
            elif is_root:
                try:
                    pwd.getpwnam(TEST_USER)
                except KeyError:
                    subprocess.run(["useradd", "-m", TEST_USER], check=True)
                failures += test_case(name, work, True, False, args.script, args.quickstart)
            else:
                failures += test_case(name, work, False, False, args.script, args.quickstart)
    print(f"setup: {'FAILED: ' + str(len(failures)) + ' check(s)' if failures else 'all checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
