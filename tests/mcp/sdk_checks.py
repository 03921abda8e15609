"""What the MCP SDK scripts share: the CLI call to compare with, and a failure list."""
import json
import subprocess
import sys


def cli(exe, tool, args):
    """`uidriver call TOOL ARGS --json`: exit code and structured result."""
    p = subprocess.run([exe, "call", tool, json.dumps(args), "--json"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, json.loads(p.stdout)


class Checks:
    """Collects failed checks (printed as they happen) so one run reports them all."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("FAIL:", what, file=sys.stderr)

    def exit_code(self, what, ok_line):
        """0 after printing `ok_line`, or 1 after counting the failures of `what`."""
        if self.failures:
            print(f"{len(self.failures)} {what} failures", file=sys.stderr)
            return 1
        print(ok_line)
        return 0
