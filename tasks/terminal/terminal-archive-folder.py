"""tar -czf in the terminal."""
from uitask import run


async def solve(ui):
    await ui.run_in_terminal("cd ~ && tar czf photos.tar.gz photos && echo PACKED-$((1+1))", wait_text="PACKED-2")
    ui.done()


run(solve)
