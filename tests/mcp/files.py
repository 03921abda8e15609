#!/usr/bin/env python3
"""File roots and private state of `uidriver mcp` (issue 27), with the official MCP Python SDK.

A page served by this script (a loopback HTTP server) posts any file put on its file input to
the server, which records it: that record, not uidriver's word, says what left. Checked, each
through MCP:
- a client that declares roots: an upload outside them is refused (`policy_denied` naming the
  rule) and the server records nothing; one inside is accepted and the server records its
  bytes; `..` and a symlink out of a root are refused; a `file://` page outside is refused and
  one inside is shown; `save_pdf`, `save_browser_state` and `launch_browser`'s storageState,
  profileDir and downloadsDir outside are refused and write nothing;
- the client changes its roots (roots/list_changed): the old root is refused, the new one used;
- a client without roots: the working directory of `uidriver mcp` is the root;
- `uidriver mcp --allow-unrestricted-file-access` lifts each rule; `uidriver call` keeps its
  working directory as its root;
- under umask 0000 (and 0022), the trace, ids, log, token and socket files are 0600 in 0700
  directories, `trace view` writes 0600, and wide ones found at start are tightened.

Usage: files.py PATH_TO_UIDRIVER (exit 0 on success). The caller isolates the daemon
(UIDRIVER_SOCKET, XDG_STATE_HOME, XDG_RUNTIME_DIR); this script stops it.
"""
import asyncio
import http.server
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading

from sdk_checks import Checks

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

PAGE = b"""<!doctype html><title>Upload check</title>
<p><label for="f">Attachment</label> <input id="f" type="file"></p><p id="out">no file</p>
<p><a href="/report.txt" download>Download report</a></p>
<script>
document.getElementById('f').addEventListener('change', async e => {
  const f = e.target.files[0];
  if (!f) return;
  await fetch('/upload', {method: 'POST', headers: {'X-Name': f.name}, body: f});
  document.getElementById('out').textContent = 'sent ' + f.name;
});
</script>"""


class Uploads(http.server.BaseHTTPRequestHandler):
    """Serves the page; records every upload's name and bytes."""
    received = []

    def do_GET(self):
        if self.path == "/report.txt":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Disposition", "attachment; filename=report.txt")
            self.end_headers()
            self.wfile.write(b"report bytes\n")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        Uploads.received.append((self.headers.get("X-Name"), self.rfile.read(n)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass


def error_of(r):
    return (r.structured_content or {}).get("error") or {}


def text_of(r):
    return r.content[0].text if r.content else ""


class Roots:
    """The roots this client lists; changing them notifies the server."""

    def __init__(self, dirs):
        self.dirs = dirs

    async def __call__(self, context):
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{d}") for d in self.dirs])


async def wait_received(n, timeout=10.0):
    for _ in range(int(timeout * 10)):
        if len(Uploads.received) >= n:
            return True
        await asyncio.sleep(0.1)
    return False


class Page:
    """The upload page in one MCP session."""

    def __init__(self, session, url, check):
        self.s, self.url, self.check = session, url, check
        self.root = None

    async def open(self):
        r = await self.s.call_tool("launch_browser", {"url": self.url, "headless": True})
        self.check(not r.is_error, f"launch_browser: {text_of(r)[:300]}")
        self.root = r.structured_content["roots"][0]["ref"]

    async def upload(self, path):
        r = await self.s.call_tool("observe_ui", {"root": self.root, "mode": "semantic"})
        sid = r.structured_content["stateId"]
        r = await self.s.call_tool("search_ui", {"stateId": sid, "text": "Attachment"})
        ref = r.structured_content["matches"][0]["ref"]
        return await self.s.call_tool("act_ui", {
            "stateId": sid, "actions": [{"action": "setFiles", "ref": ref, "paths": [path]}]})


def refused(check, r, what, path=None):
    e = error_of(r)
    check(r.is_error and e.get("code") == "policy_denied", f"{what} is refused: {text_of(r)[:300]}")
    check("file roots" in json.dumps(e.get("details", {})) or "[files]" in e.get("message", ""),
          f"{what}: the rule is named: {e}")
    check(e.get("delivery") in (None, "not_delivered"), f"{what}: nothing was sent: {e}")
    if path:
        check(not os.path.exists(path), f"{what}: nothing was written at {path}")


async def declared_roots(exe, base, url, check):
    """A client with roots: uploads, `..`, symlinks, file pages, written files, then new roots."""
    root, root2, out = (os.path.join(base, n) for n in ("root", "root2", "out"))
    for d in (root, root2, out):
        os.makedirs(d, exist_ok=True)
    inside, inside2, outside = (os.path.join(d, "doc.txt") for d in (root, root2, out))
    for p, body in ((inside, b"inside bytes\n"), (inside2, b"second root\n"), (outside, b"private\n")):
        with open(p, "wb") as f:
            f.write(body)
    os.symlink(outside, os.path.join(root, "link.txt"))
    with open(os.path.join(root, "page.html"), "w") as f:
        f.write("<title>Inside page</title><p>Text of a page inside the root</p>")
    with open(os.path.join(out, "page.html"), "w") as f:
        f.write("<title>Outside page</title><p>Private outside text</p>")

    roots = Roots([root])
    params = StdioServerParameters(command=exe, args=["mcp", "--no-trace"], env=dict(os.environ), cwd=out)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=roots) as s:
            await asyncio.wait_for(s.initialize(), 30)
            page = Page(s, url, check)
            await page.open()
            for path, what in ((outside, "an upload outside the roots"),
                               (os.path.join(root, "..", "out", "doc.txt"), "an upload through .."),
                               (os.path.join(root, "link.txt"), "an upload through a symlink out"),
                               ("/etc/hostname", "an upload of a system file")):
                refused(check, await page.upload(path), what)
            await asyncio.sleep(1.0)
            check(Uploads.received == [], f"the server received nothing: {Uploads.received}")
            r = await page.upload(inside)
            check(not r.is_error and r.structured_content.get("outcome") == "worked",
                  f"an upload inside the roots works: {text_of(r)[:400]}")
            check(await wait_received(1) and Uploads.received[-1][1] == b"inside bytes\n",
                  f"the server received the file inside: {Uploads.received}")
            # A download lands inside the roots: in downloads/ under the first.
            r = await s.call_tool("observe_ui", {"root": page.root, "mode": "semantic"})
            sid = r.structured_content["stateId"]
            r = await s.call_tool("search_ui", {"stateId": sid, "text": "Download report"})
            link = r.structured_content["matches"][0]["ref"]
            r = await s.call_tool("act_ui", {"stateId": sid, "actions": [{"action": "press", "ref": link}]})
            got = os.path.join(root, "downloads", "report.txt")
            for _ in range(50):
                if os.path.exists(got):
                    break
                await asyncio.sleep(0.1)
            check(os.path.exists(got) and open(got, "rb").read() == b"report bytes\n",
                  f"the download landed in downloads/ under the root: {text_of(r)[:400]}")

            r = await s.call_tool("navigate_browser", {"root": page.root, "url": f"file://{out}/page.html"})
            refused(check, r, "a file:// page outside the roots")
            r = await s.call_tool("navigate_browser", {"root": page.root, "url": f"file://{root}/page.html"})
            check(not r.is_error and "Text of a page inside the root" in text_of(r),
                  f"a file:// page inside the roots is shown: {text_of(r)[:300]}")

            for tool, args, path in (
                ("save_pdf", {"path": os.path.join(out, "x.pdf")}, os.path.join(out, "x.pdf")),
                ("save_pdf", {"path": os.path.join(root, "..", "out", "y.pdf")}, os.path.join(out, "y.pdf")),
                ("save_browser_state", {"path": os.path.join(out, "s.json")}, os.path.join(out, "s.json")),
            ):
                refused(check, await s.call_tool(tool, {"root": page.root, **args}), f"{tool} to {args['path']}", path)
            r = await s.call_tool("save_pdf", {"root": page.root, "path": os.path.join(root, "ok.pdf")})
            check(not r.is_error and os.path.getsize(os.path.join(root, "ok.pdf")) > 1000,
                  f"save_pdf inside the roots writes: {text_of(r)[:300]}")
            for key, value in (("storageState", outside), ("profileDir", os.path.join(out, "profile")),
                               ("downloadsDir", os.path.join(out, "dl"))):
                r = await s.call_tool("launch_browser", {"url": url, "headless": True, key: value})
                refused(check, r, f"launch_browser {key} outside", None if key == "storageState" else value)

            # New roots: the old one is refused, the new one used. The page shows a file of
            # the old root: once the roots change, what it shows is withheld.
            roots.dirs = [root2]
            await s.send_roots_list_changed()
            await asyncio.sleep(0.5)
            r = await s.call_tool("observe_ui", {"root": page.root})
            check(error_of(r).get("code") == "policy_denied" and "withheld" in text_of(r),
                  f"a file:// page outside the new roots is withheld: {text_of(r)[:300]}")
            r = await s.call_tool("navigate_browser", {"root": page.root, "url": url})
            check(not r.is_error, f"back to the upload page: {text_of(r)[:300]}")
            refused(check, await page.upload(inside), "an upload from the root the client took back")
            n = len(Uploads.received)
            r = await page.upload(inside2)
            check(not r.is_error, f"an upload from the new root works: {text_of(r)[:300]}")
            check(await wait_received(n + 1) and Uploads.received[-1][1] == b"second root\n",
                  f"the server received the new root's file: {Uploads.received[n:]}")
    return out, outside


async def no_roots_and_the_flag(exe, base, url, out, outside, check):
    """Without client roots the working directory is the root; the flag lifts every rule."""
    cwd = os.path.join(base, "cwd")
    os.makedirs(cwd, exist_ok=True)
    here = os.path.join(cwd, "here.txt")
    with open(here, "wb") as f:
        f.write(b"from the working directory\n")
    params = StdioServerParameters(command=exe, args=["mcp", "--no-trace"], env=dict(os.environ), cwd=cwd)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await asyncio.wait_for(s.initialize(), 30)
            page = Page(s, url, check)
            await page.open()
            refused(check, await page.upload(outside), "without client roots, a file outside the working directory")
            n = len(Uploads.received)
            r = await page.upload(here)
            check(not r.is_error and await wait_received(n + 1), f"a file in the working directory is sent: {text_of(r)[:300]}")

    params = StdioServerParameters(command=exe, args=["mcp", "--no-trace", "--allow-unrestricted-file-access"],
                                   env=dict(os.environ), cwd=cwd)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=Roots([cwd])) as s:
            await asyncio.wait_for(s.initialize(), 30)
            page = Page(s, url, check)
            await page.open()
            n = len(Uploads.received)
            r = await page.upload(outside)
            check(not r.is_error and await wait_received(n + 1) and Uploads.received[-1][1] == b"private\n",
                  f"the flag lets an upload outside through: {text_of(r)[:300]}")
            r = await s.call_tool("navigate_browser", {"root": page.root, "url": f"file://{out}/page.html"})
            check(not r.is_error and "Private outside text" in text_of(r), f"the flag opens file:// outside: {text_of(r)[:300]}")
            pdf = os.path.join(out, "flag.pdf")
            r = await s.call_tool("save_pdf", {"root": page.root, "path": pdf})
            check(not r.is_error and os.path.exists(pdf), f"the flag lets save_pdf write outside: {text_of(r)[:300]}")
            os.makedirs(os.path.join(out, "dl"), exist_ok=True)
            await s.call_tool("navigate_browser", {"root": page.root, "url": url})
            state = os.path.join(out, "flag-state.json")
            r = await s.call_tool("save_browser_state", {"root": page.root, "path": state})
            check(not r.is_error and os.path.exists(state), f"the flag lets save_browser_state write outside: {text_of(r)[:300]}")
            r = await s.call_tool("launch_browser", {"url": url, "headless": True, "storageState": state,
                                                     "downloadsDir": os.path.join(out, "dl")})
            check(not r.is_error,
                  f"the flag lets launch_browser read state and download outside: {text_of(r)[:300]}")

    # `uidriver call` keeps its own working directory as its root.
    def call(tool, args, cwd):
        p = subprocess.run([exe, "call", tool, json.dumps(args), "--json"], capture_output=True, text=True,
                           timeout=60, cwd=cwd)
        return p.returncode, json.loads(p.stdout or "{}")
    code, o = call("launch_browser", {"url": url, "headless": True}, cwd)
    page = o["roots"][0]["ref"]
    code, o = call("save_pdf", {"root": page, "path": os.path.join(out, "cli.pdf")}, cwd)
    check(code == 1 and o["error"]["code"] == "policy_denied" and not os.path.exists(os.path.join(out, "cli.pdf")),
          f"uidriver call refuses a path outside its working directory: {code} {o}")
    code, o = call("save_pdf", {"root": page, "path": os.path.join(cwd, "cli.pdf")}, cwd)
    check(code == 0 and os.path.exists(os.path.join(cwd, "cli.pdf")), f"uidriver call writes in its working directory: {code} {o}")


def modes_under(top):
    """(path, mode) of every directory and file under `top`."""
    found = []
    for d, dirs, files in os.walk(top):
        found.append((d, stat.S_IMODE(os.lstat(d).st_mode)))
        for f in files:
            p = os.path.join(d, f)
            found.append((p, stat.S_IMODE(os.lstat(p).st_mode)))
    return found


async def private_state(exe, base, check):
    """Traces, ids, logs, tokens and sockets are owner-only under umask 0000 and 0022."""
    for mask in (0o000, 0o022):
        home = os.path.join(base, f"umask-{mask:03o}")
        state, run = os.path.join(home, "state"), os.path.join(home, "run")
        os.makedirs(home)
        env = dict(os.environ, XDG_STATE_HOME=state, XDG_RUNTIME_DIR=run,
                   UIDRIVER_SOCKET=os.path.join(run, "uidriver", "d.sock"))
        old = os.umask(mask)
        try:
            params = StdioServerParameters(command=exe, args=["mcp"], env=env, cwd=home)
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as s:
                    await asyncio.wait_for(s.initialize(), 30)
                    await s.call_tool("find_roots", {})
                    await s.call_tool("act_ui", {"stateId": "s1", "actions": []})
            trace = subprocess.run([exe, "trace", "list", "--json"], env=env, capture_output=True, text=True)
            ids = [t["id"] for t in json.loads(trace.stdout or "[]")]
            check(bool(ids), f"umask {mask:03o}: a trace was recorded: {trace.stdout[:200]} {trace.stderr[:200]}")
            html = os.path.join(home, "view.html")
            if ids:
                subprocess.run([exe, "trace", "view", ids[0], "-o", html], env=env, capture_output=True)
                check(os.path.exists(html) and stat.S_IMODE(os.stat(html).st_mode) == 0o600,
                      f"umask {mask:03o}: trace view writes 0600")
            for top in (os.path.join(state, "uidriver"), os.path.join(run, "uidriver")):
                found = modes_under(top)
                check(len(found) > 1, f"umask {mask:03o}: files under {top}: {found}")
                for p, m in found:
                    want = 0o700 if os.path.isdir(p) else 0o600
                    check(m & 0o077 == 0, f"umask {mask:03o}: {p} is {m:o}, want {want:o}")
            # Wide files from before are tightened at the next start, with a warning.
            wide = os.path.join(state, "uidriver", "ids.json")
            os.chmod(wide, 0o644)
            os.chmod(os.path.join(state, "uidriver"), 0o755)
            p = subprocess.run([exe, "mcp", "--no-trace"], env=env, input="", capture_output=True, text=True,
                               timeout=60, cwd=home)
            check(stat.S_IMODE(os.stat(wide).st_mode) == 0o600, f"umask {mask:03o}: a wide ids.json is tightened")
            check("made owner-only" in p.stderr, f"umask {mask:03o}: a warning says so: {p.stderr[-400:]}")
        finally:
            os.umask(old)
            subprocess.run([exe, "daemon", "stop"], env=env, capture_output=True, timeout=30)


async def main(exe):
    check = Checks()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Uploads)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/upload.html"
    try:
        with tempfile.TemporaryDirectory() as base:
            out, outside = await declared_roots(exe, base, url, check)
            await no_roots_and_the_flag(exe, base, url, out, outside, check)
            await private_state(exe, base, check)
    finally:
        server.shutdown()
        subprocess.run([exe, "daemon", "stop"], capture_output=True, timeout=30)
    return check.exit_code("file roots", "file roots and private state: ok")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
