"""Drive oarc guard proxies from the official MCP Python SDK (ClientSession).

Two proxies are exercised over stdio:

- GUARD_EVERYTHING (built from examples/python-client/stock and project) in
  front of @modelcontextprotocol/server-everything, server id "everything";
- GUARD_FS (built from examples/mcp/stock and project) in front of
  @modelcontextprotocol/server-filesystem, server id "fs".

Each check prints PASS or FAIL; the exit status is the number of failures.
See README.md beside this file for how to build the proxies and run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import anyio
import mcp.types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = os.path.dirname(os.path.abspath(__file__))
NPM_BIN = os.path.join(
    os.environ.get("OARC_NPM_DIR")
    or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "oarc-npm"),
    "node_modules",
    ".bin",
)
GUARD_EVERYTHING = os.environ.get("GUARD_EVERYTHING", "/tmp/pyguard")
GUARD_FS = os.environ.get("GUARD_FS", "/tmp/fsguard")
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"

failures = 0


def check(name: str, ok: bool, detail: object = "") -> None:
    global failures
    if not ok:
        failures += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def code(result: types.CallToolResult) -> str | None:
    return (result.meta or {}).get("oarc/code")


def everything(*flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=GUARD_EVERYTHING,
        args=["-server-id", "everything", *flags, "--", os.path.join(NPM_BIN, "mcp-server-everything")],
    )


class Asker:
    """An elicitation callback whose answer the test sets before each call."""

    def __init__(self) -> None:
        self.answer: types.ElicitResult | types.ErrorData | None = None
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context, params):  # noqa: ANN001 (the SDK's ElicitationFnT)
        self.asked.append(params)
        return self.answer


async def with_everything() -> None:
    asker = Asker()
    progress: list[float] = []
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append(p)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with stdio_client(everything()) as (r, w):
        async with ClientSession(r, w, elicitation_callback=asker, logging_callback=on_log) as s:
            init = await s.initialize()
            check("initialize", init.server_info.name == "mcp-servers/everything", init)
            tasks = init.capabilities.tasks
            check(
                "initialize: task-augmented tools/call (refused by the proxy) not declared",
                tasks is None or tasks.requests is None or tasks.requests.tools is None,
                tasks,
            )
            tools = {t.name for t in (await s.list_tools()).tools}
            check("tools/list passes the server's tools", {"echo", "get-sum", "get-env"} <= tools, tools)
            await s.send_ping()
            check("ping", True)
            res = await s.list_resources()
            check("resources/list", len(res.resources) > 0, res)
            tmpl = await s.list_resource_templates()
            check("resources/templates/list", len(tmpl.resource_templates) > 0, tmpl)
            read = await s.read_resource(res.resources[0].uri)
            check("resources/read", len(read.contents) > 0, read)
            prompts = await s.list_prompts()
            check("prompts/list", any(p.name == "simple-prompt" for p in prompts.prompts), prompts)
            got = await s.get_prompt("simple-prompt")
            check("prompts/get", len(got.messages) > 0, got)

            # A blocked call: never forwarded, isError with the rule's code.
            r1 = await s.call_tool("get-env", {})
            check("block: isError and oarc/code", r1.is_error and code(r1) == "NO_ENV", r1)
            check("block: rejection ends with Code", texts(r1)[-1].endswith("Code: NO_ENV"), r1)

            # A transform: the key is gone from the text.
            r2 = await s.call_tool("echo", {"message": f"key {AWS_KEY}"})
            check("transform: key redacted", texts(r2) == ["Echo: key [REDACTED]"], r2)
            check("transform: node id in _meta", (r2.meta or {}).get("oarc/node", "").startswith("r"), r2)

            # A nudge: its note appended as the last text item.
            r3 = await s.call_tool("get-sum", {"a": 1, "b": 2})
            t3 = texts(r3)
            check("nudge: result then note", len(t3) == 2 and "3" in t3[0] and t3[1].endswith("Code: SUM_NUDGE"), r3)

            # A warn with progress: banner appended, progress notifications relayed.
            r4 = await s.call_tool(
                "trigger-long-running-operation", {"duration": 1, "steps": 3}, progress_callback=on_progress
            )
            t4 = texts(r4)
            check("warn: banner is the last item", t4 and "LONG_WARN" in t4[-1], r4)
            check("progress notifications relayed", len(progress) == 3, progress)

            # Structured content, images, resource links and embedded resources pass.
            r5 = await s.call_tool("get-structured-content", {"location": "New York"})
            check("structuredContent passes", r5.structured_content is not None and not r5.is_error, r5)
            r6 = await s.call_tool("get-tiny-image", {})
            check("image content passes", any(isinstance(c, types.ImageContent) for c in r6.content), r6)
            r7 = await s.call_tool("get-resource-links", {"count": 2})
            check("resource links pass", any(isinstance(c, types.ResourceLink) for c in r7.content), r7)
            r8 = await s.call_tool("get-resource-reference", {"resourceType": "Text", "resourceId": 1})
            check("embedded resource passes", any(isinstance(c, types.EmbeddedResource) for c in r8.content), r8)
            r9 = await s.call_tool("get-annotated-message", {"messageType": "error", "includeImage": True})
            check("annotated message passes", not r9.is_error, r9)

            # Logging notifications pass through.
            await s.set_logging_level("debug")
            await s.call_tool("toggle-simulated-logging", {})
            with anyio.move_on_after(8):
                while not logs:
                    await anyio.sleep(0.1)
            await s.call_tool("toggle-simulated-logging", {})
            check("logging notifications relayed", len(logs) > 0, logs)

            # ask: the proxy asks by elicitation/create; only an explicit yes forwards.
            def ask(message: str) -> types.CallToolResult:
                return s.call_tool("echo", {"message": message})

            asker.answer = types.ElicitResult(action="accept", content={"approve": True})
            ra = await ask("deploy v1")
            check("ask: approve forwards", texts(ra) == ["Echo: deploy v1"] and not ra.is_error, ra)
            q = asker.asked[-1] if asker.asked else None
            check(
                "ask: question is a form with boolean approve",
                q is not None and q.requested_schema["properties"]["approve"]["type"] == "boolean",
                q,
            )
            asker.answer = types.ElicitResult(action="accept", content={"approve": False})
            rb = await ask("deploy v2")
            check("ask: approve false blocks", rb.is_error and code(rb) == "ASK_DEPLOY", rb)
            asker.answer = types.ElicitResult(action="decline")
            rc = await ask("deploy v3")
            check("ask: decline blocks", rc.is_error and code(rc) == "ASK_DEPLOY", rc)
            asker.answer = types.ElicitResult(action="cancel")
            rd = await ask("deploy v4")
            check("ask: cancel blocks", rd.is_error and code(rd) == "ASK_DEPLOY", rd)
            asker.answer = types.ElicitResult(action="accept", content={"approve": "true"})
            re_ = await ask("deploy v5")
            check("ask: approve as a string blocks", re_.is_error and code(re_) == "ASK_DEPLOY", re_)
            asker.answer = types.ElicitResult(action="accept", content={"approve": 1})
            rf = await ask("deploy v6")
            check("ask: approve as a number blocks", rf.is_error and code(rf) == "ASK_DEPLOY", rf)
            asker.answer = types.ElicitResult(action="accept")
            rg = await ask("deploy v7")
            check("ask: accept without content blocks", rg.is_error and code(rg) == "ASK_DEPLOY", rg)
            asker.answer = types.ErrorData(code=-32600, message="no one is here")
            rh = await ask("deploy v8")
            check("ask: an error answer blocks", rh.is_error and code(rh) == "ASK_DEPLOY", rh)
            rn = await ask("no d-word here")
            check("ask: not asked when the rule does not fire", not rn.is_error, rn)

            # Cancellation of an in-flight call: the proxy forwards
            # notifications/cancelled; the session goes on.
            with anyio.move_on_after(1) as scope:
                await s.call_tool("trigger-long-running-operation", {"duration": 5, "steps": 5})
            check("cancel: call abandoned", scope.cancelled_caught)
            await s.send_ping()
            r10 = await s.call_tool("echo", {"message": "after cancel"})
            check("cancel: session still answers", texts(r10) == ["Echo: after cancel"], r10)

            # A large output (4 MiB) passes whole.
            big = "x" * (4 << 20)
            r11 = await s.call_tool("echo", {"message": big})
            check("large output passes whole", texts(r11) == ["Echo: " + big], len(texts(r11)[0]) if texts(r11) else r11)

    # A client without the elicitation capability: the ask rule blocks unasked.
    async with stdio_client(everything()) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            r12 = await s.call_tool("echo", {"message": "deploy now"})
            check("ask without capability: blocked", r12.is_error and code(r12) == "ASK_DEPLOY", r12)
            check("ask without capability: says no one could be asked", "ask" in texts(r12)[0].lower(), r12)

    # A result over -max-message is withheld with an error, never truncated.
    async with stdio_client(everything("-max-message", "65536")) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            try:
                r13 = await s.call_tool("echo", {"message": "y" * 40000})
                check("max-message: a result under the limit passes", not r13.is_error, r13)
                r14 = await s.call_tool("echo", {"message": "y" * 70000})
                check("max-message: a request over the limit is refused", False, r14)
            except Exception as e:  # the SDK raises MCPError for a JSON-RPC error
                check("max-message: a request over the limit is refused", "mcp" in type(e).__module__.lower(), e)
            await s.send_ping()
            check("max-message: the session goes on", True)

    # -timeout: a call without progress that outlasts it gets an error.
    async with stdio_client(everything("-timeout", "1s")) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            try:
                r15 = await s.call_tool("trigger-long-running-operation", {"duration": 3, "steps": 1})
                check("timeout: an error", False, r15)
            except Exception as e:
                check("timeout: an error", "did not answer" in str(e), e)
            await s.send_ping()
            check("timeout: the session goes on", True)


def guard_children() -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return {int(line.split()[0]) for line in out.splitlines()[1:] if GUARD_EVERYTHING in line}


async def close_mid_call() -> None:
    """The client goes away while a call is in flight: the proxy stops its upstream and exits."""
    before = guard_children()
    try:
        with anyio.move_on_after(1.5):
            async with stdio_client(everything()) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    await s.call_tool("trigger-long-running-operation", {"duration": 20, "steps": 4})
    except Exception as e:  # the transport may report the broken pipe
        print("  (closing mid-call raised", type(e).__name__, e, ")")
    deadline = time.monotonic() + 10
    while guard_children() - before and time.monotonic() < deadline:
        await anyio.sleep(0.2)
    check("close mid-call: the proxy exited", not (guard_children() - before), guard_children() - before)


async def with_filesystem() -> None:
    work = tempfile.mkdtemp(prefix="oarc-pyclient-")
    notes = os.path.join(work, "notes.txt")
    with open(notes, "w") as f:
        f.write(f"deploy notes\naws_access_key_id = {AWS_KEY}\n")
    params = StdioServerParameters(
        command=GUARD_FS,
        args=["-server-id", "fs", "-trust", "untrusted", "--", os.path.join(NPM_BIN, "mcp-server-filesystem"), work],
    )
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            check("fs: tools/list narrowed to the allowlist", "move_file" not in tools and "read_text_file" in tools, tools)
            r1 = await s.call_tool("move_file", {"source": notes, "destination": notes + ".gone"})
            check("fs: move_file blocked", r1.is_error and code(r1) == "NOT_ALLOWLISTED", r1)
            check("fs: move_file never ran", os.path.exists(notes))
            r2 = await s.call_tool("read_text_file", {"path": notes})
            check("fs: key redacted in text", AWS_KEY not in str(r2.content) and "[REDACTED]" in texts(r2)[0], r2)
            check("fs: key redacted in structuredContent", AWS_KEY not in str(r2.structured_content), r2)
            r3 = await s.call_tool("directory_tree", {"path": work})
            check("fs: warn banner", "TREE_WARN" in texts(r3)[-1], r3)
            r4 = await s.call_tool("read_text_file", {"path": notes + ".missing"})
            check("fs: failed call warned", r4.is_error and "TOOL_FAILED" in texts(r4)[-1], r4)
            rs = [await s.call_tool("list_directory", {"path": work}) for _ in range(4)]
            check("fs: repeat nudged", "REPEAT_NUDGE" in texts(rs[1])[-1], rs[1])
            check("fs: loop broken", code(rs[3]) == "LOOP_BREAKER", rs[3])
            r5 = await s.call_tool("write_file", {"path": os.path.join(work, "out.txt"), "content": "x"})
            check("fs: untrusted write blocked", code(r5) == "UNTRUSTED_WRITE", r5)


async def with_modern_server() -> None:
    """MCP 2026-07-28: the SDK's Client probes server/discover and never sends initialize."""
    asker = Asker()
    asker.answer = types.ElicitResult(action="accept", content={"approve": True})
    params = StdioServerParameters(
        command=GUARD_EVERYTHING,
        # Without -server-id a 2026-07-28 session never tells the proxy its server id.
        args=["-server-id", "modern", "--", sys.executable, os.path.join(HERE, "modern_server.py")],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "HOME", "VIRTUAL_ENV")},
    )
    async with Client(stdio_client(params), elicitation_callback=asker) as c:
        check("modern: 2026-07-28 agreed", c.protocol_version == "2026-07-28", c.protocol_version)
        tools = {t.name for t in (await c.list_tools()).tools}
        check("modern: tools/list", tools == {"echo", "get_env"}, tools)
        r1 = await c.call_tool("get_env", {})
        check("modern: block parses (resultType)", r1.is_error and code(r1) == "NO_ENV", r1)
        r2 = await c.call_tool("echo", {"message": f"key {AWS_KEY}"})
        check("modern: key redacted", texts(r2) == ["Echo: key [REDACTED]"], r2)
        check("modern: key redacted in structuredContent", AWS_KEY not in str(r2.structured_content), r2)
        # ask: the proxy sends the question back in the result (inputRequests),
        # the SDK puts it to the elicitation callback and retries with the answer.
        r3 = await c.call_tool("echo", {"message": "deploy v9"})
        check("modern: ask approved forwards", texts(r3) == ["Echo: deploy v9"] and not r3.is_error, r3)
        check("modern: asked once", len(asker.asked) == 1, asker.asked)
        asker.answer = types.ElicitResult(action="accept", content={"approve": False})
        r4 = await c.call_tool("echo", {"message": "deploy v10"})
        check("modern: ask refused blocks", r4.is_error and code(r4) == "ASK_DEPLOY" and len(asker.asked) == 2, r4)


async def main() -> None:
    await with_everything()
    await close_mid_call()
    await with_filesystem()
    await with_modern_server()
    print(f"{failures} failed", flush=True)


if __name__ == "__main__":
    anyio.run(main)
    sys.exit(min(failures, 100))
