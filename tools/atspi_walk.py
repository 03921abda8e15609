#!/usr/bin/python3
"""atspi_walk.py: walk AT-SPI2 application trees with libatspi and print JSON.

Why: a reference measurement (node counts, object paths, walk times) to compare uidriver's own
AT-SPI client against. Runs on the *system* python (/usr/bin/python3): python3-gi and
gir1.2-atspi-2.0 are Debian packages a pyenv/venv interpreter does not see.

    eval "$(uidriver sandbox env)"      # or: . STATE_DIR/env   (DISPLAY, AT_SPI_BUS_ADDRESS, ...)
    /usr/bin/python3 tools/atspi_walk.py --pid 1234 --repeat 5 --getitems

Apps are selected by --pid (the app's pid, an ancestor or its session leader: forking launchers work)
and/or --app (case-insensitive substring of the app name); with neither, every app is walked.
Output: {"a11y_bus": ..., "apps": [{"name", "pid", "bus", "nodes", "showing", "ms", "ms_all",
"errors", "truncated", "paths", "showing_paths"[, "getitems"]}]}. Node identity is the object
path (acc.path); a node reached twice is counted once. Walks stop at --max-nodes (50000).
"""
import argparse
import json
import os
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, Gio, GLib  # noqa: E402

NULL_PATH = "/org/a11y/atspi/null"


def a11y_address():
    """AT_SPI_BUS_ADDRESS, else org.a11y.Bus.GetAddress (only if the launcher owns the name:
    asking an unowned org.a11y.Bus would auto-activate a second launcher)."""
    addr = os.environ.get("AT_SPI_BUS_ADDRESS")
    if addr:
        return addr
    session = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    (owned,) = session.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "NameHasOwner",
                                 GLib.Variant("(s)", ("org.a11y.Bus",)), None,
                                 Gio.DBusCallFlags.NONE, 5000, None).unpack()
    if not owned:
        sys.exit("atspi_walk: no AT_SPI_BUS_ADDRESS and org.a11y.Bus has no owner")
    (addr,) = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress",
                                None, None, Gio.DBusCallFlags.NONE, 5000, None).unpack()
    os.environ["AT_SPI_BUS_ADDRESS"] = addr  # libatspi reads it in Atspi.init()
    return addr


def stat_fields(pid):
    """(ppid, session id) of pid from /proc, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[1]), int(rest[3])
    except (OSError, ValueError, IndexError):
        return None


def related(sel, pid):
    """True if app pid `pid` is `sel`, a descendant of it, or in the session `sel` leads (a
    launcher started with setsid that forked the app and exited)."""
    st = stat_fields(pid)
    if st is not None and st[1] == sel:
        return True
    for _ in range(1024):
        if pid == sel:
            return True
        st = stat_fields(pid)
        if st is None or st[0] in (0, pid):
            return False
        pid = st[0]
    return False


def walk(app, max_nodes):
    """Iterative pre-order walk; returns (paths, showing_paths, errors, truncated)."""
    paths, showing, seen = [], [], set()
    errors, truncated = 0, False
    stack = [app]
    while stack:
        acc = stack.pop()
        path = acc.path
        if path in seen or path == NULL_PATH:
            continue
        if len(paths) >= max_nodes:
            truncated = True
            break
        seen.add(path)
        paths.append(path)
        try:
            if acc.get_state_set().contains(Atspi.StateType.SHOWING):
                showing.append(path)
            n = acc.get_child_count()
        except GLib.Error:
            errors += 1
            continue
        kids = []
        for i in range(n):
            try:
                child = acc.get_child_at_index(i)
            except GLib.Error:
                errors += 1
                continue
            if child is not None:
                kids.append(child)
        stack.extend(reversed(kids))
    return paths, showing, errors, truncated


def get_items(conn, bus):
    """Times one org.a11y.atspi.Cache.GetItems call on the app's connection."""
    t = time.monotonic()
    try:
        (items,) = conn.call_sync(bus, "/org/a11y/atspi/cache", "org.a11y.atspi.Cache",
                                  "GetItems", None, None, Gio.DBusCallFlags.NONE, 30000,
                                  None).unpack()
    except GLib.Error as e:
        return {"ok": False, "error": e.message, "ms": round((time.monotonic() - t) * 1000, 3)}
    return {"ok": True, "items": len(items), "ms": round((time.monotonic() - t) * 1000, 3)}


def select_apps(desktop, pids, names):
    out = []
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is None:
            continue
        try:
            name, pid = app.get_name() or "", app.get_process_id()
        except GLib.Error:
            continue
        by_pid = any(related(p, pid) for p in pids)
        by_name = any(n.lower() in name.lower() for n in names)
        if (not pids and not names) or by_pid or by_name:
            out.append((app, name, pid))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pid", type=int, action="append", default=[], help="app pid (repeatable)")
    ap.add_argument("--app", action="append", default=[], help="app name substring (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="walk K times, report every time")
    ap.add_argument("--clear-cache", action="store_true",
                    help="drop libatspi's cache of the app before every walk (cold walks)")
    ap.add_argument("--getitems", action="store_true", help="also time Cache.GetItems")
    ap.add_argument("--max-nodes", type=int, default=50000)
    ap.add_argument("--wait", type=float, default=0.0,
                    help="wait up to S seconds until every --pid/--app selector matches an app")
    ap.add_argument("--no-paths", action="store_true", help="omit the path lists")
    args = ap.parse_args()

    addr = a11y_address()
    Atspi.init()
    desktop = Atspi.get_desktop(0)
    deadline = time.monotonic() + args.wait
    while True:
        apps = select_apps(desktop, args.pid, args.app)
        matched = (all(any(related(p, a[2]) for a in apps) for p in args.pid)
                   and all(any(n.lower() in a[1].lower() for a in apps) for n in args.app))
        if matched or time.monotonic() >= deadline:
            break
        time.sleep(0.1)

    conn = None
    if args.getitems:
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
                 | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        conn = Gio.DBusConnection.new_for_address_sync(addr, flags, None, None)

    report = {"a11y_bus": addr, "apps": []}
    for app, name, pid in apps:
        bus = app.app.bus_name if app.app is not None else None
        times, result = [], None
        for _ in range(max(1, args.repeat)):
            if args.clear_cache:
                app.clear_cache()
            t = time.monotonic()
            result = walk(app, args.max_nodes)
            times.append(round((time.monotonic() - t) * 1000, 3))
        paths, showing, errors, truncated = result
        entry = {"name": name, "pid": pid, "bus": bus, "nodes": len(paths),
                 "showing": len(showing), "ms": times[0], "ms_all": times,
                 "errors": errors, "truncated": truncated}
        if not args.no_paths:
            entry["paths"] = paths
            entry["showing_paths"] = showing
        if conn is not None and bus:
            entry["getitems"] = get_items(conn, bus)
        report["apps"].append(entry)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    if (args.pid or args.app) and not report["apps"]:
        print("atspi_walk: no matching application", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
