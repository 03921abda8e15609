#!/usr/bin/env python3
"""End-to-end check of osworld_control.py with OSWorld's own client code.

Run inside a uidriver sandbox's environment (DISPLAY, D-Bus, AT-SPI, HOME), with
a Python that has OSWorld's client dependencies (requests, requests-toolbelt,
playwright (no browser download needed), pydrive, python-dotenv, pyautogui,
python-xlib; openpyxl optional):

    uidriver sandbox start --name ctl > /tmp/ctl.env
    source <(grep ^export /tmp/ctl.env)
    /tmp/owvenv/bin/python check_control.py --osworld-code /tmp/dl/whl

It starts the server (this interpreter as --python, free ports for Chrome,
DevTools and VLC, OSWorld's /home/user mapped to $HOME), drives it with
OSWorld's SetupController, PythonController and two getter modules, checks
every effect independently (files on disk, windows in `wmctrl -l`, tabs through
Chrome's DevTools HTTP endpoint), then stops what it started. Exit status 1 when
any check failed.
"""

import argparse
import functools
import http.server
import importlib.util
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(os.path.dirname(HERE), "osworld_control.py")
FAILURES = []


def check(name, ok, detail=""):
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, (": " + str(detail)[:300]) if detail else ""),
          flush=True)
    if not ok:
        FAILURES.append(name)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wm_titles():
    r = subprocess.run(["wmctrl", "-l"], capture_output=True, text=True, timeout=10)
    return [line.split(None, 3)[3] if len(line.split(None, 3)) > 3 else "" for line in
            r.stdout.splitlines()]


def wait_for(pred, timeout=30.0, step=0.5):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    return pred()


def import_osworld(code_dir):
    """OSWorld's controllers; its heavy metrics package is stubbed when it cannot import."""
    sys.path.insert(0, code_dir)
    try:
        import desktop_env.evaluators.metrics.utils  # noqa: F401
    except Exception as e:  # noqa: BLE001 - missing optional dependencies
        print("note: stubbing desktop_env.evaluators.metrics (%s)" % e)
        for name in list(sys.modules):
            if name.startswith("desktop_env.evaluators"):
                del sys.modules[name]
        pkg = types.ModuleType("desktop_env.evaluators.metrics")
        pkg.__path__ = []
        utils = types.ModuleType("desktop_env.evaluators.metrics.utils")
        utils.compare_urls = lambda a, b, **_: a.rstrip("/") == b.rstrip("/")
        sys.modules[pkg.__name__], sys.modules[utils.__name__] = pkg, utils
    from desktop_env.controllers.python import PythonController
    from desktop_env.controllers.setup import SetupController

    def getter(name):
        path = os.path.join(code_dir, "desktop_env", "evaluators", "getters", name + ".py")
        spec = importlib.util.spec_from_file_location("ow_getter_" + name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return SetupController, PythonController, getter("general"), getter("info")


def start_web(root):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, "http://127.0.0.1:%d" % httpd.server_address[1]


def start_server(ports, shim_dir):
    env = dict(os.environ)
    if not env.get("UIDRIVER_SANDBOX_ID") and env.get("UIDRIVER_SANDBOX_DIR"):
        with open(os.path.join(env["UIDRIVER_SANDBOX_DIR"], "manifest.json")) as f:
            env["UIDRIVER_SANDBOX_ID"] = json.load(f)["marker"]
    argv = [sys.executable, SERVER, "--listen", "127.0.0.1:0", "--python", sys.executable,
            "--chrome-port", str(ports["chrome"]), "--devtools-port", str(ports["devtools"]),
            "--vlc-port", str(ports["vlc"]), "--shim-dir", shim_dir]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening 127.0.0.1:"):
        proc.kill()
        sys.exit("server did not start: %r" % line)
    return proc, int(line.rsplit(":", 1)[1]), env


def post(port, path, **kw):
    import requests
    return requests.post("http://127.0.0.1:%d%s" % (port, path), timeout=150, **kw)


def check_setup(SetupController, port, ports, home, work, web):
    cache = os.path.join(work, "cache")
    os.makedirs(cache)
    sc = SetupController(vm_ip="127.0.0.1", server_port=port, chromium_port=ports["chrome"],
                         vlc_port=ports["vlc"], cache_dir=cache)
    d = os.path.join(home, "Desktop", "ctl")
    blob = bytes(random.getrandbits(8) for _ in range(300_000)) + b"\r\n--boundary--\r\n"
    with open(os.path.join(work, "up.bin"), "wb") as f:
        f.write(blob)
    steps = [
        {"type": "execute", "parameters": {"command": ["mkdir", "-p", "/home/user/Desktop/ctl"]}},
        {"type": "command", "parameters": {
            "command": "echo hello > /home/user/Desktop/ctl/cmd.txt", "shell": True}},
        {"type": "execute", "parameters": {
            "command": ["python3", "-c", "import sys; print(sys.executable)"], "stdout": "py.txt"}},
        {"type": "execute", "parameters": {
            "command": "test -f ~/Desktop/ctl/cmd.txt", "shell": True, "until": {"returncode": 0}}},
        {"type": "upload_file", "parameters": {"files": [
            {"local_path": os.path.join(work, "up.bin"), "path": "/home/user/Desktop/ctl/up.bin"}]}},
        {"type": "download", "parameters": {"files": [
            {"url": web + "/data.txt", "path": "/home/user/Desktop/ctl/notes.txt"}]}},
        {"type": "sleep", "parameters": {"seconds": 0.5}},
    ]
    t0 = time.monotonic()
    check("setup: execute/command/upload_file/download/sleep", sc.setup(steps),
          "%.1fs" % (time.monotonic() - t0))
    check("execute made the directory under $HOME", os.path.isdir(d), d)
    check("command wrote the file", open(os.path.join(d, "cmd.txt")).read() == "hello\n"
          if os.path.exists(os.path.join(d, "cmd.txt")) else False)
    py = open(os.path.join(cache, "py.txt")).read().strip() if os.path.exists(
        os.path.join(cache, "py.txt")) else ""
    check("python3 shim runs the --python interpreter", py == sys.executable, py)
    check("upload_file wrote the same bytes", os.path.exists(os.path.join(d, "up.bin")) and
          open(os.path.join(d, "up.bin"), "rb").read() == blob)
    check("download wrote the served file", os.path.exists(os.path.join(d, "notes.txt")) and
          open(os.path.join(d, "notes.txt")).read() == "OSWorld download test\n")
    return sc, d


def check_windows(sc, d, have_xlsx):
    editor = "mousepad" if shutil.which("mousepad") else "gedit"
    sc.setup([{"type": "launch", "parameters": {"command": [editor]}}])
    check("launch %s: a window appears" % editor,
          wait_for(lambda: any(editor.lower() in t.lower() or "untitled" in t.lower()
                               for t in wm_titles()), 30), wm_titles())
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write("line one\n")
    t0 = time.monotonic()
    sc.setup([{"type": "open", "parameters": {"path": "/home/user/Desktop/ctl/report.txt"}}])
    check("open .txt: window titled report", any("report" in t for t in wm_titles()),
          "%.1fs %s" % (time.monotonic() - t0, wm_titles()))
    sc.setup([{"type": "activate_window", "parameters": {"window_name": "report"}}])
    active = subprocess.run(["xdotool", "getactivewindow", "getwindowname"], capture_output=True,
                            text=True, timeout=10).stdout.strip()
    check("activate_window: report is active", "report" in active, active)
    sc.setup([{"type": "close_window", "parameters": {"window_name": "report"}}])
    check("close_window: report window gone",
          wait_for(lambda: not any("report" in t for t in wm_titles()), 10), wm_titles())
    name = "sheet.xlsx" if have_xlsx else "sheet.csv"
    t0 = time.monotonic()
    sc.setup([{"type": "open", "parameters": {"path": "/home/user/Desktop/ctl/" + name}}])
    check("open %s: LibreOffice window" % name, any("sheet" in t for t in wm_titles()),
          "%.1fs %s" % (time.monotonic() - t0, wm_titles()))
    return editor


def check_chrome(sc, ports, web):
    steps = [
        {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
        {"type": "launch", "parameters": {"command": ["socat", "tcp-listen:9222,fork",
                                                      "tcp:localhost:1337"]}},
        {"type": "chrome_open_tabs", "parameters": {"urls_to_open": [web + "/a.html",
                                                                     web + "/b.html"]}},
    ]
    t0 = time.monotonic()
    try:
        ok = sc.setup(steps)
    except Exception as e:  # noqa: BLE001
        ok = False
        print("chrome setup raised: %s" % e)
    urls = []
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % ports["chrome"],
                                    timeout=10) as r:
            urls = [t["url"] for t in json.load(r) if t.get("type") == "page"]
    except OSError as e:
        urls = ["error: %s" % e]
    check("chrome_open_tabs through socat on the remapped ports", ok and
          web + "/a.html" in urls and web + "/b.html" in urls,
          "%.1fs %s" % (time.monotonic() - t0, urls))
    profile = "--user-data-dir=%s/.config/google-chrome" % os.environ["HOME"]
    running = lambda: subprocess.run(["pgrep", "-f", "--", profile], capture_output=True,
                                     text=True).stdout.split()
    before = running()
    r = post(port_of(sc), "/execute", json={"command": ["pkill", "chromium"]})
    check("pkill shim stops the sandbox's Chromium (environ overwritten by its title)",
          bool(before) and r.json().get("returncode") == 0 and wait_for(lambda: not running(), 15),
          "%s -> %s" % (r.json(), running()))


def port_of(sc):
    return sc.server_port


def check_python_controller(PythonController, port, home, d, editor):
    pc = PythonController(vm_ip="127.0.0.1", server_port=port)
    data = pc.get_file("/home/user/Desktop/ctl/cmd.txt")
    check("get_file", data == b"hello\n", data)
    r = pc.execute_python_command("print(pyautogui.size())")
    check("execute_python_command with pyautogui", bool(r) and "Size(width=" in r.get("output", ""),
          r)
    tree = pc.get_accessibility_tree() or ""
    check("get_accessibility_tree", tree.startswith("<desktop-frame") and
          "https://accessibility.ubuntu.example.org/ns/state" in tree and "<application" in tree,
          "%d chars" % len(tree))
    check("accessibility tree has the editor's frame with geometry",
          "<frame" in tree and "screencoord" in tree)
    shot = pc.get_screenshot()
    check("get_screenshot", bool(shot) and shot[:8] == b"\x89PNG\r\n\x1a\n",
          len(shot or b""))
    size = pc.get_vm_screen_size()
    geo = subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True, text=True,
                         timeout=10).stdout.split()
    check("get_vm_screen_size", size == {"width": int(geo[0]), "height": int(geo[1])}, size)
    ws = pc.get_vm_window_size(editor)
    check("get_vm_window_size(%s)" % editor, bool(ws) and ws.get("width", 0) > 0, ws)
    check("get_vm_desktop_path", pc.get_vm_desktop_path() == os.path.join(home, "Desktop"))
    tree = pc.get_vm_directory_tree("/home/user/Desktop/ctl") or {}
    names = {c.get("name") for c in tree.get("children", [])}
    check("get_vm_directory_tree", {"cmd.txt", "up.bin", "notes.txt"} <= names, names)
    with open(os.path.join(d, "wall.png"), "wb") as f:
        f.write(shot or b"")
    r = post(port, "/setup/change_wallpaper", json={"path": "/home/user/Desktop/ctl/wall.png"})
    check("change_wallpaper", r.status_code == 200, r.text)
    check("get_vm_wallpaper returns the same file", pc.get_vm_wallpaper() == shot)
    r = pc.run_python_script("import os\nprint(os.path.exists('/home/user/Desktop/ctl/cmd.txt'))")
    check("run_python_script (paths mapped)", r.get("output", "").strip() == "True" and
          r.get("return_code") == 0, r)
    r = pc.run_bash_script("cat cmd.txt; echo err >&2; exit 3", timeout=10,
                           working_dir="/home/user/Desktop/ctl")
    check("run_bash_script", r.get("output") == "hello\nerr\n" and r.get("returncode") == 3, r)
    check("get_terminal_output (no terminal: None)", pc.get_terminal_output() is None)
    return pc


def check_getters(general, info, pc, port):
    env = types.SimpleNamespace(vm_ip="127.0.0.1", server_port=port, controller=pc)
    out = general.get_vm_command_line(env, {"command": "echo $HOME", "shell": True})
    check("getter get_vm_command_line", (out or "").strip() == os.environ["HOME"], out)
    err = general.get_vm_command_error(env, {"command": ["ls", "/nonexistent-ctl"]})
    check("getter get_vm_command_error", "nonexistent-ctl" in (err or ""), err)
    check("getter get_vm_screen_size", "width" in (info.get_vm_screen_size(env, {}) or {}))


def check_edges(port):
    r = post(port, "/file", data={"file_path": "/home/user/no-such-file"})
    check("/file missing -> 404", r.status_code == 404, r.status_code)
    r = post(port, "/setup/open_file", json={"path": "/home/user/no-such-file.txt"})
    check("/setup/open_file missing -> 404", r.status_code == 404, r.status_code)
    r = post(port, "/nope")
    check("unknown path -> 404 JSON", r.status_code == 404 and "error" in r.json())
    r = post(port, "/start_recording")
    check("/start_recording -> 501", r.status_code == 501)
    r = post(port, "/execute", json={"command": "sleep 30", "shell": True, "timeout": 1})
    check("execute timeout answers in time", r.status_code == 500 and "timed out" in r.text)
    tag = "ctl-outside-%d" % os.getpid()
    outside = subprocess.Popen(["sh", "-c", "exec sleep 300 # " + tag],
                               env={k: v for k, v in os.environ.items()
                                    if k != "UIDRIVER_SANDBOX_ID"})
    r = post(port, "/execute", json={"command": ["pkill", "-9", "-f", tag]})
    time.sleep(0.3)
    check("pkill shim spares processes outside the sandbox", outside.poll() is None and
          r.json().get("returncode") == 1, r.json())
    outside.kill()
    outside.wait()
    if os.getuid() == 0 and shutil.which("setpriv"):
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            sys.executable, "-c",
                            "import urllib.request,sys\ntry:\n urllib.request.urlopen("
                            "'http://127.0.0.1:%d/platform')\nexcept Exception as e: print(e)"
                            % port], capture_output=True, text=True, timeout=30)
        check("another uid gets 403", "403" in r.stdout, r.stdout + r.stderr)


def make_files(work, home, web_root):
    for name in ("a", "b"):
        with open(os.path.join(web_root, name + ".html"), "w") as f:
            f.write("<html><head><title>Page %s</title></head><body>%s</body></html>" % (name, name))
    with open(os.path.join(web_root, "data.txt"), "w") as f:
        f.write("OSWorld download test\n")
    d = os.path.join(home, "Desktop", "ctl")
    try:
        import openpyxl
        wb = openpyxl.Workbook()
        wb.active["A1"], wb.active["B1"] = "name", "score"
        wb.active["A2"], wb.active["B2"] = "ada", 42
        wb.save(os.path.join(work, "sheet.xlsx"))
        return True
    except ImportError:
        with open(os.path.join(work, "sheet.csv"), "w") as f:
            f.write("name,score\nada,42\n")
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--osworld-code", required=True, help="directory holding desktop_env/")
    ap.add_argument("--skip-chrome", action="store_true")
    args = ap.parse_args()
    for var in ("DISPLAY", "HOME", "AT_SPI_BUS_ADDRESS"):
        if not os.environ.get(var):
            sys.exit("run me inside a sandbox environment: %s is not set" % var)
    home = os.environ["HOME"]
    SetupController, PythonController, general, info = import_osworld(args.osworld_code)
    work = tempfile.mkdtemp(prefix="check-control-")
    web_root = os.path.join(work, "web")
    os.makedirs(web_root)
    have_xlsx = make_files(work, home, web_root)
    httpd, web = start_web(web_root)
    ports = {"chrome": free_port(), "devtools": free_port(), "vlc": free_port()}
    server, port, env = start_server(ports, os.path.join(work, "shims"))
    print("server on port %d, ports %s, work %s" % (port, ports, work), flush=True)
    try:
        sc, d = check_setup(SetupController, port, ports, home, work, web)
        shutil.copy(os.path.join(work, "sheet.xlsx" if have_xlsx else "sheet.csv"), d)
        editor = check_windows(sc, d, have_xlsx)
        pc = check_python_controller(PythonController, port, home, d, editor)
        check_getters(general, info, pc, port)
        check_edges(port)
        if not args.skip_chrome:
            check_chrome(sc, ports, web)
    except Exception as e:  # noqa: BLE001 - report, then clean up
        import traceback
        traceback.print_exc()
        check("no exception", False, e)
    finally:
        try:  # the shims only touch this sandbox's processes
            post(port, "/execute", json={"command": "killall -q chromium socat soffice.bin "
                                                    "oosplash mousepad gedit; true",
                                         "shell": True})
        except Exception:  # noqa: BLE001
            pass
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        httpd.shutdown()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(os.path.join(home, "Desktop", "ctl"), ignore_errors=True)
    print("%d failure(s)%s" % (len(FAILURES), (": " + ", ".join(FAILURES)) if FAILURES else ""))
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
