"""OSWorld's own setup and judgement, run for uidriver's task runner.

uidriver never re-implements OSWorld's evaluators. This bridge imports `desktop_env` from the
user's OSWorld checkout (`--code`) and calls its `SetupController`, its getters and metrics,
and `DesktopEnv.evaluate` itself, against the OSWorld-compatible control API that
`osworld_control.py` serves inside the task's sandbox. Three commands:

  check    --code DIR --tasks LIST.json       which task files can run here, and why not
  setup    --code DIR --task FILE --env ENV   the task's `config` steps, by SetupController
  evaluate --code DIR --task FILE --env ENV   postconfig, getters, metrics: OSWorld's score

`ENV` is a JSON file the runner writes: the control API's port, Chrome's and VLC's ports, the
cache directory OSWorld's code reads downloads from (filled from uidriver's download cache
before it is asked, so nothing is fetched), and the agent's last action (`DONE` or `FAIL`).
Every command prints one JSON document on stdout; logs go to stderr.

Laziness: OSWorld's `metrics/__init__.py` and `getters/__init__.py` import every module at
once, so one missing heavy package (easyocr pulls torch) would stop every task. Here both
packages are lazy module objects: a name is imported from its own module when it is first
asked for, so only the tasks whose metric needs the missing package are skipped, and their
reason names it.
"""

import argparse
import ast
import importlib
import json
import logging
import os
import shutil
import sys
import types
import uuid

# Setup steps that need accounts or services no sandbox has.
UNSERVED_STEPS = {
    "googledrive": "needs Google Drive credentials and the internet",
    "login": "signs in to a web account (needs credentials and the internet)",
    "google_sheet_from_template": "needs Google Sheets credentials and the internet",
    "google_doc_from_template": "needs Google Docs credentials and the internet",
    "proxy": "needs OSWorld's proxy service",
    "act": "replays agent actions OSWorld's own way (not served)",
    "replay": "replays a trajectory (not served)",
    "execute_with_verification": "needs OSWorld's verification endpoint (not served)",
}
# Getters that read accounts.
UNSERVED_GETTERS = {
    "googledrive_file": "reads Google Drive (needs credentials and the internet)",
    "google_sheet": "reads Google Sheets (needs credentials and the internet)",
    "google_doc": "reads Google Docs (needs credentials and the internet)",
    "google_slide": "reads Google Slides (needs credentials and the internet)",
}
# Getters that read live websites: they run where the internet is reached.
INTERNET_GETTERS = {"info_from_website", "gotoRecreationPage_and_get_html_content",
                    "pdf_from_url", "page_info"}
# Says whether this machine reaches the internet (1 or 0), instead of trying.
INTERNET_VAR = "UIDRIVER_OSWORLD_INTERNET"
NO_INTERNET = f"needs the internet, which this machine does not reach ({INTERNET_VAR}=1 to run it anyway)"


def reaches_internet():
    """Whether web pages of tasks can load here: $UIDRIVER_OSWORLD_INTERNET, else whether a
    connection to a well-known host opens within 3 seconds."""
    said = os.environ.get(INTERNET_VAR)
    if said in ("0", "1"):
        return said == "1"
    import socket
    try:
        socket.create_connection(("www.google.com", 443), timeout=3).close()
        return True
    except OSError:
        return False
# The empty Chrome history `update_browse_history` downloads (a URL in OSWorld's code).
HISTORY_DB = ("https://huggingface.co/datasets/xlangai/ubuntu_osworld_file_cache/resolve/main/"
              "chrome/44ee5668-ecd5-4366-a6ce-c1c9b8d4e938/history_empty.sqlite?download=true")
# Programs a task may launch that the control API provides itself.
SHIMMED = {"google-chrome", "google-chrome-stable", "chromium-browser", "python", "python3",
           "pkill", "killall"}


# Packages two metric modules import at the top but only one or two functions use (docs.py
# imports easyocr, which pulls torch; vlc.py imports librosa). When one is missing, a stand-in
# takes its place so the module's other metrics still run; a metric that uses it is skipped.
HEAVY = ("easyocr", "librosa")
# Those of them not installed here.
MISSING = []


class MissingPackage(BaseException):
    """A stand-in for a heavy package was used. A BaseException: OSWorld's compare_audios
    catches Exception around librosa and would score two unreadable files 1.0."""


class StandIn(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise MissingPackage(f"the Python package `{self.__name__}` is not installed "
                             "(uidriver tasks osworld-deps --heavy installs it)")


def stand_in_for_missing_heavy():
    """Puts a stand-in in sys.modules for each heavy package that is not installed."""
    import importlib.util
    missing = []
    for name in HEAVY:
        if importlib.util.find_spec(name) is None:
            sys.modules[name] = StandIn(name)
            missing.append(name)
    return missing


def names_used(code):
    """Every global name a function's code (with its nested functions) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= names_used(const)
    return names


class LazyPackage(types.ModuleType):
    """`desktop_env.evaluators.metrics` or `.getters`, importing each name's module on use."""

    def __init__(self, name, directory):
        super().__init__(name)
        self.__path__ = [directory]
        self.__file__ = os.path.join(directory, "__init__.py")
        self.__package__ = name
        self._where = {}
        self._failed = {}
        with open(self.__file__) as f:
            tree = ast.parse(f.read())
        rest = []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                for alias in node.names:
                    self._where[alias.asname or alias.name] = (node.module, alias.name)
            else:
                rest.append(node)
        # What the package defines itself (`def infeasible(): pass`), without its imports.
        exec(compile(ast.Module(body=rest, type_ignores=[]), self.__file__, "exec"), self.__dict__)

    def __getattr__(self, name):
        if name.startswith("__") or name not in self._where:
            raise AttributeError(f"{self.__name__} has no {name}")
        module, attr = self._where[name]
        value = getattr(importlib.import_module(f"{self.__name__}.{module}"), attr)
        setattr(self, name, value)
        return value

    def why_not(self, name):
        """None if `name` can be had, else why not (a missing package named)."""
        if name in self.__dict__:
            return None
        if name not in self._where:
            return "is not in this OSWorld checkout"
        module = self._where[name][0]
        if module not in self._failed:
            try:
                importlib.import_module(f"{self.__name__}.{module}")
                self._failed[module] = None
            except ImportError as e:
                missing = getattr(e, "name", None) or str(e)
                self._failed[module] = (f"needs the Python package `{missing}` "
                                        "(uidriver tasks osworld-deps --heavy installs it)")
            except Exception as e:  # a module that fails for another reason
                self._failed[module] = f"cannot be imported: {type(e).__name__}: {e}"
        if self._failed[module]:
            return self._failed[module]
        value = getattr(self, name)
        code = getattr(value, "__code__", None)
        for heavy in MISSING:
            if code is not None and heavy in names_used(code):
                return (f"needs the Python package `{heavy}` "
                        "(uidriver tasks osworld-deps --heavy installs it)")
        return None


def load_osworld(code):
    """Puts the checkout first on sys.path with lazy metrics and getters; returns them."""
    code = os.path.abspath(code)
    if not os.path.isdir(os.path.join(code, "desktop_env", "evaluators")):
        raise SystemExit(f"{code} has no desktop_env/evaluators: not an OSWorld checkout")
    sys.path.insert(0, code)
    MISSING.extend(stand_in_for_missing_heavy())
    import desktop_env.evaluators as evaluators
    lazy = {}
    for part in ("metrics", "getters"):
        name = f"desktop_env.evaluators.{part}"
        mod = LazyPackage(name, os.path.join(code, "desktop_env", "evaluators", part))
        sys.modules[name] = mod
        setattr(evaluators, part, mod)
        lazy[part] = mod
    return lazy["metrics"], lazy["getters"]


def as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def program_of(command):
    """The program a launch or execute command starts (after `VAR=value` words)."""
    words = command if isinstance(command, list) else str(command).split()
    for w in words:
        if "=" in w and not w.startswith(("/", "-")) and w.split("=")[0].isidentifier():
            continue
        return os.path.basename(w)
    return None


def why_not_runnable(task, metrics, getters, have_urls, internet):
    """None if the task can run here, else the first reason it cannot."""
    ev = task.get("evaluator")
    if not ev:
        return "no evaluator"
    steps = list(task.get("config", [])) + list(ev.get("postconfig", []))
    from desktop_env.controllers.setup import SetupController
    for step in steps:
        kind = step.get("type")
        if kind in UNSERVED_STEPS:
            return f"setup `{kind}` {UNSERVED_STEPS[kind]}"
        if not hasattr(SetupController, f"_{kind}_setup"):
            return f"setup `{kind}` is not a step of this OSWorld checkout"
        params = step.get("parameters", {})
        if kind == "launch":
            prog = program_of(params.get("command", []))
            if prog and prog not in SHIMMED and shutil.which(prog) is None:
                return f"launches `{prog}`, which is not installed here"
            if prog == "vlc" and os.geteuid() == 0:
                return "launches `vlc`, which refuses to run as root (run as a user, or in the image)"
        if kind == "download":
            for f in params.get("files", []):
                if f.get("url") not in have_urls:
                    return f"download {f.get('url')} is not in the cache (tasks osworld-cache fetch)"
        if kind == "chrome_open_tabs" and not internet:
            for url in params.get("urls_to_open", []):
                if not is_local(url):
                    return f"chrome_open_tabs opens {url}: {NO_INTERNET}"
        if kind == "update_browse_history" and HISTORY_DB not in have_urls:
            return f"download {HISTORY_DB} (update_browse_history's database) is not in the cache"
    for func in as_list(ev.get("func")):
        why = metrics.why_not(func)
        if why:
            return f"metric `{func}` {why}"
    for key in ("result", "expected"):
        for g in as_list(ev.get(key)):
            if not g:
                continue
            kind = g.get("type")
            if kind in UNSERVED_GETTERS:
                return f"getter `{kind}` {UNSERVED_GETTERS[kind]}"
            if kind in INTERNET_GETTERS and not internet:
                return f"getter `{kind}` reads a live website: {NO_INTERNET}"
            why = getters.why_not(f"get_{kind}")
            if why:
                return f"getter `{kind}` {why}"
            if kind == "cloud_file":
                for url in as_list(g.get("path")):
                    if url not in have_urls:
                        return f"download {url} is not in the cache (tasks osworld-cache fetch)"
    return None


def is_local(url):
    from urllib.parse import urlparse
    host = urlparse(url if "://" in url else "http://" + url).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1") or url.startswith(("file:", "about:", "chrome:", "data:"))


def cmd_check(args):
    metrics, getters = load_osworld(args.code)
    listing = json.load(open(args.tasks))
    have_urls = set(listing.get("cached", []))
    internet = reaches_internet()
    out = []
    for entry in listing["files"]:
        try:
            task = json.load(open(entry["path"]))
            reason = why_not_runnable(task, metrics, getters, have_urls, internet)
        except Exception as e:
            reason = f"cannot be read: {type(e).__name__}: {e}"
            task = {}
        func = task.get("evaluator", {}).get("func")
        out.append({"path": entry["path"], "reason": reason, "infeasible": func == "infeasible"})
    json.dump(out, ANSWER)


def fill_cache(task, cache_dir, cached):
    """Links uidriver's cached downloads where OSWorld's code looks for them."""
    os.makedirs(cache_dir, exist_ok=True)

    def link(path, name):
        dest = os.path.join(cache_dir, name)
        if path and not os.path.exists(dest):
            os.symlink(os.path.abspath(path), dest)

    ev = task.get("evaluator", {})
    for step in list(task.get("config", [])) + list(ev.get("postconfig", [])):
        if step.get("type") == "update_browse_history":
            link(cached.get(HISTORY_DB), "history_new.sqlite")
        if step.get("type") == "download":
            for f in step.get("parameters", {}).get("files", []):
                name = "{}_{}".format(uuid.uuid5(uuid.NAMESPACE_URL, f["url"]),
                                      os.path.basename(f["path"]))
                link(cached.get(f["url"]), name)
    for key in ("result", "expected"):
        for g in as_list(ev.get(key)):
            if g and g.get("type") == "cloud_file":
                for url, dest in zip(as_list(g.get("path")), as_list(g.get("dest"))):
                    link(cached.get(url), dest)


def controllers(env_spec):
    from desktop_env.controllers.python import PythonController
    from desktop_env.controllers.setup import SetupController
    ip, port = "127.0.0.1", env_spec["control_port"]
    controller = PythonController(vm_ip=ip, server_port=port)
    setup = SetupController(vm_ip=ip, server_port=port, chromium_port=env_spec["chrome_port"],
                            vlc_port=env_spec["vlc_port"], cache_dir=env_spec["cache_dir"],
                            client_password="password",
                            screen_width=env_spec["width"], screen_height=env_spec["height"])
    return controller, setup


def cmd_setup(args):
    load_osworld(args.code)
    task = json.load(open(args.task))
    spec = json.load(open(args.env))
    fill_cache(task, spec["cache_dir"], spec.get("cached", {}))
    _, setup = controllers(spec)
    try:
        setup.setup(task.get("config", []))
    except Exception as e:
        json.dump({"ok": False, "error": f"{type(e).__name__}: {e}"}, ANSWER)
        return 1
    json.dump({"ok": True}, ANSWER)
    return 0


def desktop_env_for(task, spec):
    """A `DesktopEnv` without a VM: OSWorld's class, its attributes pointed at the sandbox."""
    from desktop_env.desktop_env import DesktopEnv
    env = DesktopEnv.__new__(DesktopEnv)
    env.controller, env.setup_controller = controllers(spec)
    env.vm_ip = "127.0.0.1"
    env.server_port = spec["control_port"]
    env.chromium_port = spec["chrome_port"]
    env.vlc_port = spec["vlc_port"]
    env.vnc_port = 0
    env.os_type = "Ubuntu"
    env.screen_width, env.screen_height = spec["width"], spec["height"]
    env.client_password = "password"
    env.enable_proxy = False
    env.current_use_proxy = False
    env.is_environment_used = True
    env.cache_dir_base = os.path.dirname(spec["cache_dir"])
    env.cache_dir = spec["cache_dir"]
    env.task_id = task.get("id", "")
    env.instruction = task.get("instruction", "")
    env.config = task.get("config", [])
    env.action_history = [spec["last_action"]] if spec.get("last_action") else []
    env._set_evaluator_info(task)
    return env


def cmd_evaluate(args):
    load_osworld(args.code)
    task = json.load(open(args.task))
    spec = json.load(open(args.env))
    fill_cache(task, spec["cache_dir"], spec.get("cached", {}))
    try:
        env = desktop_env_for(task, spec)
        score = float(env.evaluate())
    except (Exception, MissingPackage) as e:
        logging.exception("evaluate")
        json.dump({"score": None, "error": f"{type(e).__name__}: {e}"}, ANSWER)
        return 1
    details = getattr(env, "last_eval_details", None)
    json.dump({"score": score, "details": details}, ANSWER, default=str)
    return 0


# Where the one answer goes: OSWorld's metrics print to stdout (exact_match prints what it
# compares), so everything else is sent to stderr.
ANSWER = sys.stdout
sys.stdout = sys.stderr


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("--code", required=True)
    c.add_argument("--tasks", required=True)
    for name in ("setup", "evaluate"):
        s = sub.add_parser(name)
        s.add_argument("--code", required=True)
        s.add_argument("--task", required=True)
        s.add_argument("--env", required=True)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # OSWorld's setup module reads a proxy file relative to the working directory.
    os.chdir(os.path.abspath(args.code))
    run = {"check": cmd_check, "setup": cmd_setup, "evaluate": cmd_evaluate}[args.command]
    sys.exit(run(args) or 0)


if __name__ == "__main__":
    main()
