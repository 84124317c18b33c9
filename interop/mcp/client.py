"""Drives an MCP server with the Python `mcp` SDK's client and prints what it saw as JSON.

    python client.py SCENARIO SPEC

SPEC is a JSON object: {"command": [...], "cwd": ..., "env": {...}} for a server over stdio,
or {"url": ...} for Streamable HTTP, plus what the scenario needs ("config": the server's
config file). The Rust tests (interop/tests/sdk_clients/mcp.rs) start this script and check its report;
this script only records, so that every expectation lives in one place.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

WAIT = 15.0
"""Seconds to wait for a notification before giving up."""


def dump(result: Any) -> Any:
    """A result as it was on the wire."""
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A call's result, or the protocol error it raised."""
    try:
        return {"result": dump(await client.call_tool(name, arguments or {}))}
    except MCPError as error:
        return {"error": {"code": error.code, "message": error.message}}


async def list_all(client: Client) -> dict[str, Any]:
    """Every page of tools/list."""
    pages: list[list[dict[str, Any]]] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
        pages.append([dump(tool) for tool in page.tools])
        cursor = page.next_cursor
        if cursor is None:
            break
    return {"pages": pages, "names": [tool["name"] for page in pages for tool in page]}


async def basics(client: Client, spec: dict[str, Any]) -> dict[str, Any]:
    report: dict[str, Any] = {
        "protocol_version": client.protocol_version,
        "server_info": dump(client.server_info) if client.server_info else None,
        "capabilities": dump(client.server_capabilities),
        "list": await list_all(client),
    }
    calls = {}
    for key, name, arguments in spec["calls"]:
        calls[key] = await call(client, name, arguments)
    report["calls"] = calls
    if "progress" in spec:
        name, arguments = spec["progress"]
        reports: list[dict[str, Any]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append({"progress": progress, "total": total, "message": message})

        result = await client.call_tool(name, arguments, progress_callback=on_progress)
        # The SDK runs progress callbacks as tasks of their own: let the last ones run.
        with anyio.move_on_after(2):
            while len(reports) < spec.get("progress_reports", 0):
                await anyio.sleep(0.01)
        report["progress"] = {"result": dump(result), "reports": reports}
    return report


async def list_changed(client: Client, spec: dict[str, Any]) -> dict[str, Any]:
    """Edits the config file and waits for notifications/tools/list_changed after each edit."""
    config = Path(spec["config"])
    steps = []
    async with client.listen(tools_list_changed=True) as subscription:
        steps.append({"honored": dump(subscription.honored)})
        for edit in spec["edits"]:
            config.write_text(edit["config"])
            started = time.monotonic()
            with anyio.fail_after(WAIT):
                event = await subscription.__anext__()
            step: dict[str, Any] = {
                "event": type(event).__name__,
                "seconds": time.monotonic() - started,
                "names": (await list_all(client))["names"],
            }
            if "call" in edit:
                name, arguments = edit["call"]
                step["call"] = await call(client, name, arguments)
            steps.append(step)
    return {"protocol_version": client.protocol_version, "steps": steps}


async def concurrent(client: Client, spec: dict[str, Any]) -> dict[str, Any]:
    """Starts `count` calls of fixture_echo at once; records each answer by its number."""
    count = spec["count"]
    answers: dict[int, Any] = {}

    async def one(n: int) -> None:
        result = await client.call_tool("fixture_echo", {"n": n, "text": f"call {n}"})
        answers[n] = {"is_error": result.is_error, "structured": result.structured_content}

    started = time.monotonic()
    async with anyio.create_task_group() as group:
        for n in range(count):
            group.start_soon(one, n)
    return {"answers": {str(n): a for n, a in sorted(answers.items())}, "seconds": time.monotonic() - started}


async def cancel(client: Client, spec: dict[str, Any]) -> dict[str, Any]:
    """Gives up on a long call after a moment (the SDK sends notifications/cancelled), then
    asks the server what its tool saw."""
    started = time.monotonic()
    with anyio.move_on_after(spec["after"]) as scope:
        await client.call_tool("fixture_sleep", {"ms": 30000})
    gave_up = scope.cancelled_caught
    stats = None
    for _ in range(50):
        stats = (await client.call_tool("fixture_stats", {})).structured_content
        if stats["sleeps_cancelled"] >= 1:
            break
        await anyio.sleep(0.1)
    return {"gave_up": gave_up, "seconds": time.monotonic() - started, "stats": stats}


SEEN: list[dict[str, Any]] = []
"""The requests the server made of this client (the `ask` scenario), in order."""


async def on_elicit(context: Any, params: mcp.types.ElicitRequestParams) -> mcp.types.ElicitResult:
    SEEN.append({"method": "elicitation/create", "params": params.model_dump(by_alias=True, mode="json", exclude_none=True)})
    return mcp.types.ElicitResult(action="accept", content={"name": ANSWERS["name"]})


async def on_sample(context: Any, params: mcp.types.CreateMessageRequestParams) -> mcp.types.CreateMessageResult:
    SEEN.append({"method": "sampling/createMessage", "params": params.model_dump(by_alias=True, mode="json", exclude_none=True)})
    return mcp.types.CreateMessageResult(
        role="assistant",
        content=mcp.types.TextContent(type="text", text=ANSWERS["greeting"]),
        model="interop-model",
        stop_reason="endTurn",
    )


async def on_roots(context: Any) -> mcp.types.ListRootsResult:
    SEEN.append({"method": "roots/list"})
    return mcp.types.ListRootsResult(roots=[mcp.types.Root(uri="file:///interop/root", name="interop")])


ANSWERS: dict[str, str] = {}


async def ask(client: Client, spec: dict[str, Any]) -> dict[str, Any]:
    """Makes `calls`, answering the server's requests (elicitation, sampling, roots) with
    `answers`; records what the server asked."""
    calls = {}
    for key, name, arguments in spec["calls"]:
        calls[key] = await call(client, name, arguments)
    return {"protocol_version": client.protocol_version, "calls": calls, "seen": SEEN}


async def unauthorized(spec: dict[str, Any]) -> dict[str, Any]:
    """What a client without a token meets: the SDK client fails to connect, and the `401`'s
    challenge and the protected resource metadata it names, read by the SDK's own OAuth
    helpers (which validate the metadata document)."""
    import httpx2
    from mcp.client.auth.utils import (
        build_protected_resource_metadata_discovery_urls,
        extract_field_from_www_auth,
        extract_resource_metadata_from_www_auth,
        extract_scope_from_www_auth,
        handle_protected_resource_response,
    )

    report: dict[str, Any] = {}
    try:
        async with Client(spec["url"], read_timeout_seconds=10) as client:
            await client.list_tools()
        report["connect"] = "connected"
    except BaseException as error:  # the SDK raises an exception group from its task group
        report["connect"] = "failed"
        report["connect_error"] = repr(error)
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            spec["url"],
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"accept": "application/json, text/event-stream", "content-type": "application/json"},
        )
        report["status"] = response.status_code
        report["scope"] = extract_scope_from_www_auth(response)
        report["error"] = extract_field_from_www_auth(response, "error")
        resource_metadata = extract_resource_metadata_from_www_auth(response)
        report["resource_metadata"] = resource_metadata
        urls = build_protected_resource_metadata_discovery_urls(resource_metadata, spec["url"])
        metadata = await handle_protected_resource_response(await http.get(urls[0]))
        report["metadata"] = metadata.model_dump(mode="json", exclude_none=True) if metadata else None
    return report


async def bearer(spec: dict[str, Any]) -> dict[str, Any]:
    """A client with a bearer token: what it may list and call; then one without."""
    import httpx2

    headers = {"Authorization": f"Bearer {spec['token']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        async with Client(streamable_http_client(spec["url"], http_client=http), read_timeout_seconds=60) as client:
            report: dict[str, Any] = {"list": await list_all(client)}
            calls = {}
            for key, name, arguments in spec["calls"]:
                calls[key] = await call(client, name, arguments)
            report["calls"] = calls
    report["unauthorized"] = await unauthorized(spec)
    return report


async def watch(spec: dict[str, Any]) -> dict[str, Any]:
    """With a bearer token, follows notifications/tools/list_changed: writes `ready` once
    subscribed, then after each of `count` notifications lists the tools and writes the names
    to `step-N.json` beside it (so that the test can act between them)."""
    import httpx2

    folder = Path(spec["ready"]).parent
    headers = {"Authorization": f"Bearer {spec['token']}"}
    steps = []
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
        async with Client(streamable_http_client(spec["url"], http_client=http), read_timeout_seconds=60) as client:
            before = (await list_all(client))["names"]
            async with client.listen(tools_list_changed=True) as subscription:
                Path(spec["ready"]).write_text(json.dumps(before))
                for n in range(1, spec["count"] + 1):
                    with anyio.fail_after(spec.get("wait", 60)):
                        event = await subscription.__anext__()
                    names = (await list_all(client))["names"]
                    steps.append({"event": type(event).__name__, "names": names})
                    (folder / f"step-{n}.json").write_text(json.dumps(names))
    return {"before": before, "steps": steps}


async def apps(spec: dict[str, Any]) -> dict[str, Any]:
    """MCP Apps as a host reads them: a client that declares the extension finds the tool's
    `_meta.ui`, lists the app's document and reads it; one that does not sees neither."""
    import httpx2
    from mcp.client import advertise

    headers = {"Authorization": f"Bearer {spec['token']}"} if "token" in spec else {}
    report: dict[str, Any] = {}
    for shows in (True, False):
        extensions = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})] if shows else None
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as http:
            async with Client(streamable_http_client(spec["url"], http_client=http), read_timeout_seconds=60, extensions=extensions) as client:
                tools = await client.list_tools()
                tool = next(t for t in tools.tools if t.name == spec["tool"])
                seen: dict[str, Any] = {"meta": dump(tool).get("_meta"), "protocol_version": client.protocol_version}
                resources = await client.list_resources()
                seen["resources"] = [dump(r) for r in resources.resources]
                if shows:
                    uri = tool.meta["ui"]["resourceUri"]
                    read = await client.read_resource(uri)
                    seen["read"] = dump(read)
                report["shows" if shows else "plain"] = seen
    return report


SCENARIOS = {
    "basics": basics,
    "ask": ask,
    "list_changed": list_changed,
    "concurrent": concurrent,
    "cancel": cancel,
}


async def main() -> None:
    scenario, spec = sys.argv[1], json.loads(sys.argv[2])
    if scenario in ("bearer", "watch", "apps"):
        report = await {"bearer": bearer, "watch": watch, "apps": apps}[scenario](spec)
        report["sdk"] = {"package": "mcp", "version": sdk_version()}
        print(json.dumps(report))
        return
    if "url" in spec:
        server: Any = spec["url"]
    else:
        command, *args = spec["command"]
        server = StdioServerParameters(command=command, args=args, env=spec.get("env"), cwd=spec.get("cwd"))
    callbacks: dict[str, Any] = {}
    if scenario == "ask":
        ANSWERS.update(spec["answers"])
        callbacks = {"elicitation_callback": on_elicit, "sampling_callback": on_sample, "list_roots_callback": on_roots}
    async with Client(server, read_timeout_seconds=60, **callbacks) as client:
        report = await SCENARIOS[scenario](client, spec)
    report["sdk"] = {"package": "mcp", "version": sdk_version()}
    print(json.dumps(report))


def sdk_version() -> str:
    from importlib.metadata import version

    return version(mcp.__name__)


if __name__ == "__main__":
    anyio.run(main)
