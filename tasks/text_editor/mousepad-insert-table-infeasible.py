"""Look for a table feature in Mousepad's menus; there is none, so refuse."""
from uitask import run


async def solve(ui):
    state = await ui.observe(app="mousepad", kind="window")
    hits = await ui.search(state, text="Table", role=["menu-item", "menu"], includeHidden=True, ocrFallback=False)
    if any("table" in (h.get("name") or "").lower() for h in hits):
        raise SystemExit("Mousepad offers tables after all: this task's premise is wrong")
    ui.infeasible()


run(solve)
