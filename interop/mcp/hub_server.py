"""An MCP server written with the Python SDK's MCPServer (FastMCP before SDK 2.x), which buril's
hub serves in its tests (interop/tests/hub/buril_hub.rs, interop/tests/hub/tools_hub.rs).

    python hub_server.py                 # over stdio
    python hub_server.py --http PORT     # over Streamable HTTP at http://127.0.0.1:PORT/mcp

Its tools: `add_numbers` (structured output), `slowCount` (a camelCase name; progress; notes a
cancellation), `unlock_extra` (adds the tool `extra_greet` while the server runs and says the
tool list changed), `calls_received` (how many tool calls reached the server: invalid input
refused by the hub never does), `ask_name` (asks the client for a name), `fail_on_purpose`
(reports an error of its own). With HUB_TEST_MARKERS set to a folder, a cancelled `slowCount`
writes `cancelled` there.
"""

import argparse
import os
import pathlib
from typing import Annotated

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("hub-test-server")
calls = {"count": 0}


def counted() -> None:
    calls["count"] += 1


class Sum(BaseModel):
    sum: float


@server.tool()
def add_numbers(a: float, b: float) -> Sum:
    """Adds two numbers."""
    counted()
    return Sum(sum=a + b)


@server.tool(name="slowCount")
async def slow_count(steps: int, delay: float, ctx: Context) -> str:
    """Counts to `steps`, waiting `delay` seconds before each, reporting progress."""
    counted()
    await ctx.info(f"counting to {steps}")
    try:
        for step in range(1, steps + 1):
            await anyio.sleep(delay)
            await ctx.report_progress(step, steps, f"step {step}")
    except anyio.get_cancelled_exc_class():
        markers = os.environ.get("HUB_TEST_MARKERS")
        if markers:
            pathlib.Path(markers, "cancelled").write_text("cancelled")
        raise
    return f"counted to {steps}"


def extra_greet(name: str) -> str:
    """Greets someone (a tool added while the server runs)."""
    counted()
    return f"hello, {name}"


@server.tool()
async def unlock_extra(ctx: Context) -> str:
    """Adds the tool `extra_greet` and tells clients the tool list changed."""
    counted()
    if server._tool_manager.get_tool("extra_greet") is None:
        server.add_tool(extra_greet, name="extra_greet")
    await ctx.notify_tools_changed()
    return "extra_greet is served"


@server.tool()
def calls_received() -> int:
    """How many tool calls reached this server (this one not counted)."""
    return calls["count"]


class Name(BaseModel):
    name: str


def name_from_user() -> Elicit[Name]:
    """Asks the client for a name: mid-call under 2025-11-25, in an `input_required` round
    under 2026-07-28 (the SDK's resolvers choose)."""
    return Elicit("What is your name?", Name)


@server.tool()
async def ask_name(name: Annotated[Name, Resolve(name_from_user)]) -> str:
    """Asks the client for a name and greets it."""
    counted()
    return f"hello, {name.name}"


@server.tool()
def fail_on_purpose() -> str:
    """Fails, with a message of its own."""
    counted()
    raise ToolError("this tool always fails")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, help="serve Streamable HTTP on this port")
    args = parser.parse_args()
    if args.http is None:
        server.run()
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
