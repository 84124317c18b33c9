"""Follows a buril server's tasks with the Python `mcp` SDK's client, as a client of the tasks
extension (`io.modelcontextprotocol/tasks`) does, and prints what it saw as JSON.

    python tasks.py SPEC

SPEC is a JSON object: {"url": ...} of a Streamable HTTP server serving the conformance
fixtures (`slow_compute`), plus "expired_after" (seconds the server keeps an ended task). The
extension is declared through the SDK's own extension interface (`ClientExtension`, with a
`ResultClaim` for `resultType: "task"`), and `tasks/get` and `tasks/cancel` are sent as the
SDK's typed requests (with the `Mcp-Name` header SEP-2663 asks for). The Rust test
(interop/tests/tasks/across.rs) checks the report; this script only records.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Literal

import anyio
import mcp
from mcp import Client, MCPError
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


class CreatedTask(Result):
    """A `tools/call` answered with a task (SEP-2663's `CreateTaskResult`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class Detailed(Result):
    """`tasks/get`'s answer: the task, with its result or error once it ended."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Ack(Result):
    model_config = ConfigDict(extra="allow")


async def get(client: Client, task_id: str) -> Detailed:
    return await client.session.send_request(GetTask(params=TaskParams(task_id=task_id)), Detailed)


async def until_done(client: Client, task_id: str, seen: list[str]) -> Detailed:
    """Polls the task until it ends, recording each status seen."""
    deadline = time.monotonic() + 30
    while True:
        task = await get(client, task_id)
        if not seen or seen[-1] != task.status:
            seen.append(task.status)
        if task.status in ("completed", "failed", "cancelled"):
            return task
        if time.monotonic() > deadline:
            raise RuntimeError(f"task {task_id} still {task.status}")
        await anyio.sleep(0.05)


async def resolve(created: CreatedTask, context: ClaimContext) -> CallToolResult:
    """What `call_tool` answers for a task: its result, once it ended."""
    session = context.session
    while True:
        task = await session.send_request(GetTask(params=TaskParams(task_id=created.task_id)), Detailed)
        if task.status == "completed" and task.result is not None:
            return CallToolResult.model_validate(task.result)
        if task.status in ("failed", "cancelled"):
            raise RuntimeError(f"the task ended {task.status}")
        await anyio.sleep(0.05)


class Tasks(ClientExtension):
    """The tasks extension, as this client speaks it."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=resolve)]


async def main() -> None:
    spec = json.loads(sys.argv[1])
    report: dict[str, Any] = {}
    async with Client(spec["url"], read_timeout_seconds=60, extensions=[Tasks()]) as client:
        report["protocol_version"] = client.protocol_version
        capabilities = client.server_capabilities
        report["server_declares_tasks"] = bool(capabilities and TASKS in (capabilities.extensions or {}))

        # 1. To completion, through the claim: `call_tool` answers the task's result.
        done = await client.call_tool("slow_compute", {"seconds": 0.3, "label": "python-done"})
        report["completed"] = {
            "text": done.content[0].text if done.content else None,
            "structured": done.structured_content,
        }

        # 2. Polled by hand: the handle at once, then the statuses until it ends.
        created = await client.session.call_tool(
            "slow_compute", {"seconds": 0.5, "label": "python-polled"}, allow_claimed=True
        )
        seen: list[str] = []
        polled = await until_done(client, created.task_id, seen)
        report["polled"] = {
            "created": {"resultType": created.result_type, "status": created.status, "ttlMs": created.ttl_ms},
            "seen": seen,
            "result": polled.result,
        }

        # 3. Cancelled mid-run: the ack, then `cancelled`.
        created = await client.session.call_tool(
            "slow_compute", {"seconds": 30, "label": "python-cancelled"}, allow_claimed=True
        )
        await anyio.sleep(0.2)
        ack = await client.session.send_request(CancelTask(params=TaskParams(task_id=created.task_id)), Ack)
        seen = []
        cancelled = await until_done(client, created.task_id, seen)
        report["cancelled"] = {
            "ack": ack.model_dump(by_alias=True, mode="json", exclude_none=True),
            "status": cancelled.status,
            "seen": seen,
        }

        # 4. Expired: kept for its TTL after it ended, then an error.
        created = await client.session.call_tool(
            "slow_compute", {"seconds": 0, "label": "python-expired"}, allow_claimed=True
        )
        await until_done(client, created.task_id, [])
        await anyio.sleep(spec["expired_after"])
        try:
            await get(client, created.task_id)
            report["expired"] = {"error": None}
        except MCPError as error:
            report["expired"] = {"error": {"code": error.code, "message": error.message}}

        # 5. A handle nobody made.
        try:
            await get(client, "task_00000000000000000000000000000000")
            report["forged"] = {"error": None}
        except MCPError as error:
            report["forged"] = {"error": {"code": error.code, "message": error.message}}
    report["sdk"] = {"package": "mcp", "version": version()}
    print(json.dumps(report))


def version() -> str:
    from importlib.metadata import version

    return version(mcp.__name__)


if __name__ == "__main__":
    anyio.run(main)
