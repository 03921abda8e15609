"""The contact form has no file input: refuse."""
from uitask import run


async def solve(ui):
    page = await ui.open_page(ui.url_in_instruction())
    controls = await ui.search(page, text="attach", ocrFallback=False) + await ui.search(page, text="file", ocrFallback=False)
    if any(c.get("role") == "button" and "file" in (c.get("name") or "").lower() for c in controls):
        raise SystemExit("the form has a file control after all")
    ui.infeasible()


run(solve)
