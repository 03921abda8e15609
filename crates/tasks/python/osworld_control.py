#!/usr/bin/env python3
"""OSWorld-compatible control server for a uidriver sandbox.

OSWorld drives its virtual machine through an HTTP server running inside the VM
(`desktop_env/server/main.py`). Its client code -- `SetupController`,
`PythonController` and the evaluator getters -- only speaks HTTP to that server.
This module is our own implementation of the same endpoints, running on the host
inside a uidriver sandbox's environment (its Xvfb display, private D-Bus,
AT-SPI bus and private HOME, all inherited from the process environment), so
that OSWorld's own client code works against a sandbox unchanged.

Usage:
    osworld_control.py --listen 127.0.0.1:0 [--python PY] [--user-home /home/user]
        [--chrome-port C --devtools-port D] [--vlc-port V] [--shim-dir DIR]

The first line on stdout is `listening HOST:PORT` (port 0 picks a free port);
then the server answers until SIGTERM (or SIGINT).

Security:
  * It binds loopback only (any other --listen host is refused).
  * Every connection's peer socket is looked up in /proc/net/tcp by its
    (address, port) pair; unless that socket is owned by our own uid, the
    request is answered 403 before its body is read. Other local users can thus
    not run commands through this server.

Layout of this file (top to bottom):
  Config            command line, child environment, and the rewriting of
                    `/home/user` -> $HOME and fixed ports -> sandbox ports
  processes         run with a deadline (whole process group), launch detached
  shims             executables put first on the children's PATH
  X11 helpers       wmctrl/xdotool/xdpyinfo/import wrappers
  AT-SPI            the accessibility tree as OSWorld's XML, the terminal text,
                    read in a child process (`--atspi-dump`) killed at its deadline
  request parsing   JSON, url-encoded forms, multipart/form-data (own parser)
  Handler           peer check, dispatch table ROUTES, body and answer helpers
  endpoints         ep_* functions, attached to Handler as methods
  main              bind, print the port, serve until SIGTERM

Paths: OSWorld task files say `/home/user/...`. When --user-home (default
/home/user) differs from $HOME, a leading `/home/user` (at a path-word
boundary) is mapped to $HOME in every path parameter and inside the command
strings/lists of execute, launch, open_file, upload, file, list_directory and
change_wallpaper (and in /run_python code and /run_bash_script scripts). A
`~/` argument of a command list is expanded, as OSWorld's server does. When
they are equal nothing changes.

Endpoints: OSWorld's /terminal /screenshot /accessibility /platform
/cursor_position /setup/execute /execute /setup/execute_with_verification
/setup/launch /setup/upload /file /setup/open_file /setup/activate_window
/setup/close_window /setup/change_wallpaper /wallpaper /desktop_path
/screen_size /window_size /list_directory /run_python /run_bash_script, with
the status codes and JSON fields OSWorld's client code reads; /start_recording
and /end_recording answer 501; any other path 404 {"error": ...}. GET and POST
are both accepted everywhere. /setup/open_file picks the app by extension
(LibreOffice with --norestore for office files, gedit/mousepad for text, ...,
else xdg-open or gio open) and waits up to 60 s for a window whose title holds
the file's name; /setup/change_wallpaper records the file for /wallpaper and
paints the root window when xwallpaper or feh exists.

Ports: sandboxes run side by side, so OSWorld's fixed ports are remapped in
commands when the options are given: `--remote-debugging-port=1337` and
`tcp:localhost:1337` -> devtools port D, `tcp-listen:9222` -> chrome port C
(plus `,bind=127.0.0.1` so the forwarded DevTools port stays on loopback),
`--http-port 8080` -> VLC port V.

Shims (in --shim-dir, or a temporary directory, first on every child's PATH):
  google-chrome, google-chrome-stable, chromium-browser
      exec /usr/lib/chromium/chromium with sandbox-friendly flags, its profile
      in $HOME/.config/google-chrome (where OSWorld's getters read it).
  python, python3
      exec the --python interpreter (default: the one running this server), so
      `python -c "import pyautogui ..."` from PythonController uses the venv.
  pkill, killall
      safe versions that only signal processes whose /proc/PID/environ carries
      this sandbox's marker variable (UIDRIVER_SANDBOX_ID) with our value, or
      that belong to a session this server started (every child of the server
      leads its own session, listed in DIR/.sessions; Chromium overwrites its
      /proc/PID/environ with its process title, so the marker alone misses it).
      pkill finds candidates with the real `pgrep` (same selection options);
      killall matches /proc/PID/comm. `-9`, `-SIGNAL`, `--signal S`, `-f` work;
      the shim never signals itself or its ancestors. Without a marker in our
      environment they refuse to signal anything.

Every subprocess has a deadline; launched programs get their own process group
and a log file; handler exceptions become a 500 answer, never a dropped
connection.
"""

import argparse
import faulthandler
import json
import mmap
import os
import re
import shlex
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SANDBOX_ID_VAR = "UIDRIVER_SANDBOX_ID"
CHROMIUM = "/usr/lib/chromium/chromium"
EXECUTE_TIMEOUT = 120
MAX_TIMEOUT = 3600
OPEN_FILE_TIMEOUT = 60
X_TOOL_TIMEOUT = 15
MAX_BODY = 4 << 30

NS = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "doc": "https://accessibility.ubuntu.example.org/ns/document",
    "docattr": "https://accessibility.ubuntu.example.org/ns/document/attributes",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
    "act": "https://accessibility.ubuntu.example.org/ns/action",
}
for _prefix, _uri in NS.items():
    ET.register_namespace(_prefix, _uri)

OFFICE_EXTS = {
    ".doc", ".docx", ".odt", ".rtf", ".xls", ".xlsx", ".ods", ".csv", ".ppt",
    ".pptx", ".odp", ".odg", ".fodt", ".fods", ".fodp",
}
TEXT_EXTS = {
    ".txt", ".md", ".py", ".sh", ".json", ".xml", ".yaml", ".yml", ".ini",
    ".cfg", ".conf", ".log", ".c", ".h", ".cpp", ".js", ".css", ".tex",
}
IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".tif", ".tiff"}
MEDIA_EXTS = {".mp4", ".mkv", ".avi", ".mov", ".webm", ".mp3", ".wav", ".ogg", ".flac"}


def log(msg):
    sys.stderr.write(time.strftime("%H:%M:%S ") + msg + "\n")
    sys.stderr.flush()


class HttpError(Exception):
    """An answer other than 200, raised from an endpoint."""

    def __init__(self, code, message, body=None):
        super().__init__(message)
        self.code = code
        self.body = body if body is not None else {"status": "error", "error": message,
                                                    "message": message}


# ---------------------------------------------------------------- Config

class Config:
    """Everything the endpoints need to know about the sandbox."""

    def __init__(self, args):
        self.home = os.environ.get("HOME") or os.path.expanduser("~")
        self.user_home = args.user_home.rstrip("/") or "/"
        same = os.path.realpath(self.home) == os.path.realpath(self.user_home)
        self.map_home = not same
        bus = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
        self.bus_path = bus[len("unix:path="):].split(",")[0] if bus.startswith("unix:path=") else ""
        import grp
        import pwd
        self.owner = "%s:%s" % (pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name)
        self._home_re = re.compile(
            r"(?<![\w.~-])" + re.escape(self.user_home) + r"(?![\w.-])")
        self.python = args.python or sys.executable
        self.devtools_port = args.devtools_port
        self.chrome_port = args.chrome_port
        self.vlc_port = args.vlc_port
        self.marker = os.environ.get(SANDBOX_ID_VAR, "")
        self.own_dirs = []
        if args.shim_dir:
            os.makedirs(args.shim_dir, exist_ok=True)
            self.shim_dir = os.path.abspath(args.shim_dir)
        else:
            self.shim_dir = tempfile.mkdtemp(prefix="osworld-shims-")
            self.own_dirs.append(self.shim_dir)
        self.log_dir = tempfile.mkdtemp(prefix="osworld-control-")
        self.own_dirs.append(self.log_dir)
        self.sessions_file = os.path.join(self.shim_dir, ".sessions")
        open(self.sessions_file, "w").close()
        self.env = dict(os.environ)
        self.env["PATH"] = self.shim_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        self.failures = args.failures
        self.wallpaper = None
        self.launch_count = 0
        self.lock = threading.Lock()

    # -- rewriting

    def path(self, p):
        """A path parameter as it is on this machine."""
        if not isinstance(p, str):
            raise HttpError(400, "path must be a string")
        p = self.text(p)
        return os.path.expandvars(os.path.expanduser(p))

    def text(self, s):
        """Maps `/home/user` to $HOME inside a string (when they differ), OSWorld's owner
        `user:user` (its setups `chown` what they upload) to this user's, and the session bus
        of OSWorld's user (`/run/user/1000/bus`, which some commands export) to this one's."""
        if not isinstance(s, str):
            return s
        if self.bus_path:
            s = s.replace("unix:path=/run/user/1000/bus", "unix:path=" + self.bus_path)
        if not self.map_home:
            return s
        s = re.sub(r"(?<![\w.-])user:user(?![\w.-])", lambda _m: self.owner, s)
        return self._home_re.sub(lambda _m: self.home, s)

    def ports(self, s):
        if self.devtools_port:
            s = re.sub(r"--remote-debugging-port=1337(?!\d)",
                       "--remote-debugging-port=%d" % self.devtools_port, s)
            s = re.sub(r"tcp:localhost:1337(?!\d)", "tcp:localhost:%d" % self.devtools_port, s)
        if self.chrome_port:
            s = re.sub(r"tcp-listen:9222(?!\d)",
                       "tcp-listen:%d,bind=127.0.0.1" % self.chrome_port, s)
        if self.vlc_port:
            s = re.sub(r"--http-port 8080(?!\d)", "--http-port %d" % self.vlc_port, s)
        return s

    def command(self, command, shell):
        """A request's command, rewritten, as subprocess takes it."""
        if isinstance(command, str):
            command = self.ports(self.text(command))
            return command if shell else shlex.split(command)
        if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
            raise HttpError(400, "command must be a string or a list of strings")
        out = []
        for i, arg in enumerate(command):
            arg = self.ports(self.text(arg))
            if (self.vlc_port and arg == "8080" and i > 0 and command[i - 1] == "--http-port"):
                arg = str(self.vlc_port)
            if arg.startswith("~/"):
                arg = os.path.join(self.home, arg[2:])
            out.append(arg)
        if not out:
            raise HttpError(400, "empty command")
        return out


# ---------------------------------------------------------------- processes

# Programs whose failure means nothing was there to stop (OSWorld's setups kill apps that
# may not be running).
HARMLESS_FAILURES = ("pkill", "killall")


def record_failure(handler, command, what):
    """Notes a setup command that failed (`--failures`): OSWorld's controller only logs it, so
    the runner is told that the desktop is not the one the task was written for."""
    cfg = handler.cfg
    if not cfg.failures or not urllib.parse.urlsplit(handler.path).path.startswith("/setup/"):
        return
    try:
        words = shlex.split(command) if isinstance(command, str) else command
    except ValueError:
        words = command.split()
    words = [w for w in words if not re.match(r"^\w+=", w)] or [""]
    if os.path.basename(words[0]) in HARMLESS_FAILURES:
        return
    shown = command if isinstance(command, str) else " ".join(command)
    with cfg.lock, open(cfg.failures, "a") as f:
        f.write(json.dumps({"command": shown, "failure": what}) + "\n")


def end_sessions(cfg):
    """Ends every process of the sessions this server started: Chromium, for one, erases the
    sandbox's marker from its environment and would outlive the sandbox."""
    try:
        with open(cfg.sessions_file) as f:
            sids = {int(line.split()[0]) for line in f if line.strip()}
    except (OSError, ValueError, IndexError):
        return
    def members():
        found = []
        for p in os.listdir("/proc"):
            if not p.isdigit() or int(p) == os.getpid():
                continue
            try:
                with open("/proc/%s/stat" % p) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[3]) in sids:
                        found.append(int(p))
            except (OSError, ValueError, IndexError):
                pass
        return found
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = members()
        for pid in pids:
            try:
                os.kill(pid, sig)
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        if not pids:
            return
        time.sleep(0.3)


def record_session(cfg, pid):
    """Notes a child (a session leader) for the pkill/killall shims."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            start = f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return
    with cfg.lock, open(cfg.sessions_file, "a") as f:
        f.write("%d %s\n" % (pid, start))


def _reader(stream, sink):
    try:
        while True:
            chunk = stream.read1(65536)
            if not chunk:
                break
            sink.append(chunk)
    except (OSError, ValueError):
        pass


def run_deadline(cfg, command, shell=False, timeout=EXECUTE_TIMEOUT, cwd=None,
                 merge_stderr=False, raw=False, record=False):
    """Runs a command in its own process group with a deadline.

    Returns (returncode, stdout, stderr, timed_out), text unless `raw`. On timeout the whole group
    is killed. When the command exits but a background child keeps its output
    pipes open, output is returned after a short grace period and the child is
    left running (as a shell would leave `cmd &`).
    """
    proc = subprocess.Popen(
        command, shell=shell, cwd=cwd, env=cfg.env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        start_new_session=True)
    if record:  # a task's command: the pkill/killall shims may signal its session
        record_session(cfg, proc.pid)
    out, err = [], []
    readers = [threading.Thread(target=_reader, args=(proc.stdout, out), daemon=True)]
    if not merge_stderr:
        readers.append(threading.Thread(target=_reader, args=(proc.stderr, err), daemon=True))
    for t in readers:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    grace = time.monotonic() + 2
    for t in readers:
        t.join(max(0.0, grace - time.monotonic()))
    if raw:
        return proc.returncode, b"".join(out), b"".join(err), timed_out
    decode = lambda parts: b"".join(parts).decode("utf-8", "replace")
    return proc.returncode, decode(out), decode(err), timed_out


def _reap(proc):
    try:
        proc.wait()
    except Exception:  # noqa: BLE001 - reaping only
        pass


def launch(cfg, command, shell=False):
    """Starts a program detached (own process group, output to a log file)."""
    with cfg.lock:
        cfg.launch_count += 1
        n = cfg.launch_count
    first = command if isinstance(command, str) else command[0]
    name = re.sub(r"[^\w.-]", "_", os.path.basename(first.split()[0] if first.split() else "cmd"))
    log_path = os.path.join(cfg.log_dir, "launch-%d-%s.log" % (n, name[:40]))
    with open(log_path, "ab") as logf:
        proc = subprocess.Popen(command, shell=shell, env=cfg.env, stdin=subprocess.DEVNULL,
                                stdout=logf, stderr=subprocess.STDOUT, start_new_session=True,
                                cwd=cfg.home if os.path.isdir(cfg.home) else None)
    record_session(cfg, proc.pid)
    threading.Thread(target=_reap, args=(proc,), daemon=True).start()
    log("launched pid %d: %r (log %s)" % (proc.pid, command, log_path))
    return proc


# ---------------------------------------------------------------- shims

SAFEKILL = r'''#!@PYTHON@
"""pkill/killall limited to processes of one uidriver sandbox (see osworld_control.py)."""
import os, re, signal, subprocess, sys

VAR, MARKER, SESSIONS = @VAR@, @MARKER@, @SESSIONS@


def stat_of(pid):
    """(session id, start time) of a process, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[3]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def our_sessions():
    """Sessions the control server started (its children are session leaders)."""
    try:
        with open(SESSIONS) as f:
            pairs = [line.split() for line in f]
    except OSError:
        return set()
    result = set()
    for pid, start in (p for p in pairs if len(p) == 2):
        leader = stat_of(int(pid))
        if leader is None or leader[1] == int(start):  # leader gone, or still the same one
            result.add(int(pid))
    return result


SESSION_IDS = None


def ours(pid):
    """Carries the marker, or is in a session the server started (Chromium, for one,
    overwrites its environment with its process title)."""
    global SESSION_IDS
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return False
    if ("%s=%s" % (VAR, MARKER)).encode() in env:
        return True
    if SESSION_IDS is None:
        SESSION_IDS = our_sessions()
    st = stat_of(pid)
    return st is not None and st[0] in SESSION_IDS


def protected():
    pids, pid = {os.getpid()}, os.getppid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def signum(spec):
    spec = spec.upper()
    if spec.isdigit():
        return int(spec)
    name = spec if spec.startswith("SIG") else "SIG" + spec
    return int(getattr(signal.Signals, name))


def is_signal(spec):
    if spec.isdigit():
        return True
    if len(spec) < 2:
        return False
    try:
        signum(spec)
        return True
    except (AttributeError, ValueError):
        return False


def send(pids, sig, name, echo):
    done = 0
    for pid in pids:
        try:
            os.kill(pid, sig)
            done += 1
            if echo:
                print("%s killed (pid %d)" % (comm_of(pid) or name, pid))
        except ProcessLookupError:
            pass
        except PermissionError as e:
            print("%s: killing pid %d failed: %s" % (name, pid, e), file=sys.stderr)
    return done


def pkill(args):
    sig, echo, rest, i = signal.SIGTERM, False, [], 0
    while i < len(args):
        a = args[i]
        if a in ("--signal",) and i + 1 < len(args):
            sig, i = signum(args[i + 1]), i + 2
            continue
        if a.startswith("--signal="):
            sig = signum(a.split("=", 1)[1])
        elif a in ("-e", "--echo"):
            echo = True
        elif a.startswith("-") and not rest[-1:] == ["--"] and is_signal(a[1:]):
            sig = signum(a[1:])
        else:
            rest.append(a)
        i += 1
    # `google-chrome` is Chromium here: a task's `pkill chrome` means it too.
    for j in range(len(rest) - 1, -1, -1):
        if not rest[j].startswith("-"):
            if "chrome" in rest[j] and "chromium" not in rest[j]:
                rest[j] = rest[j].replace("chrome", "chrom(e|ium)")
            break
    try:
        r = subprocess.run(["/usr/bin/pgrep"] + rest, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        print("pkill: pgrep timed out", file=sys.stderr)
        return 3
    if r.returncode >= 2:
        sys.stderr.write(r.stderr.replace("pgrep", "pkill"))
        return r.returncode
    skip = protected()
    pids = [int(p) for p in r.stdout.split() if p.isdigit() and int(p) not in skip]
    pids = [p for p in pids if ours(p)]
    return 0 if send(pids, sig, "pkill", echo) else 1


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def killall(args):
    sig, quiet, ignore_case, regex, verbose, names, i = signal.SIGTERM, False, False, False, False, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-s", "--signal") and i + 1 < len(args):
            sig, i = signum(args[i + 1]), i + 2
            continue
        if a.startswith("--signal="):
            sig = signum(a.split("=", 1)[1])
        elif a in ("-q", "--quiet"):
            quiet = True
        elif a in ("-I", "--ignore-case"):
            ignore_case = True
        elif a in ("-r", "--regexp"):
            regex = True
        elif a in ("-v", "--verbose"):
            verbose = True
        elif a in ("-e", "--exact", "-g", "--process-group", "-w", "--wait", "-i", "--interactive"):
            pass
        elif a.startswith("-") and len(a) > 1 and is_signal(a[1:]):
            sig = signum(a[1:])
        elif a.startswith("-") and len(a) > 1:
            print("killall: unsupported option %s" % a, file=sys.stderr)
            return 2
        else:
            names.append(a)
        i += 1
    if not names:
        print("Usage: killall [-q] [-I] [-r] [-SIGNAL] NAME...", file=sys.stderr)
        return 2
    skip, flags = protected(), re.I if ignore_case else 0
    procs = [(int(p), comm_of(int(p))) for p in os.listdir("/proc") if p.isdigit()]
    status = 0
    for name in names:
        if regex:
            match = lambda c: re.search(name, c, flags)
        else:
            # `google-chrome` is Chromium here: a task's `killall chrome` means it too.
            wants = {name[:15]} | ({"chromium"} if name in ("chrome", "google-chrome") else set())
            match = lambda c: (c.lower() in {w.lower() for w in wants}) if ignore_case \
                else c in wants
        pids = [p for p, c in procs if c is not None and p not in skip and match(c) and ours(p)]
        if not send(pids, sig, name, verbose):
            status = 1
            if not quiet:
                print("%s: no process found" % name, file=sys.stderr)
    return status


if __name__ == "__main__":
    if not MARKER:
        print("%s: refusing: no %s in the environment of the control server"
              % (sys.argv[1], VAR), file=sys.stderr)
        sys.exit(3)
    try:
        sys.exit(pkill(sys.argv[2:]) if sys.argv[1] == "pkill" else killall(sys.argv[2:]))
    except (AttributeError, ValueError) as e:
        print("%s: bad signal: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(2)
'''


# `sudo` in the sandbox: no one is made root. `-S` reads the password line from stdin and
# drops it; an `apt`/`apt-get` install succeeds only when every package is already installed
# (nothing is installed on the machine), `apt update` does nothing; any other command runs as
# the user the sandbox runs as.
SUDO = r'''#!@PYTHON@
import os, subprocess, sys
args = sys.argv[1:]
while args and args[0].startswith("-"):
    opt = args.pop(0)
    if opt == "-S":
        sys.stdin.readline()
    elif opt in ("-u", "-g", "-p", "-C", "-h"):
        args = args[1:]
    elif opt == "--":
        break
if not args:
    sys.exit(0)
prog = os.path.basename(args[0])
if prog in ("apt", "apt-get"):
    sub = [a for a in args[1:] if not a.startswith("-")]
    if sub[:1] in (["update"], ["upgrade"], []):
        sys.exit(0)
    if sub[:1] == ["install"]:
        missing = [p for p in sub[1:] if subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
            text=True).stdout != "install ok installed"]
        if not missing:
            sys.exit(0)
        print("sudo: the sandbox installs no packages; missing: " + " ".join(missing),
              file=sys.stderr)
        sys.exit(100)
    print("sudo: the sandbox runs no package manager as root", file=sys.stderr)
    sys.exit(1)
os.execvp(args[0], args)
'''


# The folders of OSWorld's home (a GNOME session's XDG user directories).
HOME_FOLDERS = ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Public",
                "Templates", "Videos")


def seed_home(cfg):
    """What OSWorld's image has in its home and tasks take for granted: the XDG folders."""
    for name in HOME_FOLDERS:
        os.makedirs(os.path.join(cfg.home, name), exist_ok=True)


def seed_chrome_profile(cfg):
    """OSWorld's image has a Chrome profile that tasks' setups edit before Chrome first runs
    (`jq ... Preferences`): a fresh home gets a minimal one where the `google-chrome` shim
    keeps it."""
    prefs = os.path.join(cfg.home, ".config", "google-chrome", "Default", "Preferences")
    if os.path.exists(prefs):
        return
    os.makedirs(os.path.dirname(prefs), exist_ok=True)
    with open(prefs, "w") as f:
        json.dump({"browser": {"has_seen_welcome_page": True},
                   "profile": {"exit_type": "Normal"}}, f)


def write_shims(cfg):
    def write(name, body):
        path = os.path.join(cfg.shim_dir, name)
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, 0o755)

    chrome = ('#!/bin/sh\nexec %s --no-sandbox --disable-gpu --no-first-run '
              '--disable-background-networking --disable-component-update --disable-sync '
              '--force-renderer-accessibility --password-store=basic '
              '--user-data-dir="$HOME/.config/google-chrome" "$@"\n' % CHROMIUM)
    for name in ("google-chrome", "google-chrome-stable", "chromium-browser"):
        write(name, chrome)
    py = "#!/bin/sh\nexec %s \"$@\"\n" % shlex.quote(cfg.python)
    for name in ("python", "python3"):
        write(name, py)
    write("sudo", SUDO.replace("@PYTHON@", sys.executable))
    helper = (SAFEKILL.replace("@PYTHON@", sys.executable)
              .replace("@VAR@", repr(SANDBOX_ID_VAR)).replace("@MARKER@", repr(cfg.marker))
              .replace("@SESSIONS@", repr(cfg.sessions_file)))
    write("_safekill", helper)
    for name in ("pkill", "killall"):
        write(name, "#!/bin/sh\nexec %s %s %s \"$@\"\n" % (
            shlex.quote(sys.executable), shlex.quote(os.path.join(cfg.shim_dir, "_safekill")),
            name))


# ---------------------------------------------------------------- X11 helpers

def x_tool(cfg, argv, timeout=X_TOOL_TIMEOUT):
    if not shutil.which(argv[0], path=cfg.env["PATH"]):
        return 127, "", "%s is not installed" % argv[0]
    rc, out, err, timed_out = run_deadline(cfg, argv, timeout=timeout)
    if timed_out:
        return -1, out, "%s timed out after %ss" % (argv[0], timeout)
    return rc, out, err


def windows(cfg, with_class=False):
    """[(id, title, wm_class, (x, y, w, h))] from wmctrl (empty when it fails)."""
    argv = ["wmctrl", "-lGx"] if with_class else ["wmctrl", "-lG"]
    rc, out, _ = x_tool(cfg, argv)
    result = []
    for line in out.splitlines() if rc == 0 else []:
        fields = line.split(None, 8 if with_class else 7)
        n = 9 if with_class else 8
        fields += [""] * (n - len(fields))
        try:
            geom = tuple(int(v) for v in fields[2:6])
        except ValueError:
            continue
        wm_class = fields[6] if with_class else ""
        result.append((fields[0], fields[n - 1], wm_class, geom))
    return result


def screen_size(cfg):
    rc, out, _ = x_tool(cfg, ["xdotool", "getdisplaygeometry"])
    m = re.match(r"\s*(\d+)\s+(\d+)", out) if rc == 0 else None
    if not m:
        rc, out, _ = x_tool(cfg, ["xdpyinfo"])
        m = re.search(r"dimensions:\s+(\d+)x(\d+) pixels", out)
    if not m:
        raise HttpError(500, "cannot read the screen size (xdotool and xdpyinfo failed)")
    return int(m.group(1)), int(m.group(2))


# ---------------------------------------------------------------- AT-SPI

# The tree is read in a child process (`--atspi-dump tree|terminal`), never in the
# server: libatspi calls can block forever on a frozen app or a broken bus, and
# a child can be killed at its deadline; a fresh connection also never answers
# from a stale cache.

Atspi = None  # set by _atspi_init in the child


def _atspi_init():
    global Atspi
    import gi
    gi.require_version("Atspi", "2.0")
    from gi.repository import Atspi as _Atspi
    _Atspi.init()
    _Atspi.set_timeout(2000, 15000)
    Atspi = _Atspi

MAX_DEPTH, MAX_WIDTH, MAX_NODES = 50, 1024, 60000
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(s):
    return _BAD_XML.sub("", s or "")


def _xml_name(name):
    name = re.sub(r"[^\w.-]", "_", name)
    return name if re.match(r"[A-Za-z_]", name) else "_" + name


class TreeWalk:
    """One walk of the AT-SPI tree with a node budget and a deadline."""

    def __init__(self, deadline):
        self.deadline = deadline
        self.nodes = 0
        self.truncated = False

    def more(self):
        if self.nodes >= MAX_NODES or time.monotonic() > self.deadline:
            self.truncated = True
            return False
        return True

    def attributes(self, acc):
        d = {"name": _clean(acc.get_name())}
        states = acc.get_state_set().get_states()
        for st in states:
            nm = st.value_name.replace("ATSPI_STATE_", "").lower()
            if nm and nm != "invalid":
                d["{%s}%s" % (NS["st"], nm)] = "true"
        for k, v in (acc.get_attributes() or {}).items():
            if k:
                d["{%s}%s" % (NS["attr"], _xml_name(k))] = _clean(v)
        showing = {s.value_name for s in states}
        if {"ATSPI_STATE_VISIBLE", "ATSPI_STATE_SHOWING"} <= showing and acc.get_component_iface():
            r = Atspi.Component.get_extents(acc, Atspi.CoordType.SCREEN)
            d["{%s}screencoord" % NS["cp"]] = "(%d, %d)" % (r.x, r.y)
            d["{%s}size" % NS["cp"]] = "(%d, %d)" % (r.width, r.height)
        if acc.get_image_iface():
            d["image"] = "true"
        if acc.get_selection_iface():
            d["selection"] = "true"
        if acc.get_value_iface():
            for nm, fn in (("value", Atspi.Value.get_current_value),
                           ("min", Atspi.Value.get_minimum_value),
                           ("max", Atspi.Value.get_maximum_value),
                           ("step", Atspi.Value.get_minimum_increment)):
                try:
                    d["{%s}%s" % (NS["val"], nm)] = str(fn(acc))
                except Exception:  # noqa: BLE001 - a value may be missing
                    pass
        if acc.get_action_iface():
            for i in range(Atspi.Action.get_n_actions(acc)):
                an = _xml_name((Atspi.Action.get_action_name(acc, i) or "").replace(" ", "-"))
                d["{%s}%s_desc" % (NS["act"], an)] = _clean(Atspi.Action.get_action_description(acc, i))
                d["{%s}%s_kb" % (NS["act"], an)] = _clean(Atspi.Action.get_key_binding(acc, i))
        return d

    def node(self, acc, depth, flag=None):
        self.nodes += 1
        try:
            attrs = self.attributes(acc)
        except Exception as e:  # noqa: BLE001 - a dying app
            attrs = {"name": "", "error": _clean(str(e))}
        raw_role = (acc.get_role_name() or "").strip()
        elem = ET.Element((raw_role or "unknown").replace(" ", "-"), attrs)
        try:
            if acc.get_text_iface():
                n = Atspi.Text.get_character_count(acc)
                text = Atspi.Text.get_text(acc, 0, n) or ""
                elem.text = _clean(text.replace("\ufffc", "").replace("\ufffd", "")) or None
        except Exception:  # noqa: BLE001
            pass
        if not flag and raw_role == "document spreadsheet":
            flag = "calc"
        if depth >= MAX_DEPTH:
            return elem
        if flag == "calc" and raw_role == "table":
            self.calc_cells(acc, elem, depth)
            return elem
        try:
            count = min(acc.get_child_count(), MAX_WIDTH)
        except Exception:  # noqa: BLE001
            count = 0
        for i in range(count):
            if not self.more():
                break
            try:
                child = acc.get_child_at_index(i)
            except Exception:  # noqa: BLE001
                continue
            if child is not None:
                elem.append(self.node(child, depth + 1, flag))
        return elem

    def calc_cells(self, table, elem, depth):
        """Only the cells on screen: a Calc sheet has millions of children."""
        try:
            ncols = Atspi.Table.get_n_columns(table) or 1024
        except Exception:  # noqa: BLE001
            ncols = 1024
        first_col, row = None, 0
        while row < 1048576 and self.more():
            found_in_row = False
            col = first_col or 0
            while col < ncols and self.more():
                try:
                    cell = table.get_child_at_index(row * ncols + col)
                    showing = cell is not None and cell.get_state_set().contains(
                        Atspi.StateType.SHOWING)
                except Exception:  # noqa: BLE001
                    showing = False
                if showing:
                    elem.append(self.node(cell, depth + 1, "calc"))
                    if first_col is None:
                        first_col = col
                    found_in_row = True
                elif first_col is not None or col >= 500:
                    break
                col += 1
            if (first_col is not None and not found_in_row) or (first_col is None and row >= 500):
                break
            row += 1


def _desktop_apps():
    # Note: set_cache_mask(Atspi.Cache.NONE) on an application makes later calls
    # on it hang (libatspi 2.46); a fresh process needs no cache tricks.
    desktop = Atspi.get_desktop(0)
    apps = []
    for i in range(desktop.get_child_count()):
        try:
            app = desktop.get_child_at_index(i)
        except Exception:  # noqa: BLE001
            continue
        if app is not None:
            apps.append(app)
    return apps


def accessibility_xml(budget=90.0):
    walk = TreeWalk(time.monotonic() + budget)
    root = ET.Element("desktop-frame")
    for app in _desktop_apps():
        if not walk.more():
            break
        root.append(walk.node(app, 1))
    if walk.truncated:
        log("accessibility tree truncated after %d nodes" % walk.nodes)
    return ET.tostring(root, encoding="unicode")


def _find_focused_terminal(acc, deadline, depth=0):
    if depth > MAX_DEPTH or time.monotonic() > deadline:
        return None
    try:
        if acc.get_role_name() == "terminal" and acc.get_state_set().contains(
                Atspi.StateType.FOCUSED):
            return acc
        count = min(acc.get_child_count(), MAX_WIDTH)
    except Exception:  # noqa: BLE001
        return None
    for i in range(count):
        try:
            child = acc.get_child_at_index(i)
        except Exception:  # noqa: BLE001
            continue
        found = child is not None and _find_focused_terminal(child, deadline, depth + 1)
        if found:
            return found
    return None


def terminal_text(budget=20.0):
    """Text of the focused terminal in an active window, or None."""
    deadline = time.monotonic() + budget
    for app in _desktop_apps():
        for i in range(app.get_child_count()):
            frame = app.get_child_at_index(i)
            if frame is None or not frame.get_state_set().contains(Atspi.StateType.ACTIVE):
                continue
            term = _find_focused_terminal(frame, deadline)
            if term is not None:
                n = Atspi.Text.get_character_count(term)
                return (Atspi.Text.get_text(term, 0, n) or "").rstrip()
    return None


def atspi_dump(mode):
    """Child-process entry: prints {"AT": xml} or {"output": text} as JSON."""
    try:
        _atspi_init()
    except Exception as e:  # noqa: BLE001 - optional dependency
        sys.stderr.write("AT-SPI is unavailable (gi.repository.Atspi): %s\n" % e)
        return 3
    result = {"AT": accessibility_xml()} if mode == "tree" else {"output": terminal_text()}
    sys.stdout.write(json.dumps(result))
    return 0


def atspi_query(cfg, mode, timeout):
    """Runs atspi_dump in a child with a deadline; its JSON answer."""
    rc, out, err, timed_out = run_deadline(
        cfg, [sys.executable, os.path.abspath(__file__), "--atspi-dump", mode], timeout=timeout)
    if timed_out:
        raise HttpError(500, "AT-SPI did not answer within %ds" % timeout)
    if rc != 0:
        raise HttpError(500, "reading AT-SPI failed: %s" % err.strip()[-2000:])
    return json.loads(out)


# ---------------------------------------------------------------- request parsing

def peer_uid(peer, local):
    """Uid owning the TCP socket at `peer` connected to `local`, from /proc/net/tcp."""
    def enc(addr):
        ip = struct.unpack("=I", socket.inet_aton(addr[0]))[0]
        return "%08X:%04X" % (ip, addr[1])
    want_local, want_remote = enc(peer), enc(local)
    with open("/proc/net/tcp") as f:
        next(f, None)
        for line in f:
            fields = line.split()
            if len(fields) > 7 and fields[1] == want_local and fields[2] == want_remote:
                return int(fields[7])
    return None


def parse_multipart(mm, boundary):
    """{name: (filename or None, start, end)} offsets of each part in `mm`."""
    delim = b"--" + boundary
    parts, pos = {}, mm.find(delim)
    while pos >= 0:
        pos += len(delim)
        if mm[pos:pos + 2] == b"--":
            break
        head_end = mm.find(b"\r\n\r\n", pos)
        if head_end < 0:
            break
        headers = bytes(mm[pos:head_end]).decode("utf-8", "replace")
        nxt = mm.find(b"\r\n" + delim, head_end + 4)
        if nxt < 0:
            break
        disp = re.search(r"(?im)^content-disposition:(.*)$", headers)
        disp = disp.group(1) if disp else ""
        name = re.search(r'\bname="([^"]*)"', disp) or re.search(r"\bname=([^;\s]+)", disp)
        fname = re.search(r'\bfilename="([^"]*)"', disp)
        if name:
            parts[name.group(1)] = (fname.group(1) if fname else None, head_end + 4, nxt)
        pos = nxt + 2
    return parts


# ---------------------------------------------------------------- HTTP handler

ROUTES = {
    "/terminal": "terminal", "/screenshot": "screenshot", "/accessibility": "accessibility",
    "/platform": "platform", "/cursor_position": "cursor_position",
    "/setup/execute": "execute", "/execute": "execute",
    "/setup/execute_with_verification": "execute_verify",
    "/execute_with_verification": "execute_verify",
    "/setup/launch": "launch", "/setup/upload": "upload", "/file": "file",
    "/setup/open_file": "open_file", "/setup/activate_window": "activate_window",
    "/setup/close_window": "close_window", "/setup/change_wallpaper": "change_wallpaper",
    "/wallpaper": "wallpaper", "/desktop_path": "desktop_path", "/screen_size": "screen_size",
    "/window_size": "window_size", "/list_directory": "list_directory",
    "/run_python": "run_python", "/run_bash_script": "run_bash_script",
    "/start_recording": "recording", "/end_recording": "recording",
}


class Handler(BaseHTTPRequestHandler):
    server_version = "uidriver-osworld-control/1"
    cfg = None  # set in main

    def log_message(self, fmt, *args):
        log("%s %s" % (self.address_string(), fmt % args))

    # -- plumbing

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def dispatch(self):
        self._body = None
        try:
            uid = peer_uid(self.client_address, self.connection.getsockname())
            if uid != os.getuid():
                self.send_json(403, {"error": "connection refused: peer socket owned by uid %s"
                                              % uid})
                return
            route = ROUTES.get(urllib.parse.urlsplit(self.path).path.rstrip("/") or "/")
            if route is None:
                self.send_json(404, {"error": "unknown endpoint %s" % self.path})
                return
            getattr(self, "ep_" + route)()
        except HttpError as e:
            self.send_json(e.code, e.body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as e:  # noqa: BLE001 - never drop the connection
            log("error in %s: %s" % (self.path, traceback.format_exc()))
            try:
                self.send_json(500, {"status": "error", "error": str(e), "message": str(e)})
            except OSError:
                pass

    def send_bytes(self, code, data, ctype, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, code, obj):
        self.send_bytes(code, json.dumps(obj).encode(), "application/json")

    def send_text(self, code, text):
        self.send_bytes(code, text.encode(), "text/html; charset=utf-8")

    def send_file(self, path, ctype="application/octet-stream", attachment=False):
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(size))
            if attachment:
                self.send_header("Content-Disposition", 'attachment; filename="%s"'
                                 % os.path.basename(path).replace('"', ""))
            self.end_headers()
            shutil.copyfileobj(f, self.wfile, 1 << 20)

    def body_to_file(self):
        """The request body spooled into an unnamed temporary file."""
        f = tempfile.TemporaryFile(dir=self.cfg.log_dir)
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    break
                self._copy(f, size)
                self.rfile.readline()
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                raise HttpError(413, "request body too large")
            self._copy(f, length)
        f.flush()
        return f

    def _copy(self, f, n):
        while n > 0:
            chunk = self.rfile.read(min(n, 1 << 20))
            if not chunk:
                raise HttpError(400, "request body ended early")
            f.write(chunk)
            n -= len(chunk)

    def body(self):
        if self._body is None:
            with self.body_to_file() as f:
                f.seek(0)
                self._body = f.read()
        return self._body

    def json_body(self):
        raw = self.body()
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise HttpError(400, "request body is not JSON")
        if not isinstance(data, dict):
            raise HttpError(400, "request body must be a JSON object")
        return data

    def form(self):
        """Fields of a url-encoded form (or of a JSON object)."""
        ctype = self.headers.get("Content-Type", "")
        raw = self.body()
        if "json" in ctype:
            return self.json_body()
        pairs = urllib.parse.parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        return {k: v[0] for k, v in pairs.items()}



# ---------------------------------------------------------------- endpoints
# Plain functions taking the handler as `self`; attached to Handler as ep_* below.

def _timeout(value, default):
    try:
        t = float(value) if value is not None else default
    except (TypeError, ValueError):
        raise HttpError(400, "timeout must be a number")
    return max(1.0, min(t, MAX_TIMEOUT))


def ep_execute(self):
    data = self.json_body()
    shell = bool(data.get("shell", False))
    command = self.cfg.command(data.get("command", "" if shell else []), shell)
    timeout = _timeout(data.get("timeout"), EXECUTE_TIMEOUT)
    try:
        rc, out, err, timed_out = run_deadline(self.cfg, command, shell=shell, timeout=timeout,
                                               record=True)
    except OSError as e:
        raise HttpError(500, str(e))
    if timed_out:
        record_failure(self, command, "timed out after %gs" % timeout)
        raise HttpError(500, "timed out", {
            "status": "error", "message": "command timed out after %gs" % timeout,
            "output": out, "error": err, "returncode": rc})
    if rc != 0:
        record_failure(self, command, "exited %s: %s" % (rc, (err or out).strip()[-300:]))
    self.send_json(200, {"status": "success", "output": out, "error": err, "returncode": rc})


def ep_execute_verify(self):
    data = self.json_body()
    shell = bool(data.get("shell", False))
    command = self.cfg.command(data.get("command", "" if shell else []), shell)
    verification = data.get("verification") or {}
    max_wait = _timeout(data.get("max_wait_time"), 10)
    interval = max(0.1, float(data.get("check_interval") or 1))
    rc, out, err, timed_out = run_deadline(self.cfg, command, shell=shell,
                                           timeout=EXECUTE_TIMEOUT, record=True)
    if timed_out:
        raise HttpError(500, "command timed out after %ds" % EXECUTE_TIMEOUT)
    result = {"status": "success", "output": out, "error": err, "returncode": rc}
    if not verification:
        self.send_json(200, result)
        return
    start = time.monotonic()
    while time.monotonic() - start < max_wait:
        ok = True
        if "window_exists" in verification:
            want = str(verification["window_exists"]).lower()
            ok = any(want in title.lower() for _, title, _, _ in windows(self.cfg))
        if ok and "command_success" in verification:
            vrc, _, _, vto = run_deadline(self.cfg, self.cfg.command(
                verification["command_success"], True), shell=True, timeout=5)
            ok = vrc == 0 and not vto
        if ok:
            result.update(verification="passed", wait_time=time.monotonic() - start)
            self.send_json(200, result)
            return
        time.sleep(interval)
    result.update(status="verification_failed", verification="failed", wait_time=max_wait)
    self.send_json(500, result)


def ep_launch(self):
    data = self.json_body()
    shell = bool(data.get("shell", False))
    command = self.cfg.command(data.get("command", "" if shell else []), shell)
    try:
        launch(self.cfg, command, shell)
    except OSError as e:
        record_failure(self, command, "could not start: %s" % e)
        raise HttpError(500, "failed to launch %r: %s" % (command, e))
    shown = command if isinstance(command, str) else " ".join(command)
    self.send_text(200, "%s launched successfully" % shown)


def ep_upload(self):
    boundary = re.search(r'boundary="?([^";]+)"?', self.headers.get("Content-Type", ""))
    if not boundary:
        raise HttpError(400, "expected multipart/form-data with file_path and file_data")
    with self.body_to_file() as f:
        size = f.seek(0, 2)
        if size == 0:
            raise HttpError(400, "empty upload")
        with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as mm:
            parts = parse_multipart(mm, boundary.group(1).encode())
            if "file_path" not in parts or "file_data" not in parts:
                raise HttpError(400, "file_path and file_data are required")
            _, s, e = parts["file_path"]
            path = self.cfg.path(bytes(mm[s:e]).decode("utf-8"))
            _, s, e = parts["file_data"]
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            try:
                with open(path, "wb") as out:
                    for off in range(s, e, 1 << 20):
                        out.write(mm[off:min(e, off + (1 << 20))])
            except OSError as err:
                raise HttpError(500, "failed to upload file: %s" % err)
    self.send_text(200, "File Uploaded: %d bytes" % os.path.getsize(path))


def ep_file(self):
    form = self.form()
    if "file_path" not in form:
        raise HttpError(400, "file_path is required")
    path = self.cfg.path(form["file_path"])
    if not os.path.isfile(path):
        raise HttpError(404, "File not found")
    self.send_file(path, attachment=True)


def _opener(cfg, path):
    """The command that opens `path` in the app OSWorld's VM would use."""
    ext = os.path.splitext(path)[1].lower()
    which = lambda *names: next((n for n in names if shutil.which(n, path=cfg.env["PATH"])), None)
    app = None
    if ext in OFFICE_EXTS:
        app = which("libreoffice", "soffice")
    elif ext in TEXT_EXTS:
        app = which("gedit", "mousepad", "gnome-text-editor")
    elif ext in IMAGE_EXTS:
        app = which("eog", "ristretto", "gimp")
    elif ext in MEDIA_EXTS:
        app = which("vlc")
    elif ext == ".pdf":
        app = which("evince", "okular", "atril")
    if app in ("libreoffice", "soffice"):  # no recovery dialog after a killed session
        return [app, "--norestore", path]
    if app:
        return [app, path]
    if which("xdg-open"):
        return ["xdg-open", path]
    if which("gio"):
        return ["gio", "open", path]
    raise HttpError(500, "no program found to open %s" % path)


def ep_open_file(self):
    data = self.json_body()
    if not data.get("path"):
        raise HttpError(400, "Path not supplied!")
    path = self.cfg.path(data["path"])
    if os.path.exists(path):
        command = _opener(self.cfg, path)
        name = os.path.basename(path)
        stem = os.path.splitext(name)[0] or name
    elif shutil.which(path, path=self.cfg.env["PATH"]):
        command, name, stem = [path], path, path
    else:
        raise HttpError(404, "Application/file not found: %s" % path)
    try:
        launch(self.cfg, command)
    except OSError as e:
        raise HttpError(500, "Failed to open %s. Error: %s" % (path, e))
    deadline = time.monotonic() + OPEN_FILE_TIMEOUT
    while time.monotonic() < deadline:
        for wid, title, _, _ in windows(self.cfg):
            if name in title or stem in title:
                x_tool(self.cfg, ["wmctrl", "-i", "-a", wid])
                self.send_text(200, "File opened and window activated successfully")
                return
        time.sleep(0.5)
    raise HttpError(500, "Failed to find window for %s within %d seconds."
                    % (name, OPEN_FILE_TIMEOUT))


def _wmctrl_window(self, action):
    data = self.json_body()
    name = data.get("window_name")
    if not name:
        raise HttpError(400, "window_name required")
    flags = "-%s%s%s" % ("x" if data.get("by_class") else "", "F" if data.get("strict") else "",
                         action)
    rc, out, err = x_tool(self.cfg, ["wmctrl", flags, str(name)])
    if rc != 0:
        raise HttpError(404, "Window %s not found: %s" % (name, (err or out).strip()))
    return name


def ep_activate_window(self):
    _wmctrl_window(self, "a")
    self.send_text(200, "Window activated successfully")


def ep_close_window(self):
    _wmctrl_window(self, "c")
    self.send_text(200, "Window closed successfully.")


def ep_change_wallpaper(self):
    data = self.json_body()
    if not data.get("path"):
        raise HttpError(400, "Path not supplied!")
    path = os.path.abspath(self.cfg.path(data["path"]))
    if not os.path.isfile(path):
        raise HttpError(404, "File not found: %s" % path)
    self.cfg.wallpaper = path
    x_tool(self.cfg, ["gsettings", "set", "org.gnome.desktop.background", "picture-uri",
                      "file://" + path])
    painted = None
    for argv in (["xwallpaper", "--zoom", path], ["feh", "--no-fehbg", "--bg-fill", path],
                 ["display", "-window", "root", path]):
        if x_tool(self.cfg, argv)[0] == 0:
            painted = argv[0]
            break
    self.send_text(200, "Wallpaper changed successfully" +
                   ("" if painted else " (recorded; no tool could paint the root window)"))


def ep_wallpaper(self):
    path = self.cfg.wallpaper
    if not path or not os.path.isfile(path):
        rc, out, _ = x_tool(self.cfg, ["gsettings", "get", "org.gnome.desktop.background",
                                       "picture-uri"])
        path = out.strip().strip("'").replace("file://", "") if rc == 0 else None
    if not path or not os.path.isfile(path):
        raise HttpError(404, "Wallpaper file not found")
    self.send_file(path, "image/png")


def ep_desktop_path(self):
    self.send_json(200, {"desktop_path": os.path.join(self.cfg.home, "Desktop")})


def ep_screen_size(self):
    w, h = screen_size(self.cfg)
    self.send_json(200, {"width": w, "height": h})


def ep_window_size(self):
    form = self.form()
    want = str(form.get("app_class_name") or "").lower()
    if not want:
        raise HttpError(400, "app_class_name is required")
    for _, _, wm_class, (_, _, w, h) in windows(self.cfg, with_class=True):
        wm = wm_class.lower()
        names = {wm} | {part for i, c in enumerate(wm) if c == "." for part in (wm[:i], wm[i + 1:])}
        if want in names:
            self.send_json(200, {"width": w, "height": h})
            return
    raise HttpError(404, "no window of class %s" % want)


def _tree(directory, seen, budget):
    tree = {"type": "directory", "name": os.path.basename(directory), "children": []}
    try:
        real = os.path.realpath(directory)
        if real in seen:
            return tree
        seen.add(real)
        for entry in sorted(os.listdir(directory)):
            budget[0] -= 1
            if budget[0] < 0:
                break
            full = os.path.join(directory, entry)
            if os.path.isdir(full):
                tree["children"].append(_tree(full, seen, budget))
            else:
                tree["children"].append({"type": "file", "name": entry})
    except OSError as e:
        tree = {"error": str(e)}
    return tree


def ep_list_directory(self):
    data = self.json_body()
    if "path" not in data:
        raise HttpError(400, "Missing 'path' parameter")
    path = self.cfg.path(data["path"])
    if not os.path.isdir(path):
        raise HttpError(400, "The provided path is not a directory")
    self.send_json(200, {"directory_tree": _tree(path, set(), [200000])})


def ep_run_python(self):
    code = self.json_body().get("code")
    if not code:
        raise HttpError(400, "Code not supplied!", {"status": "error",
                                                    "message": "Code not supplied!"})
    fd, script = tempfile.mkstemp(suffix=".py", dir=self.cfg.log_dir)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(self.cfg.text(code))
        rc, out, err, timed_out = run_deadline(self.cfg, [self.cfg.python, script], timeout=30,
                                               record=True)
    finally:
        os.unlink(script)
    if timed_out:
        raise HttpError(500, "timeout", {
            "status": "error", "message": "Execution timeout: Code took too long to execute",
            "error": "TimeoutExpired", "need_more": False, "output": None})
    if rc != 0 and not err:
        err = "Process exited with code %d" % rc
    message = out + (("\n" if out else "") + err if err else "")
    self.send_json(200, {"status": "success" if rc == 0 else "error", "message": message,
                         "need_more": False, "output": out, "error": err, "return_code": rc})


def ep_run_bash_script(self):
    data = self.json_body()
    script = data.get("script")
    fail = lambda code, msg: HttpError(code, msg, {"status": "error", "output": msg,
                                                   "error": "", "returncode": -1})
    if not script:
        raise fail(400, "Script not supplied!")
    timeout = _timeout(data.get("timeout"), 100)
    cwd = data.get("working_dir")
    if cwd:
        cwd = self.cfg.path(cwd)
        if not os.path.isdir(cwd):
            raise fail(400, "Working directory does not exist: %s" % cwd)
    script = self.cfg.text(script)
    if "#!/bin/bash" not in script:
        script = "#!/bin/bash\n\n" + script
    fd, path = tempfile.mkstemp(suffix=".sh", dir=self.cfg.log_dir)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(script)
        rc, out, _, timed_out = run_deadline(self.cfg, ["/bin/bash", path], timeout=timeout,
                                             cwd=cwd or None, merge_stderr=True, record=True)
    finally:
        os.unlink(path)
    if timed_out:
        raise fail(500, "Script execution timed out after %g seconds" % timeout)
    self.send_json(200, {"status": "success" if rc == 0 else "error", "output": out,
                         "error": "", "returncode": rc})


def ep_recording(self):
    raise HttpError(501, "screen recording is not supported by the uidriver control server")


def ep_terminal(self):
    output = atspi_query(self.cfg, "terminal", 40)["output"]
    self.send_json(200, {"output": output, "status": "success"})


def ep_accessibility(self):
    self.send_json(200, {"AT": atspi_query(self.cfg, "tree", 120)["AT"]})


def ep_screenshot(self):
    rc, out, err, timed_out = run_deadline(self.cfg, ["import", "-window", "root", "png:-"],
                                           timeout=20, raw=True)
    if timed_out or rc != 0 or not out.startswith(b"\x89PNG"):
        raise HttpError(500, "screenshot failed: %s" % (
            "timed out" if timed_out else err.decode("utf-8", "replace").strip()))
    self.send_bytes(200, out, "image/png")


def ep_platform(self):
    self.send_text(200, "Linux")


def ep_cursor_position(self):
    rc, out, err = x_tool(self.cfg, ["xdotool", "getmouselocation", "--shell"])
    pos = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    if rc != 0 or "X" not in pos:
        raise HttpError(500, "cannot read the pointer position: %s" % err.strip())
    self.send_json(200, [int(pos["X"]), int(pos["Y"])])


for _name, _fn in list(globals().items()):
    if _name.startswith("ep_") and callable(_fn):
        setattr(Handler, _name, _fn)


# ---------------------------------------------------------------- main

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", default="127.0.0.1:0", help="loopback HOST:PORT (0: any free port)")
    p.add_argument("--python", help="interpreter for python/python3 and /run_python")
    p.add_argument("--user-home", default="/home/user", help="the home OSWorld's tasks name")
    p.add_argument("--chrome-port", type=int, help="port that replaces socat's 9222")
    p.add_argument("--devtools-port", type=int, help="port that replaces Chrome's 1337")
    p.add_argument("--vlc-port", type=int, help="port that replaces VLC's 8080")
    p.add_argument("--shim-dir", help="directory for the shims (default: a temporary one)")
    p.add_argument("--failures", help="file to append setup commands that failed to (JSON lines)")
    p.add_argument("--atspi-dump", choices=("tree", "terminal"), help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.atspi_dump:
        sys.exit(atspi_dump(args.atspi_dump))
    host, _, port = args.listen.rpartition(":")
    host = host or "127.0.0.1"
    if host == "localhost":
        host = "127.0.0.1"
    try:
        if not socket.inet_aton(host)[0] == 127 or host.count(".") != 3:
            raise OSError
    except OSError:
        sys.exit("--listen must be an IPv4 loopback address, not %r" % host)
    cfg = Config(args)
    write_shims(cfg)
    seed_home(cfg)
    seed_chrome_profile(cfg)
    Handler.cfg = cfg
    server = ThreadingHTTPServer((host, int(port or 0)), Handler)
    server.daemon_threads = True

    def stop(_signum, _frame):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # stack dump on demand
    bound = server.server_address
    print("listening %s:%d" % (bound[0], bound[1]), flush=True)
    log("home %s (OSWorld's %s %s), shims %s, logs %s, marker %s" % (
        cfg.home, cfg.user_home, "mapped" if cfg.map_home else "not mapped", cfg.shim_dir,
        cfg.log_dir, "set" if cfg.marker else "MISSING"))
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()
        end_sessions(cfg)
        for d in cfg.own_dirs:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
