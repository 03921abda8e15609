"""Starting an application as a person does on this desktop when nothing is open yet: the
window manager's menu (openbox: a right click on the empty desktop) > Applications > a category
> the application. The menu is drawn by openbox, not by an application, so it has no
accessibility tree: a screenshot (desktop_screenshot, OCR) shows that it opened, and the
keyboard walks it (desktop_input): in an openbox menu a letter selects the next entry starting
with it (and runs it when it is the only one), Right opens a submenu. OCR of the menus' small
text proved unreliable ("System" came out as "ys m"), the keys do not."""
import asyncio
import re

from uitask import NotFound


def _frame(shot):
    m = re.search(r"frame (f\d+)", shot.get("_text", ""))
    if not m:
        raise NotFound("desktop_screenshot gave no frame")
    return m.group(1)


async def _empty_spot(ui, shot):
    """A pixel of the frame where no window is (the desktop itself), in frame coordinates."""
    m = re.search(r"screen (\d+)x(\d+) shown as (\d+)x(\d+)", shot.get("_text", ""))
    sw, sh, iw, ih = map(int, m.groups()) if m else (1280, 800, 1280, 800)
    boxes = [r.get("bounds") or {} for r in (await ui.call("find_roots", {})).get("roots", [])]

    def free(x, y):
        return not any(b.get("x", 0) <= x < b.get("x", 0) + b.get("width", 0)
                       and b.get("y", 0) <= y < b.get("y", 0) + b.get("height", 0) for b in boxes)
    for fx, fy in [(0.1, 0.1), (0.4, 0.3), (0.9, 0.1), (0.1, 0.6), (0.9, 0.6), (0.5, 0.05)]:
        x, y = int(sw * fx), int(sh * fy)
        if free(x, y):
            return x * iw // sw, y * ih // sh
    raise NotFound("no free spot of the desktop to right-click")


async def launch_from_menu(ui, keys, app):
    """Right-clicks an empty spot of the desktop, checks that openbox's menu shows (its entries
    Exit, Restart, …), types `keys` (e.g. ["a", "s", "Right", "t"]: Applications,
    System, into it, Thunar File Manager) and returns `app`'s roots once its window shows."""
    for attempt in range(3):
        shot = await ui.call("desktop_screenshot", {"ocr": False})
        x, y = await _empty_spot(ui, shot)
        await ui.call("desktop_input", {"frameId": _frame(shot), "screenshot": False,
                                        "actions": [{"action": "click", "x": x, "y": y, "button": "right"}]})
        await asyncio.sleep(0.5)
        seen = await ui.call("desktop_screenshot", {"ocr": True})
        # The entry under the pointer is highlighted and reads badly: any of the others will do.
        if re.search(r'"(Exit|Restart|ObConf|Terminal emulator|Web browser)"', seen.get("_text", "")):
            break
        await ui.call("desktop_input", {"actions": [{"action": "keypress", "keys": "Escape"}], "screenshot": False})
    else:
        raise NotFound("the desktop menu did not open")
    await ui.call("desktop_input", {"screenshot": False,
                                    "actions": [{"action": "keypress", "keys": k} for k in keys]})
    return await ui.roots(app=app, kind="window", timeout=30)
