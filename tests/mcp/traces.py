#!/usr/bin/env python3
"""Session traces (issue 15 item 4) with the official MCP Python SDK, in an isolated desktop
with mousepad open (crates/uidriver/tests/mcp_sdk.rs runs it as
`uidriver sandbox --app mousepad -- python3 tests/mcp/traces.py UIDRIVER`).

Two MCP sessions are recorded under $XDG_STATE_HOME/uidriver/traces (the caller isolates it):
the first types "hello-trace " into mousepad with --trace-screenshots; the second, under a
policy whose [secrets] names a value, types that value. Then:
- `uidriver trace list --json` lists both, with the client's name, start time and call counts;
- no byte of any trace file (JSONL or PNG) holds the secret, while the first trace holds the
  text it typed (so the check can fail);
- `uidriver trace view` writes one HTML file that Chromium, headless, renders to a screenshot
  that is not blank and shows the timeline's green chips;
- `uidriver trace replay` of the first trace types the text again, found by role, name and path
  on a fresh observation: no divergence, and mousepad's text, read by a new observation, holds
  it twice; a replay of the second stops at its act (the value was redacted), exit 1;
- a session of `uidriver mcp --no-trace` leaves no trace.
Exit 0 on success; prints what failed otherwise. This script stops the daemon it started.
"""
import asyncio
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

from sdk_checks import Checks

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation

SECRET = "s3cr3t-trace-value"
TYPED = "hello-trace "
CHROMIUM = "/usr/lib/chromium/chromium"


def traces_dir():
    return os.path.join(os.environ["XDG_STATE_HOME"], "uidriver", "traces")


async def editor(session):
    """mousepad's state and its text view (search match) in a fresh observation."""
    r = await session.call_tool("observe_ui", {"app": "mousepad", "mode": "semantic"})
    state = (r.structured_content or {}).get("stateId")
    r = await session.call_tool("search_ui", {"stateId": state, "role": "text", "capability": "type-text"})
    matches = (r.structured_content or {}).get("matches") or []
    return state, (matches[0] if matches else None)


async def session_run(exe, args, body):
    params = StdioServerParameters(command=exe, args=["mcp", *args], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        info = Implementation(name="trace-test", version="1.0")
        async with ClientSession(read, write, client_info=info) as session:
            await asyncio.wait_for(session.initialize(), 30)
            await asyncio.wait_for(body(session), 90)


async def type_into_mousepad(session, text, check):
    state, view = await editor(session)
    check(view is not None, f"mousepad's text view is found in {state}")
    if view is None:
        return
    r = await session.call_tool("act_ui", {"stateId": state, "actions": [
        {"action": "typeText", "ref": view["ref"], "text": text}]})
    st = r.structured_content or {}
    check(st.get("outcome") == "worked", f"typing works: {r.content[0].text[:300]}")


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def png_pixels(path):
    """Width, height and RGB(A) rows of an 8-bit PNG (colour types 2 and 6), decoded here."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w, h, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} type {ctype}"
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_rendering(html, check):
    """Chromium renders the HTML; the screenshot is not blank and shows a green chip."""
    shot = html + ".png"
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--window-size=1200,900", f"--screenshot={shot}", "file://" + html],
                       capture_output=True, text=True, timeout=90)
    check(os.path.exists(shot), f"chromium wrote a screenshot: {p.returncode} {p.stderr[-400:]}")
    if not os.path.exists(shot):
        return
    w, h, bpp, rows = png_pixels(shot)
    counts = {}
    for row in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    top = max(counts.values())
    check(top / total < 0.9, f"the page is not blank: {top}/{total} pixels share one colour")
    green = sum(n for (r, g, b), n in ((tuple(k), v) for k, v in counts.items())
                if abs(r - 0x2e) < 12 and abs(g - 0x7d) < 12 and abs(b - 0x32) < 12)
    check(green > 20, f"the timeline's green chips are drawn: {green} sampled pixels")


async def main(exe):
    check = Checks()
    work = tempfile.mkdtemp(prefix="uidriver-traces-")
    policy = os.path.join(work, "policy.toml")
    with open(policy, "w") as f:
        f.write(f'[secrets]\nvalues = ["{SECRET}"]\n')

    await session_run(exe, ["--trace-screenshots"],
                      lambda s: type_into_mousepad(s, TYPED, check))
    await session_run(exe, ["--policy", policy],
                      lambda s: type_into_mousepad(s, f"token {SECRET} ", check))

    code, out, err = run(exe, "trace", "list", "--json")
    traces = json.loads(out or "[]")
    check(code == 0 and len(traces) == 2, f"trace list shows two traces: {code} {out[:500]} {err[:300]}")
    if len(traces) != 2:
        subprocess.run([exe, "daemon", "stop"], timeout=30)
        return check.exit_code("trace", "")
    first, second = traces
    for t in traces:
        check(t["client"] == "trace-test" and t["transport"] == "stdio", f"client and transport: {t}")
        check(t["calls"] == 3 and t["acts"] == 1, f"observe, search and act recorded: {t}")
        check(t["started"].endswith("Z") and t["id"], f"an id and a start time: {t}")
    code, text, _ = run(exe, "trace", "list")
    check(code == 0 and first["id"] in text and "trace-test" in text, f"the text list: {text}")

    files = glob.glob(os.path.join(traces_dir(), "**", "*"), recursive=True)
    blobs = {f: open(f, "rb").read() for f in files if os.path.isfile(f)}
    check(any(f.endswith(".png") for f in blobs), f"screenshots are kept beside the trace: {list(blobs)}")
    leaks = [f for f, b in blobs.items() if SECRET.encode() in b]
    check(not leaks, f"the secret never reaches a trace file: {leaks}")
    first_file = os.path.join(first["path"], "trace.jsonl")
    check(TYPED.strip().encode() in blobs.get(first_file, b""), "the first trace holds what it typed")
    second_text = blobs.get(os.path.join(second["path"], "trace.jsonl"), b"").decode()
    check("••••" in second_text, "the second trace shows the secret redacted")

    html = os.path.join(work, "trace.html")
    code, out, err = run(exe, "trace", "view", first["id"], "-o", html)
    check(code == 0 and os.path.exists(html), f"trace view writes HTML: {code} {out} {err}")
    if os.path.exists(html):
        page = open(html).read()
        check("data:image/png;base64," in page and "act_ui" in page and "<script" not in page,
              "one self-contained page with the act and its screenshots inline")
        check_rendering(html, check)

    code, out, err = run(exe, "trace", "replay", first["id"], "--json")
    report = json.loads(out or "{}")
    check(code == 0 and report.get("divergence") is None and report.get("matched") == 1,
          f"the first trace replays without divergence: {code} {out[:600]} {err[:300]}")

    async def typed_twice(session):
        _, view = await editor(session)
        value = (view or {}).get("value") or ""
        check(value.count(TYPED.strip()) == 2, f"mousepad holds the text twice after the replay: {value!r}")
    await session_run(exe, ["--no-trace"], typed_twice)

    code, out, err = run(exe, "trace", "replay", second["id"], "--json")
    report = json.loads(out or "{}")
    div = report.get("divergence") or {}
    check(code == 1 and "redacted" in div.get("reason", ""),
          f"a replay of the redacted act stops there: {code} {out[:600]}")

    code, out, _ = run(exe, "trace", "list", "--json")
    check(len(json.loads(out or "[]")) == 2, "the --no-trace session left no trace")
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("trace", "traces listed, viewed in Chromium, replayed; no secret recorded")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
