// Follows a buril server's tasks with the TypeScript SDK's client (@modelcontextprotocol/sdk),
// as a client of the tasks extension (`io.modelcontextprotocol/tasks`) does, and prints what it
// saw as JSON.
//
//     node tasks.mjs SPEC
//
// SPEC is a JSON object: {"url": ...} of a Streamable HTTP server serving the conformance
// fixtures (`slow_compute`), plus "expired_after" (seconds the server keeps an ended task). The
// client declares the extension in its capabilities (the SDK passes `extensions` through) and
// sends `tools/call`, `tasks/get` and `tasks/cancel` with `client.request`, reading the answers
// with schemas of their SEP-2663 shapes. The Rust test (interop/tests/tasks/across.rs)
// checks the report; this script only records.

import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const TASKS = 'io.modelcontextprotocol/tasks';

/** `CreateTaskResult` (a flat task, `resultType: "task"`) or a plain `CallToolResult`. */
const CallAnswer = z
  .object({
    resultType: z.string().optional(),
    taskId: z.string().optional(),
    status: z.string().optional(),
    ttlMs: z.number().int().nullable().optional(),
    pollIntervalMs: z.number().int().optional(),
    content: z.array(z.any()).optional(),
  })
  .passthrough();

/** `tasks/get`'s `DetailedTask`. */
const Detailed = z
  .object({
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    result: z.record(z.any()).optional(),
    error: z.record(z.any()).optional(),
  })
  .passthrough();

const Ack = z.object({ resultType: z.string().optional() }).passthrough();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(client, seconds, label) {
  return client.request(
    { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds, label } } },
    CallAnswer,
  );
}

async function get(client, taskId) {
  return client.request({ method: 'tasks/get', params: { taskId } }, Detailed);
}

async function untilDone(client, taskId, seen) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const task = await get(client, taskId);
    if (seen.at(-1) !== task.status) {
      seen.push(task.status);
    }
    if (['completed', 'failed', 'cancelled'].includes(task.status)) {
      return task;
    }
    if (Date.now() > deadline) {
      throw new Error(`task ${taskId} still ${task.status}`);
    }
    await sleep(50);
  }
}

async function errorOf(promise) {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof McpError) {
      return { code: error.code, message: error.message };
    }
    throw error;
  }
}

async function main() {
  const spec = JSON.parse(process.argv[2]);
  const client = new Client(
    { name: 'buril-tasks-test', version: '1.0.0' },
    { capabilities: { extensions: { [TASKS]: {} } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(spec.url)));
  const report = {
    server_declares_tasks: Boolean(client.getServerCapabilities()?.extensions?.[TASKS]),
  };

  const done = await start(client, 0.3, 'node-done');
  const doneSeen = [];
  const finished = await untilDone(client, done.taskId, doneSeen);
  report.completed = {
    created: { resultType: done.resultType, status: done.status },
    seen: doneSeen,
    text: finished.result?.content?.[0]?.text ?? null,
  };

  const running = await start(client, 30, 'node-cancelled');
  await sleep(200);
  const ack = await client.request({ method: 'tasks/cancel', params: { taskId: running.taskId } }, Ack);
  const cancelSeen = [];
  const cancelled = await untilDone(client, running.taskId, cancelSeen);
  report.cancelled = { ack, status: cancelled.status, seen: cancelSeen };

  const quick = await start(client, 0, 'node-expired');
  await untilDone(client, quick.taskId, []);
  await sleep(spec.expired_after * 1000);
  report.expired = { error: await errorOf(get(client, quick.taskId)) };
  report.forged = { error: await errorOf(get(client, 'task_00000000000000000000000000000000')) };
  report.sdk = { package: '@modelcontextprotocol/sdk', version: sdkVersion() };
  await client.close();
  console.log(JSON.stringify(report));
}

function sdkVersion() {
  const path = new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(path, 'utf8')).version;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
