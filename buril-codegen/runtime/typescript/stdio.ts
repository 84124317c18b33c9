import type { AbortSignalLike, CallOptions, Envelope, ToolTransport } from "./envelope.js";
import { JsonRpcError } from "./envelope.js";
import {
  envelopeFromCallResult,
  envelopeFromJsonRpcError,
  mcpProgressOf,
  serverMetadataHashOf,
} from "./mcp.js";

/** The MCP protocol version `stdioTransport` asks for (the server may answer with an older one). */
const PROTOCOL_VERSION = "2025-11-25";

/** How `stdioTransport` starts the server. */
export interface StdioTransportOptions {
  /** The server's environment; default: this process's. */
  env?: { readonly [name: string]: string };
  /** The server's working folder; default: this process's. */
  cwd?: string;
  /** Where the server's standard error goes; default: `inherit` (this process's). */
  stderr?: "inherit" | "ignore";
  /** The timeout of every call that does not set its own `timeoutMs`. */
  timeoutMs?: number;
  /** The client's name and version in `initialize`. */
  clientInfo?: { name: string; version: string };
  /** Receives the warnings of successful calls (`callTool` hands them over), such as stale bindings. */
  warn?: (name: string, warnings: readonly string[]) => void;
}

/** A `ToolTransport` over a server process's standard input and output. */
export interface StdioTransport extends ToolTransport {
  /** The server's metadata hash, from its last answer (`undefined` before the first call). */
  readonly serverMetadataHash: string | undefined;
  /** The protocol version the server agreed to, once connected. */
  readonly protocolVersion: string | undefined;
  /** Closes the server's standard input (a buril server then exits) and waits for it to exit. */
  close(): Promise<void>;
}

/** What the transport uses of Node's `ChildProcess`. */
interface ChildLike {
  readonly stdin: {
    write(chunk: string): boolean;
    end(): void;
    on(event: "error", listener: (error: Error) => void): void;
  } | null;
  readonly stdout: {
    setEncoding(encoding: string): void;
    on(event: "data", listener: (chunk: string) => void): void;
  } | null;
  readonly exitCode: number | null;
  on(event: "exit", listener: (code: number | null, signal: string | null) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
}

/** What the transport uses of `node:child_process`. */
interface ChildProcessModule {
  spawn(
    command: string,
    args: readonly string[],
    options: { stdio: readonly string[]; env?: { readonly [name: string]: string }; cwd?: string },
  ): ChildLike;
}

/** What the transport needs of the host beyond ES2022 (Node 18+ has it). */
interface Host {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const host = globalThis as unknown as Host;

/** A JSON-RPC message, as far as the transport reads it. */
interface JsonRpcMessage {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

function isMessage(value: unknown): value is JsonRpcMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `node:child_process`, loaded when first needed (so that the bindings name no Node module). */
async function childProcess(): Promise<ChildProcessModule> {
  const specifier: string = "node:child_process";
  const loaded: unknown = await import(specifier);
  return loaded as ChildProcessModule;
}

/** The `_meta` of a call that sets none. */
const noMeta: object = Object.freeze({});

/** A request waiting for its answer. */
interface Pending {
  /** Settles the request with its answer, through `then` when there is one. */
  resolve(value: unknown): void;
  fail(error: unknown): void;
  then: ((answer: JsonRpcMessage) => unknown) | undefined;
  progress: ((params: { readonly [key: string]: unknown }) => void) | undefined;
}

/** Settles `waiting` with `answer` (what `then` makes of it, when it has one). */
function settleWith(waiting: Pending, answer: JsonRpcMessage): void {
  if (waiting.then === undefined) {
    waiting.resolve(answer);
    return;
  }
  try {
    waiting.resolve(waiting.then(answer));
  } catch (error) {
    waiting.fail(error);
  }
}

/**
 * A transport that starts `command args...` (for example `tools serve`) on the first call and
 * speaks MCP with it over its standard input and output: newline-delimited JSON-RPC, calls
 * multiplexed by request id. Node only.
 *
 * Per call: `onProgress` receives the progress notifications, and an aborted `signal` or a
 * passed `timeoutMs` settles the call at once with a `cancelled` or `timeout` envelope (so
 * `callTool` rejects with a `BurilToolError`) and tells the server (`notifications/cancelled`).
 * A JSON-RPC error for an unknown tool is a `not_found` envelope; a server that cannot start or
 * that exits rejects the calls in flight with an `Error`.
 */
export function stdioTransport(
  command: string,
  args: readonly string[] = [],
  options: StdioTransportOptions = {},
): StdioTransport {
  let nextId = 1;
  let child: ChildLike | undefined;
  let exited: Promise<void> | undefined;
  let connecting: Promise<void> | undefined;
  /** Whether the server runs and answered `initialize`. */
  let ready = false;
  let protocolVersion: string | undefined;
  let serverMetadataHash: string | undefined;
  const pending = new Map<number, Pending>();

  /** Writes one message: an object, or its JSON text already made. */
  const send = (message: object | string): void => {
    if (child?.stdin === null || child?.stdin === undefined) {
      throw new Error(`stdioTransport: ${command} is not running`);
    }
    child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  };

  /**
   * The text of a `tools/call` request after its id, up to its arguments, for one tool and one
   * frozen `_meta` object: made once, since the generated clients send the same frozen `_meta`
   * (the bindings' hashes) with every call of a tool. A `_meta` that could change is written
   * anew each time.
   */
  const callHeads = new Map<string, { readonly meta: object; readonly text: string }>();
  const callLine = (id: number, name: string, input: unknown, meta: object): string => {
    let head = callHeads.get(name);
    if (head?.meta !== meta) {
      head = {
        meta,
        text: `,"method":"tools/call","params":{"name":${JSON.stringify(name)},"_meta":${JSON.stringify(meta)}`,
      };
      if (Object.isFrozen(meta)) {
        callHeads.set(name, head);
      }
    }
    // As `JSON.stringify` would leave out a property whose value has no JSON (`undefined`).
    const args: string | undefined = JSON.stringify(input);
    return `{"jsonrpc":"2.0","id":${id}${head.text}${args === undefined ? "" : `,"arguments":${args}`}}}`;
  };

  const receive = (message: JsonRpcMessage): void => {
    if (typeof message.method === "string") {
      if (message.id !== undefined) {
        // A request of the server's: answer it, so that the server never waits.
        const answer =
          message.method === "ping"
            ? { jsonrpc: "2.0", id: message.id, result: {} }
            : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } };
        send(answer);
      } else if (message.method === "notifications/progress" && isMessage(message.params)) {
        const params = message.params as { readonly [key: string]: unknown };
        const token = params["progressToken"];
        if (typeof token === "number") {
          pending.get(token)?.progress?.(params);
        }
      }
      return;
    }
    if (typeof message.id === "number") {
      const waiting = pending.get(message.id);
      if (waiting !== undefined) {
        pending.delete(message.id);
        settleWith(waiting, message);
      }
    }
  };

  const start = async (): Promise<void> => {
    const { spawn } = await childProcess();
    const spawnOptions: {
      stdio: readonly string[];
      env?: { readonly [name: string]: string };
      cwd?: string;
    } = { stdio: ["pipe", "pipe", options.stderr ?? "inherit"] };
    if (options.env !== undefined) {
      spawnOptions.env = options.env;
    }
    if (options.cwd !== undefined) {
      spawnOptions.cwd = options.cwd;
    }
    const started = spawn(command, args, spawnOptions);
    child = started;
    const gone = (error: Error): void => {
      if (child === started) {
        child = undefined;
        connecting = undefined;
        ready = false;
      }
      for (const waiting of pending.values()) {
        waiting.fail(error);
      }
      pending.clear();
    };
    exited = new Promise<void>((resolve) => {
      started.on("exit", (code, signal) => {
        gone(new Error(`stdioTransport: ${command} exited (${signal ?? String(code)})`));
        resolve();
      });
    });
    started.on("error", (error) => {
      gone(new Error(`stdioTransport: ${command} failed: ${error.message}`));
    });
    // Writing to a server that exited fails here (EPIPE), not in `write`; the exit rejects the
    // calls in flight.
    started.stdin?.on("error", () => undefined);
    let buffer = "";
    started.stdout?.setEncoding("utf8");
    started.stdout?.on("data", (chunk) => {
      buffer += chunk;
      let end = buffer.indexOf("\n");
      while (end >= 0) {
        // JSON.parse allows the whitespace around a message; a blank line parses as nothing.
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let parsed: unknown;
        try {
          parsed = JSON.parse(line) as unknown;
        } catch {
          parsed = undefined;
        }
        if (Array.isArray(parsed)) {
          for (const item of parsed as unknown[]) {
            if (isMessage(item)) {
              receive(item);
            }
          }
        } else if (isMessage(parsed)) {
          receive(parsed);
        }
        end = buffer.indexOf("\n");
      }
    });
  };

  /**
   * Sends the request `message` (an object, or its JSON text) whose id is `id`, and resolves
   * with its answer (through `then`, when given).
   */
  function request(
    id: number,
    message: object | string,
    progress?: (params: { readonly [key: string]: unknown }) => void,
  ): Promise<JsonRpcMessage>;
  function request<T>(
    id: number,
    message: object | string,
    progress: ((params: { readonly [key: string]: unknown }) => void) | undefined,
    then: (answer: JsonRpcMessage) => T,
  ): Promise<T>;
  function request<T>(
    id: number,
    message: object | string,
    progress?: (params: { readonly [key: string]: unknown }) => void,
    then?: (answer: JsonRpcMessage) => T,
  ): Promise<T | JsonRpcMessage> {
    return new Promise<T | JsonRpcMessage>((resolve, reject) => {
      // One shape for every request, with no closure of its own.
      const waiting: Pending = { resolve: resolve as (value: unknown) => void, fail: reject, then, progress };
      pending.set(id, waiting);
      try {
        send(message);
      } catch (error) {
        pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      await start();
      const id = nextId++;
      const answer = await request(id, {
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: options.clientInfo ?? { name: "buril-typescript", version: "1" },
        },
      });
      if (answer.error !== undefined) {
        throw new Error(`stdioTransport: initialize failed: ${JSON.stringify(answer.error)}`);
      }
      const agreed = isMessage(answer.result)
        ? (answer.result as { readonly protocolVersion?: unknown }).protocolVersion
        : undefined;
      protocolVersion = typeof agreed === "string" ? agreed : PROTOCOL_VERSION;
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      ready = true;
    })().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return connecting;
  };

  /** The envelope of the answer to a `tools/call`. */
  const settle = (answer: JsonRpcMessage): Envelope => {
    if (answer.error !== undefined) {
      return envelopeFromJsonRpcError(answer.error);
    }
    serverMetadataHash = serverMetadataHashOf(answer.result) ?? serverMetadataHash;
    return envelopeFromCallResult(answer.result);
  };

  const call = (name: string, input: unknown, callOptions: CallOptions = {}): Promise<Envelope> => {
    const { signal, onProgress } = callOptions;
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    if (signal?.aborted === true) {
      return Promise.resolve({ ok: false, type: "cancelled", error: `${name} was cancelled before it was sent` });
    }
    if (signal === undefined && timeoutMs === undefined && onProgress === undefined && ready) {
      // Connected, and nothing but its answer can end the call: no timer, no listener, no
      // wrapper around the request, whose text is made around the input's.
      const id = nextId++;
      return request(id, callLine(id, name, input, callOptions.meta ?? noMeta), undefined, settle);
    }
    return new Promise<Envelope>((resolve, reject) => {
      let id: number | undefined;
      let settled = false;
      let timer: unknown;
      const finish = (): void => {
        settled = true;
        signal?.removeEventListener("abort", onAbort);
        if (timer !== undefined) {
          host.clearTimeout(timer);
        }
      };
      const stop = (envelope: Envelope, reason: string): void => {
        if (settled) {
          return;
        }
        finish();
        resolve(envelope);
        if (id !== undefined) {
          pending.delete(id);
          try {
            send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } });
          } catch {
            // The server is gone: nothing to cancel.
          }
        }
      };
      const onAbort = (): void => {
        stop({ ok: false, type: "cancelled", error: `${name} was cancelled` }, "cancelled by the client");
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = host.setTimeout(() => {
          stop(
            { ok: false, type: "timeout", error: `${name} did not answer within ${timeoutMs} ms` },
            `timed out after ${timeoutMs} ms on the client`,
          );
        }, timeoutMs);
      }
      const run = async (): Promise<Envelope> => {
        await connect();
        if (settled) {
          return { ok: false, type: "cancelled", error: `${name} was cancelled` };
        }
        id = nextId++;
        const meta: { [key: string]: unknown } = { ...callOptions.meta };
        if (onProgress !== undefined) {
          meta["progressToken"] = id;
        }
        const answer = await request(
          id,
          { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: input, _meta: meta } },
          (params) => {
            const progress = mcpProgressOf(params);
            if (progress !== undefined && !settled) {
              onProgress?.(progress);
            }
          },
        );
        return settle(answer);
      };
      run().then(
        (envelope) => {
          if (!settled) {
            finish();
            resolve(envelope);
          }
        },
        (error: unknown) => {
          if (!settled) {
            finish();
            reject(error);
          }
        },
      );
    });
  };

  /** One request (the server started first if need be): its result, or a `JsonRpcError`. */
  const rpc = async (
    method: string,
    params: object,
    requestOptions: { signal?: AbortSignalLike } = {},
  ): Promise<unknown> => {
    await connect();
    if (requestOptions.signal?.aborted === true) {
      throw new Error(`${method} was cancelled before it was sent`);
    }
    const id = nextId++;
    const answer = await request(id, { jsonrpc: "2.0", id, method, params });
    if (answer.error !== undefined) {
      throw new JsonRpcError(method, answer.error);
    }
    serverMetadataHash = serverMetadataHashOf(answer.result) ?? serverMetadataHash;
    return answer.result;
  };

  const close = async (): Promise<void> => {
    const running = child;
    const done = exited;
    connecting = undefined;
    ready = false;
    if (running === undefined) {
      return;
    }
    running.stdin?.end();
    if (running.exitCode === null) {
      await done;
    }
  };

  const transport: StdioTransport = {
    call,
    request: rpc,
    close,
    get serverMetadataHash() {
      return serverMetadataHash;
    },
    get protocolVersion() {
      return protocolVersion;
    },
  };
  if (options.warn !== undefined) {
    transport.warn = options.warn;
  }
  return transport;
}
