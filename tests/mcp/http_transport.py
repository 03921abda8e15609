#!/usr/bin/env python3
"""`uidriver mcp --http` driven by the official MCP Python SDK's Streamable HTTP client.

Checks: a non-loopback address is refused without --allow-remote, and --allow-remote without a
token the user gave is refused; the probes /healthz and /readyz answer without the token and
say one word; a remote server (0.0.0.0, --allow-remote, --token-file) serves this host's
non-loopback address with the file's token, and with --allow-host only that Host; requests without the bearer token, or with a wrong
one, get 401 and reach no tool; a present Origin that is not loopback gets 403 (with the token
too) unless allowed with --allow-origin, while a loopback, an allowed or no Origin is served;
with the token: initialize, tools/list equal to the stdio server's tool names, a bad call
answered with invalid_args, a 5.2 MB request answered invalid_args naming the limit and the
session going on, and a good call giving the same structured result as `uidriver call --json`.

Usage: http_transport.py PATH_TO_UIDRIVER   (exit 0 on success; prints what failed otherwise)
The caller isolates the daemon (UIDRIVER_SOCKET, XDG_STATE_HOME, XDG_RUNTIME_DIR); this script
stops the server and the daemon.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request

from sdk_checks import Checks, cli

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

TOKEN = "test-token-" + os.urandom(12).hex()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "origin-check", "version": "1"}}}
ALLOWED = "http://app.example:3000"


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def non_loopback_ip():
    """An address of this host that is not loopback (the one a default route would use)."""
    import socket
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()


def started(server):
    """The URL a starting server announces on stderr, or None."""
    m, lines = None, []
    while m is None and len(lines) < 50:
        line = server.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"(http://[0-9.]+:\d+/mcp)", line)
    threading.Thread(target=lambda: [sys.stderr.write(l) for l in server.stderr], daemon=True).start()
    return m.group(1) if m else None


def remote(exe, check, tmp):
    """--allow-remote: refused without a token the user gave; served on a non-loopback address
    with the token from a file; Host narrowed by --allow-host."""
    env = {k: v for k, v in os.environ.items() if k != "UIDRIVER_MCP_TOKEN"}
    bad = subprocess.run([exe, "mcp", "--http", "0.0.0.0:0", "--allow-remote"], env=env,
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "--token-file" in bad.stderr,
          f"remote without a given token refused: exit {bad.returncode}, {bad.stderr.strip()!r}")
    ip = non_loopback_ip()
    if ip is None:
        check(False, "this host has a non-loopback address to test --allow-remote on")
        return
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token_file, 0o600)
    for hosts in ([], ["uidriver.test"]):
        args = [exe, "mcp", "--http", "0.0.0.0:0", "--allow-remote", "--token-file", token_file]
        for h in hosts:
            args += ["--allow-host", h]
        server = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
        try:
            url = started(server)
            check(url is not None, f"remote server announces its URL ({hosts})")
            if url is None:
                continue
            port = url.rsplit(":", 1)[1].split("/")[0]
            there = f"http://{ip}:{port}/mcp"
            auth = {"Authorization": f"Bearer {TOKEN}"}
            check(post(there, {}) == 401, f"remote, no token: 401 ({hosts})")
            check(get(f"http://{ip}:{port}/healthz") == (200, "ok"), f"remote /healthz ({hosts})")
            code = post(there, auth, INITIALIZE)
            if hosts:
                check(code == 403, f"--allow-host: Host {ip} refused (403), got {code}")
                code = post(there, {**auth, "Host": f"uidriver.test:{port}"}, INITIALIZE)
                check(code == 200, f"--allow-host: Host uidriver.test served, got {code}")
            else:
                check(code == 200, f"remote at {ip} with the file's token: 200, got {code}")
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()


def post(url, headers, message=None):
    body = json.dumps(message or {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


async def main(exe):
    check = Checks()

    env = dict(os.environ, UIDRIVER_MCP_TOKEN=TOKEN)
    bad = subprocess.run([exe, "mcp", "--http", "0.0.0.0:0"], env=env,
                         capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "loopback" in bad.stderr,
          f"non-loopback refused: exit {bad.returncode}, {bad.stderr.strip()!r}")

    server = subprocess.Popen([exe, "mcp", "--http", "127.0.0.1:0", "--allow-origin", ALLOWED], env=env,
                              stderr=subprocess.PIPE, text=True)
    names = set()
    try:
        url = started(server)
        check(url is not None, "server announces its URL")
        if url is None:
            return 1
        base = url.rsplit("/mcp", 1)[0]
        check(get(base + "/healthz") == (200, "ok"), "liveness without a token: 200 ok")
        check(get(base + "/readyz") == (200, "ready"), "readiness without a token: 200 ready")
        check(post(base + "/healthz", {}) == 401, "a POST to a probe path is not a probe: 401")

        check(post(url, {}) == 401, "no token: 401")
        check(post(url, {"Authorization": "Bearer wrong-" + TOKEN[6:]}) == 401, "wrong token: 401")
        check(post(url.replace("/mcp", "/other"), {"Authorization": f"Bearer {TOKEN}"}) == 404,
              "other paths: 404")

        auth = {"Authorization": f"Bearer {TOKEN}"}
        loopback = url.rsplit("/mcp", 1)[0]
        for origin in ["http://evil.example", "http://localhost.evil.example", "null",
                       "http://app.example:3001"]:
            code = post(url, {**auth, "Origin": origin}, INITIALIZE)
            check(code == 403, f"foreign Origin {origin}: 403, got {code}")
        check(post(url, {"Origin": "http://evil.example"}) == 403, "foreign Origin without token: 403")
        for origin in [loopback, "http://localhost:9", ALLOWED, None]:
            headers = {**auth, **({"Origin": origin} if origin else {})}
            code = post(url, headers, INITIALIZE)
            check(code == 200, f"Origin {origin}: served (200), got {code}")

        http = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with http, streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await asyncio.wait_for(session.initialize(), 30)
                check(init.server_info.name == "uidriver", f"server name {init.server_info.name!r}")
                names = {t.name for t in (await session.list_tools()).tools}
                tools = subprocess.run([exe, "tools", "--json"], capture_output=True, text=True,
                                       timeout=30)
                expected = {t["name"] for t in json.loads(tools.stdout)}
                check(names == expected, f"same tools as the registry: {names ^ expected}")

                r = await session.call_tool("act_ui", {"stateId": "s1", "actions": []})
                check(r.is_error is True, "bad call sets isError")
                check((r.structured_content or {}).get("error", {}).get("code") == "invalid_args",
                      f"bad call code: {r.structured_content}")

                big = {"stateId": "s1", "actions": [
                    {"action": "typeText", "ref": "@e1", "text": "x" * 5_200_000}]}
                r = await session.call_tool("act_ui", big)
                err = (r.structured_content or {}).get("error", {})
                check(r.is_error is True and err.get("code") == "invalid_args",
                      f"5.2 MB request: invalid_args: {err}")
                check("request is 5.2 MB; the limit is 4 MB" in err.get("message", ""),
                      f"the limit is named: {err.get('message')!r}")

                r = await session.call_tool("find_roots", {})
                rc, cli_ok = cli(exe, "find_roots", {})
                strip = lambda v: {k: v[k] for k in v if k != "issues"}
                check(rc in (0, 1, 3), f"uidriver call find_roots exit {rc}")
                check(strip(cli_ok) == strip(r.structured_content or {}),
                      "HTTP and the CLI give the same find_roots result")
    finally:
        server.terminate()
        try:
            code = server.wait(timeout=15)
            check(code == 0, f"server exits 0 on SIGTERM: {code}")
        except subprocess.TimeoutExpired:
            server.kill()
            check(False, "server stops on SIGTERM")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        remote(exe, check, tmp)
    subprocess.run([exe, "daemon", "stop"], timeout=30)
    return check.exit_code("HTTP transport", f"MCP over HTTP ok: {len(names)} tools")


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
