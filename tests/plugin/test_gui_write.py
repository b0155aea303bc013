#!/usr/bin/env python3
"""test_gui_write.py - the Wireshark GUI on an ETW capture under Xvfb (issues 13 and 14), driven
by keyboard only (xdotool key sequences; every wait bounded), as test_plugin.py runs the tools
(an unprivileged user, plugins and captures copied into a readable temporary folder).  Same
options as test_plugin.py; the one test, `guiwrite`:

  1. File > Save As (Ctrl+Shift+S) offers "Windows ETW trace (.etl)" and writes the file: it
     exists, tshark reads it with as many frames as the original, and every record but the
     logfile header decodes (etldump JSON) exactly as in the original;
  2. File > Export Specified Packets of the displayed frames (display filter
     `frame.number <= 60`): the file exists, reads with zero damage (etldump --summary), holds
     as many records as `etldump --write --records=0-59` writes (the frames and their context),
     and each displayed frame's record decodes in it as in the original;
  3. Statistics > Capture File Properties, Statistics > Conversations, Statistics > ETW (the
     stats tree the submenu opens on) and Analyze > Expert Information each open their window (asserted by
     window title) and are saved as screenshots (ImageMagick `import -window root`) in
     $ETLSHARK_GUI_SHOTS (default: the sandbox, removed afterwards), each a non-trivial PNG.
The capture's manifest (--captures/../manifests/tx_HTTP_Server.man) is on
ETLSHARK_MANIFEST_PATH, so the events decode with names and typed fields.

Skips (exit 77) when wireshark, Xvfb or xdotool is missing; the screenshots are left out (with
a note) when ImageMagick's import is.  Wireshark 4.0's menus are reached with arrow keys from
the top of a menu (File: Export Specified Packets is the 8th entry, 7 steps down as Qt skips the
disabled Save; Statistics: Conversations 4th, ETW second from the bottom; Analyze: Expert
Information last); a dialog that does not appear fails the test with the windows there were.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# test_write_plugin.py loads the harness (test_plugin.py) and its checks of written files
spec_w = importlib.util.spec_from_file_location("test_write_plugin", os.path.join(HERE, "test_write_plugin.py"))
tw = importlib.util.module_from_spec(spec_w)
spec_w.loader.exec_module(tw)
tp = tw.tp

CAPTURE = "tx_HTTP_Server_manifest.etl"
MANIFEST = "tx_HTTP_Server.man"  # its provider's original manifest (shared manifests/)
EXPORT_FILTER = "frame.number <= 60"
EXPORT_FRAMES = 60
# Bounds of every wait (seconds).
OPEN_TIMEOUT = 120
DIALOG_TIMEOUT = 30
WRITE_TIMEOUT = 60
# A screenshot of a 1280x900 screen with windows on it is far above this; a blank one is not.
MIN_SHOT_BYTES = 20000


class Gui:
    """Xvfb, one wireshark and xdotool against that display."""

    def __init__(self, env):
        self.env = env
        num = next(n for n in range(90, 200) if not os.path.exists(f"/tmp/.X11-unix/X{n}")
                   and not os.path.exists(f"/tmp/.X{n}-lock"))
        self.display = f":{num}"
        self.xvfb = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                     **env.popen_kwargs(env.fresh_home()))
        self.ws = None
        for _ in range(100):
            if os.path.exists(f"/tmp/.X11-unix/X{num}"):
                break
            time.sleep(0.2)
        else:
            raise tp.Failure("Xvfb did not start")

    def xdo(self, *args, check=False):
        p = subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, DISPLAY=self.display))
        if check and p.returncode != 0:
            raise tp.Failure(f"xdotool {' '.join(args)}: {p.stderr.strip()}")
        return p.stdout

    def windows(self):
        names = []
        for wid in self.xdo("search", "--name", ".").split():
            name = self.xdo("getwindowname", wid).strip()
            if name and not name.startswith("Qt Selection Owner"):
                names.append((wid, name))
        return names

    def wait_window(self, part, timeout=DIALOG_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for wid, name in self.windows():
                if part in name:
                    return wid
            if self.ws is not None and self.ws.poll() is not None:
                with open(self.log, encoding="utf-8", errors="replace") as f:
                    raise tp.Failure(f"wireshark exited {self.ws.returncode}: {f.read()[-1500:]}")
            time.sleep(0.5)
        return None

    def need_window(self, part, timeout=DIALOG_TIMEOUT):
        wid = self.wait_window(part, timeout)
        tp.check(wid is not None, f"GUI: no window titled ...{part}... in {timeout} s; windows: "
                 f"{[n for _, n in self.windows()]}")
        return wid

    def keys(self, *keys):
        self.xdo("key", "--delay", "120", *keys, check=True)

    def type(self, text):
        self.xdo("type", "--delay", "15", text, check=True)

    def focus(self, wid):
        self.xdo("windowfocus", "--sync", wid)
        time.sleep(0.3)

    def start(self, capture, home, extra_env):
        kw = self.env.popen_kwargs(home, dict(extra_env, DISPLAY=self.display, XDG_RUNTIME_DIR=home))
        self.log = os.path.join(self.env.root, "wireshark-gui.log")
        with open(self.log, "wb") as log:
            self.ws = subprocess.Popen([self.env.args.wireshark, "-r", capture], stdout=log, stderr=log,
                                       start_new_session=True, **kw)

    def screenshot(self, path):
        subprocess.run(["import", "-window", "root", path], timeout=60, check=True,
                       env=dict(os.environ, DISPLAY=self.display), capture_output=True)
        tp.check(os.path.getsize(path) > MIN_SHOT_BYTES, f"GUI: screenshot {path} is blank")

    def stop(self):
        tp.stop_group(self.ws)
        tp.stop_group(self.xvfb)


def gui_home(env):
    # Conversations and Endpoints open on the dissector's own address type (processes, providers)
    home = tp.gui_home(env, "gui.conversation_tabs: ETL\ngui.endpoint_tabs: ETL\n")
    os.chmod(home, 0o700)  # Qt wants its runtime directory private
    return home


def write_through_dialog(gui, title, path):
    """In the file dialog `title`: type the path and save; a capture with comments (the
    capture-properties comment, which .etl cannot hold) asks whether to discard them first:
    Shift+Tab from the default Cancel to "Discard comments and save"."""
    gui.focus(gui.need_window(title))
    gui.type(path)
    gui.keys("Return")
    deadline = time.monotonic() + WRITE_TIMEOUT
    asked = False
    while time.monotonic() < deadline and not os.path.exists(path):
        time.sleep(1)
        if not asked and time.monotonic() > deadline - WRITE_TIMEOUT + 3 and not os.path.exists(path):
            gui.keys("shift+Tab", "space")
            asked = True
    if not os.path.exists(path) and gui.ws.poll() is not None:
        gui.wait_window("-")  # raises with wireshark's exit status and log
    tp.check(os.path.exists(path), f"GUI: {title} did not write {path}; windows {[n for _, n in gui.windows()]}")
    time.sleep(2)  # the writer closes the file after the last byte


def open_menu_entry(gui, main, menu_key, steps, title):
    """Open a menu (Alt+letter), walk `steps` arrow keys, Enter; the dialog `title` must open."""
    gui.focus(main)
    gui.keys(menu_key)
    time.sleep(1)
    gui.keys(*steps, "Return")
    return gui.need_window(title)


def test_guiwrite(env):
    for tool in (env.args.wireshark, "Xvfb", "xdotool"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (tests/install-deps.sh: wireshark-qt xvfb xdotool)")
            return tp.SKIP
    shots_ok = shutil.which("import") is not None
    if not shots_ok:
        print("  note: ImageMagick's import is not installed: no screenshots")
    shots = os.environ.get("ETLSHARK_GUI_SHOTS") or os.path.join(env.root, "shots")
    os.makedirs(shots, exist_ok=True)
    out = tw.out_dir(env)
    src = env.capture(CAPTURE)
    manifest = os.path.join(os.path.dirname(os.path.abspath(env.args.captures)), "manifests", MANIFEST)
    extra = {"ETLSHARK_MANIFEST_PATH": manifest} if os.path.isfile(manifest) else {}
    gui = Gui(env)
    try:
        gui.start(src, gui_home(env), extra)
        main = gui.need_window(CAPTURE, OPEN_TIMEOUT)
        time.sleep(3)  # the packet list fills

        # 1. Save As .etl (the dialog's default type for an ETW capture)
        saved = os.path.join(out, "gui-saved.etl")
        gui.focus(main)
        gui.keys("ctrl+shift+s")
        write_through_dialog(gui, "Save Capture File As", saved)
        tp.check(tw.frame_count(env, saved) == tw.frame_count(env, src), "GUI Save As: frame counts differ")
        tw.check_clean(env, saved)
        a, b = tw.records(env, src), tw.records(env, saved)
        tp.check(len(a) == len(b), f"GUI Save As: {len(b)} records, {len(a)} in the original")
        for i in range(1, len(a)):
            tp.check(tw.key(a[i]) == tw.key(b[i]), f"GUI Save As: record {i} differs")
        print(f"  ok Save As wrote {len(b)} records, each as in the original")
        # Wireshark now shows the saved file
        main = gui.need_window("gui-saved.etl", OPEN_TIMEOUT)
        time.sleep(2)

        # 2. Export Specified Packets of the displayed frames
        gui.focus(main)
        gui.keys("ctrl+slash")
        gui.keys("ctrl+a")  # replace whatever the filter bar holds
        gui.type(EXPORT_FILTER)
        gui.keys("Return")
        time.sleep(3)
        exported = os.path.join(out, "gui-exported.etl")
        gui.focus(main)
        gui.keys("alt+f")
        time.sleep(1)
        gui.keys(*["Down"] * 7, "Return")
        if gui.wait_window("Export Specified Packets", 10) is None:  # a style that stops on Save
            gui.keys("Escape")
            open_menu_entry(gui, main, "alt+f", ["Down"] * 8, "Export Specified Packets")
        if shots_ok:
            gui.screenshot(os.path.join(shots, "export-specified.png"))
        write_through_dialog(gui, "Export Specified Packets", exported)
        tw.subset_check(env, CAPTURE, src, exported, list(range(1, EXPORT_FRAMES + 1)))
        n = tw.frame_count(env, exported)
        # the same selection through etldump --write: the same records (the frames and their context)
        oracle = os.path.join(out, "etldump-first60.etl")
        subprocess.run([env.args.etldump, "--write", oracle, f"--records=0-{EXPORT_FRAMES - 1}", src],
                       capture_output=True, check=True)
        want = len(tw.records(env, oracle))
        tp.check(n == want, f"GUI Export: {n} frames written; etldump --write of the {EXPORT_FRAMES} displayed "
                 f"frames writes {want}")
        print(f"  ok Export Specified Packets wrote {n} frames ({EXPORT_FRAMES} displayed + context)")

        # 3. the views, each opened and photographed
        views = [
            ("capture-file-properties", lambda: (gui.focus(main), gui.keys("ctrl+alt+shift+c"),
                                                 gui.need_window("Capture File Properties"))[-1]),
            ("conversations", lambda: open_menu_entry(gui, main, "alt+s", ["Down"] * 3, "Conversations")),
            ("statistics-etw", lambda: open_menu_entry(gui, main, "alt+s", ["Up", "Up", "Right"], "Events by")),
            ("expert-info", lambda: open_menu_entry(gui, main, "alt+a", ["Up"], "Expert Information")),
        ]
        for name, opener in views:
            wid = opener()
            time.sleep(4)  # the dialog computes its tap
            if shots_ok:
                gui.screenshot(os.path.join(shots, name + ".png"))
            gui.focus(wid)
            gui.keys("Escape")
            time.sleep(1)
            print(f"  ok {name} opened" + (f" (screenshot {shots}/{name}.png)" if shots_ok else ""))
    finally:
        gui.stop()
    return 0


tp.TESTS.update({"guiwrite": test_guiwrite})

if __name__ == "__main__":
    sys.exit(tp.main())
