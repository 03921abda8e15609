"""The scripted solutions' agent helper: talks to `uidriver mcp` over stdio with the official MCP
Python SDK, exactly as an agent would, and counts what the tools return to it (calls, characters
of text, images) into $UIDRIVER_TASK_STATS for the runner's report.

Solutions find elements by role, name and text (find_roots, observe_ui, search_ui); they never
use stored coordinates or indices. A solution is a coroutine `solve(ui)` passed to `run`:

    from uitask import run

    async def solve(ui):
        state = await ui.observe(app="mousepad")
        editor = await ui.find(state, role="text", capability="set-text")
        state = await ui.act(state, [{"action": "typeText", "ref": editor["ref"], "text": "hi"}])

    run(solve)

`ui.done()` / `ui.infeasible()` write the agent's verdict to $UIDRIVER_TASK_RESULT.
"""
import asyncio
import json
import os
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


class ToolError(Exception):
    """A tool answered with isError; `code` is the catalogued error code."""

    def __init__(self, tool, code, message):
        super().__init__(f"{tool}: {code}: {message}")
        self.code = code


class NotFound(Exception):
    """What a solution looked for is not on screen."""


class UI:
    def __init__(self, session):
        self.session = session
        self.calls = 0
        self.text_chars = 0
        self.images = 0
        self.task = {}

    # --- raw calls -------------------------------------------------------------------------
    async def call(self, tool, args=None, check=True):
        """One tool call; returns the structured content (raises ToolError on isError)."""
        self.calls += 1
        r = await asyncio.wait_for(self.session.call_tool(tool, args or {}), 150)
        text = ""
        for c in r.content:
            if c.type == "text":
                self.text_chars += len(c.text)
                text += c.text
            elif c.type == "image":
                self.images += 1
        sc = dict(r.structured_content or {})
        sc["_text"] = text
        log(f"{tool} {json.dumps(args)[:300]} -> {text[:600]!r}")
        transcript = os.environ.get("UITASK_TRANSCRIPTS")
        if transcript:  # every text in full, a file per task, to see what an agent reads
            name = os.environ.get("UIDRIVER_TASK_ID", "task").replace("/", "-")
            with open(os.path.join(transcript, name + ".txt"), "a") as f:
                f.write(f"=== {tool} {json.dumps(args)} ({len(text)} chars)\n{text}\n")
        if r.is_error and check:
            err = sc.get("error", {})
            raise ToolError(tool, err.get("code"), err.get("message", text))
        return sc

    # --- finding things ----------------------------------------------------------------------
    async def roots(self, timeout=15, **filters):
        """find_roots with filters, retried until at least one root matches."""
        deadline = time.monotonic() + timeout
        while True:
            r = await self.call("find_roots", filters)
            if r.get("roots"):
                return r["roots"]
            if time.monotonic() > deadline:
                raise NotFound(f"no root matches {filters}")
            await asyncio.sleep(0.5)

    async def root(self, timeout=15, **filters):
        """The best-ranked root matching the filters (app, text, kind, pid)."""
        return (await self.roots(timeout=timeout, **filters))[0]["ref"]

    async def observe(self, root=None, timeout=15, **filters):
        """A new state of a root (given, or the first one matching the filters)."""
        if root is None:
            root = await self.root(timeout=timeout, **filters)
        look = {"root": root, "mode": "semantic", "maxLines": 60}
        try:
            return await self.call("observe_ui", look)
        except ToolError as e:
            if e.code != "app_unresponsive":
                raise
            # As the error's hint says: a look with a longer budget waits for a busy app.
            return await self.call("observe_ui", {**look, "timeoutMs": 20000})

    async def search(self, state, **query):
        """search_ui in a state: a list of matches (ref, role, name, value, states)."""
        q = {"stateId": state["stateId"], **query}
        return (await self.call("search_ui", q)).get("matches", [])

    async def find(self, state, **query):
        """The best match of search_ui; raises NotFound when there is none."""
        m = await self.search(state, **query)
        if not m:
            raise NotFound(f"nothing matches {query} in {state['stateId']}")
        return m[0]

    async def find_named(self, state, name, exact=True, **query):
        """The first match whose name equals `name` (case-insensitive), or contains it."""
        # A name looked up with a role: OCR words are picture-only, never that role.
        for m in await self.search(state, text=name, limit=50, ocrFallback=False, **query):
            n = (m.get("name") or "").replace("_", "").strip().lower()
            if (n == name.lower()) if exact else (name.lower() in n):
                return m
        raise NotFound(f"no element named {name!r} with {query} in {state['stateId']}")

    async def field_after(self, state, label, roles=("text", "password-text", "spin-button")):
        """The ref of the first editable field after the label `label` in reading order (the
        outline), as a person reads a form whose fields have no names of their own."""
        for text in (state.get("_text", ""), None):
            if text is None:
                whole = await self.call("expand_ui", {"stateId": state["stateId"], "ref": "@e1", "maxLines": 2000})
                text = whole.get("_text", "")
            lines = text.splitlines()
            low = label.lower()
            # A label element whose text starts with the label wins over any line mentioning it
            # (a dialog called "Find and Replace" is not the label "Replace:").
            start = next((i for i, l in enumerate(lines)
                          if l.split()[1:2] == ["label"] and f'"{low}' in l.lower()), None)
            if start is None:
                start = next((i for i, l in enumerate(lines) if low in l.lower()), None)
            if start is None:
                continue
            for l in lines[start + 1:]:
                parts = l.split()
                if len(parts) >= 2 and parts[0].startswith("@e") and parts[1] in roles and "editable" in l:
                    return parts[0]
        raise NotFound(f"no editable field after {label!r} in {state['stateId']}")

    async def table_rows(self, state):
        """Every table row of a state as a list of its cells' texts, read from the outline as a
        person reads a table (header rows included)."""
        import re
        whole = await self.call("expand_ui", {"stateId": state["stateId"], "ref": "@e1", "maxLines": 2000})
        lines = whole.get("_text", "").splitlines()
        indent = lambda l: len(l) - len(l.lstrip())
        rows = []
        for i, l in enumerate(lines):
            if l.split()[1:2] != ["row"]:
                continue
            cells = []
            for m in lines[i + 1:]:
                if indent(m) <= indent(l):
                    break
                q = re.search(r'"(.*)"', m)
                cells.append(q.group(1) if q else "")
            rows.append(cells)
        return rows

    async def row_of(self, state, text):
        """The cells of the table row that shows `text`."""
        for cells in await self.table_rows(state):
            if text in cells:
                return cells
        raise NotFound(f"no table row shows {text!r}")

    # --- acting ----------------------------------------------------------------------------
    async def act(self, state, actions, expect=None, check=True):
        """act_ui from a state; returns the result (its successor is result['stateId'])."""
        args = {"stateId": state["stateId"], "actions": actions}
        if expect:
            args["expect"] = expect
        r = await self.call("act_ui", args)
        if check and r.get("outcome") == "didnt":
            raise ToolError("act_ui", "didnt", r.get("_text", "")[:500])
        return r

    async def keys(self, state, *chords):
        """Presses key chords (e.g. "ctrl+s") in the root of `state`."""
        return await self.act(state, [{"action": "keypress", "keys": list(chords)}])

    async def type_into(self, state, ref, text):
        return await self.act(state, [{"action": "typeText", "ref": ref, "text": text}])

    async def menu(self, root_filter, *path):
        """Opens a menu path by names, e.g. menu({"app": "mousepad"}, "Edit", "Preferences…").
        An opened menu shows either as a menu root of its own (GTK popups) or inside the
        window's own tree (LibreOffice): the next name is looked for in both."""
        roles = ["menu", "menu-item", "check-menu-item", "radio-menu-item"]
        state = await self.observe(**root_filter)
        window = state["root"]
        item = await self.find_named(state, path[0], role=roles)
        r = await self.act(state, [{"action": "press", "ref": item["ref"]}])
        for name in path[1:]:
            item, where = None, None
            for _ in range(10):
                menus = (await self.call("find_roots", {"kind": "menu"})).get("roots", [])
                for root in [m["ref"] for m in menus] + [window]:
                    st = await self.observe(root)
                    try:
                        item, where = await self.find_named(st, name, exact=False, role=roles), st
                        break
                    except NotFound:
                        continue
                if item:
                    break
                await asyncio.sleep(0.3)
            if not item:
                raise NotFound(f"menu item {name!r} did not show")
            r = await self.act(where, [{"action": "press", "ref": item["ref"]}])
        return r

    async def wait_for(self, timeout_ms=10000, **cond):
        return await self.call("wait_for", {"timeoutMs": timeout_ms, **cond})

    async def dialog(self, text=None, timeout=10, **filters):
        """A new state of the front dialog (optionally one whose title contains `text`)."""
        q = {"kind": "dialog", **filters}
        if text:
            q["text"] = text
        return await self.observe(await self.root(timeout=timeout, **q))

    async def open_dialog(self, state, chord, title, timeout=15):
        """Presses a key chord that opens a dialog (e.g. ctrl+h) and returns the dialog's state.
        A chord pressed while the window was still busy can be lost, as a person's would be:
        when no dialog showed within `timeout`, it is pressed once more."""
        await self.keys(state, chord)
        try:
            return await self.dialog(title, timeout=timeout)
        except NotFound:
            log(f"no {title!r} dialog after {chord}: pressing it again")
            await self.keys(await self.observe(state["root"]), chord)
            return await self.dialog(title, timeout=timeout)

    async def press_named(self, state, name, role="button", **kw):
        """Presses the element called `name` (a button by default)."""
        el = await self.find_named(state, name, role=role, **kw)
        return await self.act(state, [{"action": "press", "ref": el["ref"]}])

    async def save_dialog(self, filename, folder=None, title="Save"):
        """Fills a GTK Save As dialog: the file name (an absolute path works), then Save."""
        dlg = await self.dialog(title)
        name = await self.file_name_field(dlg)
        target = f"{folder}/{filename}" if folder else filename
        dlg = await self.act(dlg, [{"action": "setText", "ref": name, "text": target}])
        for label in ("Save", "Export"):
            try:
                await self.press_named(dlg, label)
                return
            except NotFound:
                continue
        raise NotFound("the save dialog has no Save or Export button")

    async def file_name_field(self, dlg):
        """The dialog's file name field: named "Name", else the only text field, else the
        focused one (GTK focuses it when the dialog opens), else the one after "Name"."""
        matches = await self.search(dlg, role="text", capability="set-text")
        for m in matches:
            if (m.get("name") or "").lower().startswith("name"):
                return m["ref"]
        if len(matches) == 1:
            return matches[0]["ref"]
        for m in matches:
            if "focused" in (m.get("states") or []):
                return m["ref"]
        return await self.field_after(dlg, "Name")

    async def run_in_terminal(self, command, app="xfce4-terminal", wait_text=None):
        """Types a command line into the terminal and waits until `wait_text` (default: a new
        prompt after the command) shows; returns the terminal's text."""
        state = await self.observe(app=app, kind="window")
        term = await self.find(state, role="terminal")
        before = await self.read_all(state, term["ref"])
        root = state["root"]
        if wait_text is None:
            # A marker the shell computes, so the echoed command line itself never matches.
            n = int(time.time()) % 10000
            command += f"; echo DONE-$(({n}+1))"
            wait_text = f"DONE-{n + 1}"
        await self.act(state, [{"action": "typeText", "ref": term["ref"], "text": command + "\n"}])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            state = await self.observe(root)
            term = await self.find(state, role="terminal")
            text = await self.read_all(state, term["ref"])
            new = text.rstrip()[len(before.rstrip()):] if text.startswith(before.rstrip()) else text
            if wait_text in new:
                return text
            await asyncio.sleep(0.3)
        raise NotFound(f"the terminal did not finish {command!r}")

    async def read_all(self, state, ref):
        """Every character of an element's text (read_text, paged)."""
        out, offset = "", 0
        while True:
            r = await self.call("read_text", {"stateId": state["stateId"], "ref": ref, "offset": offset, "length": 20000})
            chunk = r.get("text") or ""
            out += chunk
            total = r.get("total") or r.get("length") or 0
            offset += len(chunk)
            if not chunk or offset >= total:
                return out

    async def thunar_file(self, name):
        """Thunar's window state and the element showing file `name`. Thunar's icon view shows
        no items to accessibility, so when the name is not found the view is switched to the
        detailed list (View > Detailed List, ctrl+2), as a person would when the view is
        unreadable."""
        state = await self.observe(app="thunar", kind="window")
        for attempt in range(2):
            found = [m for m in await self.search(state, text=name, ocrFallback=False, limit=50)
                     if (m.get("name") or "") == name]
            if found:
                return state, found[0]
            if attempt == 0:
                await self.keys(state, "ctrl+2")
                state = await self.observe(state["root"])
        raise NotFound(f"Thunar shows no file {name!r}")

    async def open_page(self, url):
        """Starts Chromium on `url` (launch_browser) and returns the page's first state."""
        r = await self.call("launch_browser", {"url": url})
        pages = r.get("pages") or r.get("roots") or []
        if not pages:
            raise NotFound(f"launch_browser opened no page for {url}")
        return await self.observe(pages[0]["ref"])

    def url_in_instruction(self):
        """The first http(s) URL of the instruction (what the agent was told to open)."""
        import re
        text = self.task.get("instruction") or os.environ.get("UIDRIVER_TASK_INSTRUCTION", "")
        m = re.search(r"https?://[^\s\"']+[^\s\"'.,;:)]", text)
        if not m:
            raise NotFound("the instruction names no URL")
        return m.group(0)

    async def field(self, state, name, role=("text", "password-text", "spin-button", "combo-box")):
        """A form control by its accessible name (its label)."""
        return (await self.find_named(state, name, role=list(role)))["ref"]

    async def mousepad_preferences(self):
        """Opens Edit > Preferences… in Mousepad and returns the dialog's state."""
        main = await self.observe(app="mousepad", kind="window")
        item = await self.find_named(main, "Preferences", exact=False, role="menu-item", includeHidden=True)
        await self.act(main, [{"action": "press", "ref": item["ref"]}])
        return await self.dialog("Preferences")

    async def terminal_preferences(self):
        """Opens Edit > Preferences… in xfce4-terminal and returns the dialog's state."""
        main = await self.observe(app="xfce4-terminal", kind="window")
        item = await self.find_named(main, "Preferences", exact=False, role=["menu-item", "button"], includeHidden=True)
        await self.act(main, [{"action": "press", "ref": item["ref"]}])
        return await self.dialog("Terminal Preferences")

    # --- LibreOffice ------------------------------------------------------------------------
    async def office(self, title):
        """A new state of the LibreOffice window whose title contains `title`."""
        return await self.observe(app="soffice", kind="window", text=title)

    async def focused(self, state, role="text"):
        """The focused element of a role in a state (where a key press just moved the focus)."""
        for m in await self.search(state, role=role, limit=50):
            if "focused" in (m.get("states") or []):
                return m
        raise NotFound(f"no focused {role} in {state['stateId']}")

    async def calc_select(self, title, cells):
        """Selects a cell or range in Calc through the Name Box (ctrl+shift+F5 focuses it)."""
        state = await self.office(title)
        state = await self.keys(state, "ctrl+shift+F5")
        box = await self.focused(state)
        await self.act(state, [{"action": "setText", "ref": box["ref"], "text": cells},
                               {"action": "keypress", "keys": ["Return"]}])
        return await self.office(title)

    async def calc_enter(self, title, cells, text, fill=False):
        """Types `text` into a cell (or, with fill, into every cell of a range: alt+Enter)."""
        state = await self.calc_select(title, cells)
        sheet = await self.focused(state, role="table")
        # Typing into the grid has no text element to read back: the outcome is "unknown"
        # and the batch would stop there, so Enter goes in its own call.
        await self.act(state, [{"action": "typeText", "ref": sheet["ref"], "text": text}])
        state = await self.office(title)
        return await self.keys(state, "alt+Return" if fill else "Return")

    async def impress_set_title(self, title, new_text):
        """Replaces the title text of the slide shown in Impress: select the title shape, enter
        text editing (F2) when its paragraph is not exposed yet, set the paragraph's text."""
        state = await self.office(title)
        doc = await self.find(state, role="document", text="Presentation")
        shape = next((m for m in await self.search(state, role="pane", scopeRef=doc["ref"], limit=20)
                      if (m.get("name") or "").startswith(("Title", "PresentationTitle"))), None)
        if shape is None:
            raise NotFound("the slide has no title shape")
        await self.act(state, [{"action": "click", "ref": shape["ref"]}])
        for attempt in range(2):
            state = await self.office(title)
            paras = await self.search(state, role="paragraph", scopeRef=shape["ref"])
            if paras:
                await self.act(state, [{"action": "setText", "ref": paras[0]["ref"], "text": new_text}])
                state = await self.office(title)
                return await self.keys(state, "Escape")
            await self.keys(state, "F2")
        raise NotFound("the title shape exposes no editable paragraph")

    async def office_export_pdf(self, title, filename):
        """File > Export As > Export as PDF…, Export in PDF Options, the file name, Export."""
        await self.menu({"app": "soffice", "kind": "window", "text": title}, "File", "Export As", "Export as PDF")
        options = await self.dialog("PDF Options", timeout=15)
        await self.press_named(options, "Export")
        await self.save_dialog(filename, title="Export")
        await asyncio.sleep(2)  # LibreOffice writes the PDF after the dialog closes

    async def office_save(self, title):
        """ctrl+s; keeps the document's own format when LibreOffice asks (Keep format dialog)."""
        state = await self.office(title)
        await self.keys(state, "ctrl+s")
        try:
            dlg = await self.dialog(timeout=4)
            for m in await self.search(dlg, role="button", limit=20):
                name = m.get("name") or ""
                if name.startswith("Use ") and "ODF" not in name:
                    await self.act(dlg, [{"action": "press", "ref": m["ref"]}])
                    break
        except NotFound:
            pass
        await asyncio.sleep(1.5)  # LibreOffice writes the file after the dialog closes

    # --- verdicts --------------------------------------------------------------------------
    def done(self):
        verdict("done")

    def infeasible(self):
        verdict("infeasible")


def log(msg):
    print(f"[uitask {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def verdict(v):
    path = os.environ.get("UIDRIVER_TASK_RESULT")
    if path:
        with open(path, "w") as f:
            f.write(v + "\n")


def write_stats(ui):
    path = os.environ.get("UIDRIVER_TASK_STATS")
    if path:
        with open(path, "w") as f:
            json.dump({"toolCalls": ui.calls, "textChars": ui.text_chars, "images": ui.images}, f)


async def _main(solve):
    exe = os.environ.get("UIDRIVER_EXE", "uidriver")
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), 30)
            ui = UI(session)
            try:
                if not sys.stdin.isatty():
                    raw = sys.stdin.read()
                    ui.task = json.loads(raw) if raw.strip() else {}
            except (ValueError, OSError):
                ui.task = {}
            try:
                await solve(ui)
            finally:
                write_stats(ui)


def _leaf(e):
    """The innermost exception of (nested) exception groups."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def run(solve):
    """Runs a solution coroutine against `uidriver mcp`; on failure prints the traceback and,
    last, one line saying why (the runner's report quotes that line), and exits 1."""
    import traceback
    try:
        asyncio.run(_main(solve))
    except BaseException as e:  # noqa: BLE001 - a solution's failure of any kind ends it
        leaf = _leaf(e)
        if isinstance(leaf, SystemExit) and leaf.code in (0, None):
            return
        traceback.print_exception(e)
        log(f"failed: {type(leaf).__name__}: {leaf}")
        sys.exit(1)
