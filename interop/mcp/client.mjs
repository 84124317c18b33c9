// Drives an MCP server with the TypeScript SDK's client (@modelcontextprotocol/sdk) and prints
// what it saw as JSON.
//
//     node client.mjs SCENARIO SPEC
//
// SPEC is a JSON object: {"command": [...], "cwd": ..., "env": {...}} for a server over stdio,
// or {"url": ...} for Streamable HTTP, plus what the scenario needs ("config": the server's
// config file). The Rust tests (interop/tests/sdk_clients/mcp.rs) start this script and check its report;
// this script only records, so that every expectation lives in one place.

import { readFileSync, writeFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** Milliseconds to wait for a notification before giving up. */
const WAIT = 15000;

/** A call's result, or the protocol error it raised. */
async function call(client, name, args, options = {}) {
  try {
    return { result: await client.callTool({ name, arguments: args ?? {} }, undefined, options) };
  } catch (error) {
    if (error instanceof McpError) {
      return { error: { code: error.code, message: error.message } };
    }
    throw error;
  }
}

/** Every page of tools/list. */
async function listAll(client) {
  const pages = [];
  let cursor;
  for (let i = 0; i < 100; i++) {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    pages.push(page.tools);
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  return { pages, names: pages.flat().map((tool) => tool.name) };
}

async function basics(client, spec) {
  const report = {
    serverVersion: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    list: await listAll(client),
    calls: {},
  };
  for (const [key, name, args] of spec.calls) {
    report.calls[key] = await call(client, name, args);
  }
  if (spec.progress) {
    const reports = [];
    const [name, args] = spec.progress;
    const result = await call(client, name, args, {
      onprogress: (progress) => reports.push(progress),
    });
    report.progress = { result, reports };
  }
  return report;
}

/** Resolves on the next notifications/tools/list_changed, or rejects after WAIT. */
function nextListChanged(state) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no notifications/tools/list_changed')), WAIT);
    state.waiting = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}

async function listChanged(client, spec) {
  const state = { waiting: null, seen: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.seen += 1;
    const waiting = state.waiting;
    state.waiting = null;
    if (waiting) waiting();
  });
  const steps = [];
  for (const edit of spec.edits) {
    const changed = nextListChanged(state);
    const started = Date.now();
    writeFileSync(spec.config, edit.config);
    await changed;
    const step = { seconds: (Date.now() - started) / 1000, names: (await listAll(client)).names };
    if (edit.call) {
      step.call = await call(client, edit.call[0], edit.call[1]);
    }
    steps.push(step);
  }
  return { steps, notifications: state.seen };
}

async function concurrent(client, spec) {
  // The SDK validates structuredContent against the output schemas it has listed.
  await listAll(client);
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: spec.count }, (_, n) =>
      client.callTool({ name: 'fixture_echo', arguments: { n, text: `call ${n}` } }),
    ),
  );
  const answers = {};
  results.forEach((result, n) => {
    answers[n] = { is_error: result.isError ?? false, structured: result.structuredContent };
  });
  return { answers, seconds: (Date.now() - started) / 1000 };
}

async function cancel(client, spec) {
  const controller = new AbortController();
  const started = Date.now();
  const timer = setTimeout(() => controller.abort('the test gave up'), spec.after * 1000);
  let gaveUp = false;
  try {
    await client.callTool({ name: 'fixture_sleep', arguments: { ms: 30000 } }, undefined, {
      signal: controller.signal,
    });
  } catch {
    gaveUp = controller.signal.aborted;
  }
  clearTimeout(timer);
  let stats = null;
  for (let i = 0; i < 50; i++) {
    stats = (await client.callTool({ name: 'fixture_stats', arguments: {} })).structuredContent;
    if (stats.sleeps_cancelled >= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { gave_up: gaveUp, seconds: (Date.now() - started) / 1000, stats };
}

const SCENARIOS = { basics, list_changed: listChanged, concurrent, cancel, ask };

function sdkVersion() {
  const path = new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(path, 'utf8')).version;
}

/**
 * Makes `calls`, answering the server's requests (elicitation, sampling, roots) with
 * `answers`; records what the server asked. The client declares the capabilities in
 * `spec.capabilities` (none: the server must refuse its tools' questions, not wait).
 */
async function ask(client, spec) {
  const seen = [];
  const capabilities = spec.capabilities ?? {};
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push({ method: request.method, params: request.params });
      return { action: 'accept', content: { name: spec.answers.name } };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      seen.push({ method: request.method, params: request.params });
      return {
        role: 'assistant',
        content: { type: 'text', text: spec.answers.greeting },
        model: 'interop-model',
        stopReason: 'endTurn',
      };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async (request) => {
      seen.push({ method: request.method });
      return { roots: [{ uri: 'file:///interop/root', name: 'interop' }] };
    });
  }
  const calls = {};
  for (const [key, name, args] of spec.calls) {
    calls[key] = await call(client, name, args);
  }
  return { calls, seen };
}

/**
 * What a client without a token meets: the SDK client fails to connect, and the 401's
 * challenge and the protected resource metadata it names, read by the SDK's own OAuth helpers
 * (which validate the metadata document).
 */
async function unauthorized(spec) {
  const report = {};
  const client = new Client({ name: 'buril-interop', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(spec.url)));
    report.connect = 'connected';
    await client.close();
  } catch (error) {
    report.connect = 'failed';
    report.connectError = `${error?.constructor?.name}: ${error?.message}`;
  }
  const response = await fetch(spec.url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  report.status = response.status;
  const challenge = extractWWWAuthenticateParams(response);
  report.scope = challenge.scope ?? null;
  report.error = challenge.error ?? null;
  report.resourceMetadata = challenge.resourceMetadataUrl?.href ?? null;
  report.metadata = await discoverOAuthProtectedResourceMetadata(spec.url, {
    resourceMetadataUrl: challenge.resourceMetadataUrl,
  });
  return report;
}

/** A client with a bearer token: what it may list and call; then one without. */
async function bearer(spec) {
  const transport = new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: { Authorization: `Bearer ${spec.token}` } },
  });
  const client = new Client({ name: 'buril-interop', version: '1.0.0' });
  await client.connect(transport);
  const report = { list: await listAll(client) };
  const calls = {};
  for (const [key, name, args] of spec.calls) {
    calls[key] = await call(client, name, args);
  }
  report.calls = calls;
  await client.close();
  report.unauthorized = await unauthorized(spec);
  return report;
}

async function main() {
  const [scenario, specText] = process.argv.slice(2);
  const spec = JSON.parse(specText);
  if (scenario === 'bearer') {
    const report = await bearer(spec);
    report.sdk = { package: '@modelcontextprotocol/sdk', version: sdkVersion() };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  let transport;
  if (spec.url) {
    transport = new StreamableHTTPClientTransport(new URL(spec.url));
  } else {
    const [command, ...args] = spec.command;
    transport = new StdioClientTransport({
      command,
      args,
      cwd: spec.cwd,
      env: { ...process.env, ...(spec.env ?? {}) },
      stderr: 'inherit',
    });
  }
  // The negotiated protocol version reaches the transport (only HTTP transports keep it).
  let negotiated = null;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    negotiated = version;
    setProtocolVersion?.(version);
  };
  const client = new Client(
    { name: 'buril-interop', version: '1.0.0' },
    { capabilities: spec.capabilities ?? {} },
  );
  await client.connect(transport);
  const report = await SCENARIOS[scenario](client, spec);
  report.protocolVersion = negotiated;
  report.sdk = { package: '@modelcontextprotocol/sdk', version: sdkVersion() };
  await client.close();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
