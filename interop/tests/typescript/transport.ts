// Calls a real `tools serve` through a transport of the generated bindings and prints what
// happened as one JSON object, for `tests/transports.rs` to check.
//
// Usage: node transport.js http <url>
//        node transport.js sdk-stdio <tools binary> <project folder>
//        node transport.js stdio <tools binary> <project folder>

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import {
  BurilToolError,
  METADATA_HASH,
  assetSearch,
  callTool,
  consoleRead,
  httpTransport,
  mcpTransport,
  sceneList,
  sceneOpen,
  sceneOpenTool,
  stdioTransport,
} from "./typescript/index.js";
import type { FetchLike, FetchResponseLike, Progress, ToolTransport } from "./typescript/index.js";

/** The warnings the transports handed over. */
const warnings: { name: string; warnings: readonly string[] }[] = [];

function warn(name: string, list: readonly string[]): void {
  warnings.push({ name, warnings: list });
}

/** A transport that can say what the server's metadata hash is. */
interface Connected {
  transport: ToolTransport;
  serverMetadataHash(): string | undefined;
  close(): Promise<void>;
  /** HTTP only: calls whose answers never come, ended by a timeout and by an abort. */
  stalled?: () => Promise<unknown>;
  /** HTTP only: a call sent with a session the server does not know. */
  sessionLost?: () => Promise<unknown>;
  /** stdio only: what a call through a command that does not exist rejected with. */
  extra?: unknown;
}

/**
 * Over HTTP, through a `fetch` that never answers `console_read` (until its request is aborted):
 * such a call can only end by its timeout or its signal, and either must abort the request and
 * post `notifications/cancelled`.
 */
async function stalledOverHttp(url: string): Promise<unknown> {
  const real = globalThis.fetch as unknown as FetchLike;
  const sent: string[] = [];
  let requestsAborted = 0;
  let onStalled: (() => void) | undefined;
  const stalling: FetchLike = (target, init) => {
    const message = JSON.parse(init.body ?? "{}") as { method?: string; params?: { name?: string } };
    sent.push(message.method ?? "");
    if (message.method !== "tools/call" || message.params?.name !== "console_read") {
      return real(target, init);
    }
    const stalled = new Promise<FetchResponseLike>((_, reject) => {
      init.signal?.addEventListener(
        "abort",
        () => {
          requestsAborted += 1;
          reject(new Error("aborted"));
        },
        { once: true },
      );
    });
    onStalled?.();
    return stalled;
  };
  const transport = httpTransport(url, { fetch: stalling });
  await sceneList(transport, {});
  const timedOut = await consoleRead(transport, {}, { timeoutMs: 1 }).then(
    () => "resolved",
    failure,
  );
  const controller = new AbortController();
  onStalled = () => controller.abort();
  const abortedInFlight = await consoleRead(transport, {}, { signal: controller.signal }).then(
    () => "resolved",
    failure,
  );
  const result = { timedOut, abortedInFlight, requestsAborted, sent: [...sent] };
  await transport.close();
  return result;
}

/**
 * Over HTTP, a call sent with a session the server does not know (as after the server dropped
 * it): answered 404, so the transport starts a new session and sends the call again.
 */
async function sessionLostOverHttp(url: string): Promise<unknown> {
  const real = globalThis.fetch as unknown as FetchLike;
  const sent: string[] = [];
  let forget = false;
  const forgetting: FetchLike = (target, init) => {
    const message = JSON.parse(init.body ?? "{}") as { method?: string };
    let headers = init.headers;
    if (forget && message.method === "tools/call") {
      forget = false;
      headers = { ...headers, "mcp-session-id": "no-such-session" };
    }
    sent.push(`${message.method ?? ""}${headers["mcp-session-id"] === "no-such-session" ? " (unknown session)" : ""}`);
    return real(target, { ...init, headers });
  };
  const transport = httpTransport(url, { fetch: forgetting });
  await sceneList(transport, {});
  const first = transport.sessionId ?? null;
  forget = true;
  const listed = await sceneList(transport, {});
  const second = transport.sessionId ?? null;
  const result = { listed, newSession: first !== null && second !== null && first !== second, sent: [...sent] };
  await transport.close();
  return result;
}

async function connect(
  kind: string | undefined,
  target: string | undefined,
  project: string | undefined,
): Promise<Connected> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  if (kind === "stdio" && target !== undefined && project !== undefined) {
    env["BURIL_PROJECT"] = project;
    // A command that does not exist: the call rejects with an `Error`, not an envelope.
    const missing = stdioTransport(`${target}-does-not-exist`, ["serve"], { env, warn });
    const refused = await sceneList(missing, {}).then(
      () => "resolved",
      (error: unknown) => ({
        isError: error instanceof Error,
        isBurilToolError: error instanceof BurilToolError,
        message: String(error),
      }),
    );
    const transport = stdioTransport(target, ["serve"], { env, warn });
    return {
      transport,
      serverMetadataHash: () => transport.serverMetadataHash,
      close: () => transport.close(),
      extra: refused,
    };
  }
  if (kind === "sdk-stdio" && target !== undefined && project !== undefined) {
    env["BURIL_PROJECT"] = project;
    const client = new Client({ name: "buril-transport-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: target, args: ["serve"], env }));
    const transport = mcpTransport(client, { warn });
    return {
      transport,
      serverMetadataHash: () => transport.serverMetadataHash,
      close: () => client.close(),
    };
  }
  if (kind === "http" && target !== undefined) {
    const transport = httpTransport(target, { warn });
    return {
      transport,
      serverMetadataHash: () => transport.serverMetadataHash,
      close: () => transport.close(),
      stalled: () => stalledOverHttp(target),
      sessionLost: () => sessionLostOverHttp(target),
    };
  }
  throw new Error("usage: node transport.js http <url> | sdk-stdio|stdio <tools binary> <project>");
}

/** What a rejected call rejected with. */
function failure(error: unknown): unknown {
  if (error instanceof BurilToolError) {
    return {
      isBurilToolError: true,
      tool: error.tool,
      type: error.type,
      error: error.error,
      problems: error.problems,
    };
  }
  return { isBurilToolError: false, text: String(error) };
}

async function main(): Promise<void> {
  const [kind, target, project] = process.argv.slice(2);
  const connected = await connect(kind, target, project);
  const transport = connected.transport;
  const hashBeforeCalls = connected.serverMetadataHash() ?? null;

  const listed = await sceneList(transport, {});
  const opened = await sceneOpen(transport, { path: "Assets/Scenes/Main.scene" });
  const consoleOutput = await consoleRead(transport, { max_count: 5 });
  const progress: Progress[] = [];
  const searched = await assetSearch(
    transport,
    { query: "Player" },
    { onProgress: (p) => progress.push(p) },
  );

  // The server refuses a wrong input: a `BurilToolError` with the server's problems.
  const invalid = await sceneOpen(transport, {
    path: 42 as unknown as string,
  }).then(() => "resolved", failure);

  // An unknown tool.
  const unknown = await callTool(transport, "no_such_tool" as "scene_list", {}).then(
    () => "resolved",
    failure,
  );

  // Aborted before it is sent.
  const early = new AbortController();
  early.abort();
  const abortedEarly = await sceneList(transport, {}, { signal: early.signal }).then(
    () => "resolved",
    failure,
  );

  // Aborted after it started, before any answer can have been read.
  const started = new AbortController();
  const pending = sceneList(transport, {}, { signal: started.signal });
  started.abort();
  const abortedAfterStart = await pending.then(() => "resolved", failure);

  // Still usable afterwards.
  const after = await sceneList(transport, {});

  // A deprecated wire name: the server's warning reaches the transport's `warn`.
  await callTool(transport, "scene_get_hierarchy" as "scene_list_gameobjects", {});

  // Bindings from other metadata draw the server's warning (read from the result's text).
  const stale = await transport.call(
    "scene_list",
    {},
    {
      meta: {
        "buril/metadata": "0123456789abcdef",
        "buril/tool-metadata": sceneOpenTool.metadataHash,
      },
    },
  );

  const stalled = connected.stalled === undefined ? null : await connected.stalled();
  const sessionLost = connected.sessionLost === undefined ? null : await connected.sessionLost();

  const result = {
    metadataHash: METADATA_HASH,
    hashBeforeCalls,
    serverMetadataHash: connected.serverMetadataHash() ?? null,
    listed,
    opened,
    console: consoleOutput,
    searched,
    progress,
    invalid,
    unknown,
    abortedEarly,
    abortedAfterStart,
    after,
    stale,
    warnings,
    stalled,
    sessionLost,
    missingCommand: connected.extra ?? null,
  };
  await connected.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
