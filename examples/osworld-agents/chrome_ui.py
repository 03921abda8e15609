"""What the Chrome solutions share: the browser window OSWorld's setup opened (found on the
desktop, as a person finds it), going to a settings page by typing its address, and quitting the
browser so that it writes its Preferences file (Chrome keeps settings in memory and writes them
some seconds later, or when it exits)."""
import asyncio

from uitask import NotFound


async def window(ui):
    """A new state of the Chromium window (the focused one first)."""
    return await ui.observe(app="chromium", kind="window", timeout=30)


async def goto(ui, url, wait_text=None):
    """Types `url` into the address bar and presses Return; returns the window's state once
    the page shows (`wait_text` on it, when given)."""
    state = await window(ui)
    bar = await ui.find_named(state, "Address and search bar", role="text")
    # The omnibox completes what is typed inline from history (chrome://settings/search reads
    # back as chrome://settings/searchEngines), so the read-back may differ: Delete drops the
    # completion before Return, as a person does.
    # act_ui answers such a step as an error ("didnt"), hence check=False on the raw call.
    r = await ui.call("act_ui", {"stateId": state["stateId"],
                                 "actions": [{"action": "setText", "ref": bar["ref"], "text": url}]}, check=False)
    await ui.act(r, [{"action": "keypress", "keys": ["Delete"]}, {"action": "keypress", "keys": ["Return"]}])
    if wait_text:
        await ui.wait_for(root=state["root"], text=wait_text, timeout_ms=15000)
    await asyncio.sleep(0.5)
    return await ui.observe(state["root"])


async def quit_browser(ui):
    """Closes every Chromium window (close_root, as a person clicks the window's X) and waits
    until none is left: the browser then exits and writes its settings to disk."""
    for _ in range(20):
        roots = (await ui.call("find_roots", {"app": "chromium", "kind": "window"})).get("roots", [])
        if not roots:
            break
        for r in roots:
            await ui.call("close_root", {"root": r["ref"]}, check=False)
        await asyncio.sleep(1)
    else:
        raise NotFound("Chromium's windows did not close")
    await asyncio.sleep(3)  # the browser process writes Preferences while it exits
