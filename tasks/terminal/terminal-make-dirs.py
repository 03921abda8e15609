"""Create two folders with one command line in xfce4-terminal."""
from uitask import run


async def solve(ui):
    await ui.run_in_terminal("mkdir -p ~/projects/alpha ~/projects/beta && ls ~/projects", wait_text="beta")
    ui.done()


run(solve)
