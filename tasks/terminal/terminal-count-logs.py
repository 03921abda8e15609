"""Count the .log files by reading `ls` output in the terminal, then write the number."""
from uitask import run


async def solve(ui):
    # The marker is computed by the shell, so the echoed command line never matches it.
    text = await ui.run_in_terminal("ls -1 ~/logs; echo END-$((40+2))", wait_text="END-42")
    listing = text.split("END-$((40+2))", 1)[1].split("END-42", 1)[0]
    count = sum(1 for name in listing.split() if name.endswith(".log"))
    await ui.run_in_terminal(f"echo {count} > ~/answer.txt && cat ~/answer.txt")
    ui.done()


run(solve)
