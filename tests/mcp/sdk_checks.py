"""What the MCP SDK scripts share: the CLI call to compare with, a failure list, and checking
results against the output schemas the server lists."""
import json
import subprocess
import sys

import jsonschema


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


class Results:
    """Calls tools and validates every successful result against the tool's listed
    outputSchema (JSON Schema 2020-12, with `jsonschema`); remembers which tools it validated."""

    def __init__(self, session, tools, check):
        self.session = session
        self.schemas = {t.name: t.output_schema for t in tools}
        self.check = check
        self.validated = set()

    async def call(self, name, args):
        r = await self.session.call_tool(name, args)
        text = r.content[0].text if r.content else ""
        self.check(not r.is_error, f"{name} {json.dumps(args)[:120]} failed: {text[:300]}")
        if r.is_error:
            return r
        schema = self.schemas.get(name)
        self.check(schema is not None and schema.get("type") == "object", f"{name}: object outputSchema")
        if schema is None:
            return r
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(r.structured_content))
        self.check(not errors, f"{name}: result does not match outputSchema: {[e.message for e in errors[:3]]}")
        extra = set(r.structured_content or {}) - set(schema.get("properties", {}))
        self.check(not extra, f"{name}: result fields missing from outputSchema: {extra}")
        if not errors and not extra:
            self.validated.add(name)
        return r
