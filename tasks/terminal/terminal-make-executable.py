"""chmod +x a script and run it, in the terminal."""
from uitask import run


async def solve(ui):
    await ui.run_in_terminal("chmod +x ~/bin/hello.sh && ~/bin/hello.sh && echo RAN-$((1+1))", wait_text="RAN-2")
    ui.done()


run(solve)
