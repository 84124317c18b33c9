// The task handles of the generated TypeScript (`startTask`) against a real `tools serve`, over
// `httpTransport` and `stdioTransport`: `asset_search` (a task tool) run to its end, polled, and
// cancelled while the tool is blocked reading a named pipe. Prints what happened as JSON.
//
//     node out/tasks.js http URL
//     node out/tasks.js stdio TOOLS PROJECT

import { BurilToolError, httpTransport, startTask, stdioTransport, tools } from "./typescript/index.js";
import type { TaskSnapshot, TaskStatus, ToolTransport } from "./typescript/index.js";

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  let transport: ToolTransport & { close(): Promise<void> };
  if (mode === "http") {
    transport = httpTransport(args[0] ?? "");
  } else {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined) {
        env[key] = value;
      }
    }
    env["BURIL_PROJECT"] = args[1] ?? "";
    transport = stdioTransport(args[0] ?? "", ["serve"], { env, stderr: "ignore" });
  }
  const definition = tools.find((tool) => tool.name === "asset_search");
  const report: { [key: string]: unknown } = {
    declared: definition !== undefined && "task" in definition ? definition.task : null,
  };

  // To its end: the handle at once, then the tool's typed output.
  const handle = await startTask(transport, "asset_search", { query: "PlayerController", pattern: "*.cs" });
  const statuses: TaskStatus[] = [];
  const output = await handle.wait({ onStatus: (task: TaskSnapshot) => statuses.push(task.status) });
  report["completed"] = {
    taskId: handle.taskId.slice(0, 5),
    firstStatus: handle.taskId === "" ? "completed" : "created",
    statuses,
    query: output.query,
    matches: output.matches.length,
    polled: (await handle.poll()).status,
  };

  // Cancelled through the wait's signal while the tool is blocked on the pipe.
  const blocked = await startTask(transport, "asset_search", { query: "anything", folder: "Assets/Blocking" });
  const seen: TaskStatus[] = [];
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 500);
  const rejected = await blocked.wait({ signal: controller.signal, onStatus: (task) => seen.push(task.status) }).then(
    () => "resolved",
    (error: unknown) => (error instanceof BurilToolError ? error.type : String(error)),
  );
  // The server's view once the cancellation went through.
  let after = await blocked.poll();
  for (let i = 0; i < 100 && after.status !== "cancelled"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = await blocked.poll();
  }
  report["cancelled"] = { seen, rejected, after: after.status };

  // A timeout of the wait only: the task goes on, and is cancelled with `cancel`.
  const slow = await startTask(transport, "asset_search", { query: "anything", folder: "Assets/Blocking" });
  const timedOut = await slow.wait({ timeoutMs: 200 }).then(
    () => "resolved",
    (error: unknown) => (error instanceof BurilToolError ? error.type : String(error)),
  );
  const stillRunning = (await slow.poll()).status;
  await slow.cancel();
  let ended = await slow.poll();
  for (let i = 0; i < 100 && ended.status !== "cancelled"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    ended = await slow.poll();
  }
  report["timedOut"] = { timedOut, stillRunning, ended: ended.status };
  await transport.close();
  console.log(JSON.stringify(report));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
