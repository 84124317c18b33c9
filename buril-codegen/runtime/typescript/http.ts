import type { AbortSignalLike, CallOptions, Envelope, ToolTransport } from "./envelope.js";
import { JsonRpcError } from "./envelope.js";
import {
  envelopeFromCallResult,
  envelopeFromJsonRpcError,
  mcpProgressOf,
  serverMetadataHashOf,
} from "./mcp.js";

/** The MCP protocol version `httpTransport` asks for (the server may answer with an older one). */
export const MCP_PROTOCOL_VERSION = "2025-11-25";

/** What `httpTransport` passes to `fetch` (a subset of `RequestInit`). */
export interface FetchInit {
  method: string;
  headers: { [name: string]: string };
  body?: string;
  signal?: AbortSignalLike;
}

/** What `httpTransport` reads of a `fetch` response (a subset of `Response`). */
export interface FetchResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: {
    getReader(): {
      read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
      cancel(reason?: unknown): Promise<void>;
    };
  } | null;
  text(): Promise<string>;
}

/** A `fetch` function: the global one of browsers, Node 18+, Deno, Bun and edge runtimes fits. */
export type FetchLike = {
  bivariant(url: string, init: FetchInit): Promise<FetchResponseLike>;
}["bivariant"];

/** How `httpTransport` connects. */
export interface HttpTransportOptions {
  /** Headers sent with every request (for example `authorization`). */
  headers?: { readonly [name: string]: string };
  /** The timeout of every call that does not set its own `timeoutMs`. */
  timeoutMs?: number;
  /** The `fetch` to use; default: the global one. */
  fetch?: FetchLike;
  /** The client's name and version in `initialize`. */
  clientInfo?: { name: string; version: string };
  /**
   * The client's capabilities in `initialize` (default: none). A client that answers its
   * tasks' questions itself (through `tasks/update`, or a page that shows them) declares
   * `{ elicitation: { form: {} } }`, without which a tool's questions are refused.
   */
  capabilities?: { readonly [name: string]: unknown };
  /** Receives the warnings of successful calls (`callTool` hands them over), such as stale bindings. */
  warn?: (name: string, warnings: readonly string[]) => void;
}

/** A `ToolTransport` over MCP's Streamable HTTP, with what the server said of itself. */
export interface HttpTransport extends ToolTransport {
  /** The server's metadata hash, from its last answer (`undefined` before the first call). */
  readonly serverMetadataHash: string | undefined;
  /** The session the server gave (`Mcp-Session-Id`), once connected. */
  readonly sessionId: string | undefined;
  /** The protocol version the server agreed to, once connected. */
  readonly protocolVersion: string | undefined;
  /** Ends the session (`DELETE`); a later call starts a new one. */
  close(): Promise<void>;
}

/** A JSON-RPC message, as far as the transport reads it. */
interface JsonRpcMessage {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** What the transport needs of the host beyond ES2022 (browsers, Node 18+ and edge runtimes have it). */
interface Host {
  readonly fetch?: FetchLike;
  readonly AbortController: new () => {
    readonly signal: AbortSignalLike;
    abort(reason?: unknown): void;
  };
  readonly TextDecoder: new () => { decode(input?: Uint8Array, options?: { stream?: boolean }): string };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const host = globalThis as unknown as Host;

/** A request was refused because the server no longer knows its session (HTTP 404). */
class SessionGone extends Error {
  constructor() {
    super("httpTransport: the server ended the session");
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

function isMessage(value: unknown): value is JsonRpcMessage {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads one Server-Sent Events stream, handing each message (the `data:` of an event, parsed as
 * JSON) to `each` as it arrives, until `each` answers `true` or the stream ends. A loop over
 * the body's reader, not an async generator: one `await` per chunk, none per event.
 */
async function readEvents(response: FetchResponseLike, each: (message: unknown) => boolean): Promise<void> {
  if (response.body === null) {
    return;
  }
  const reader = response.body.getReader();
  const decoder = new host.TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      buffer += text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
      let end = buffer.indexOf("\n\n");
      while (end >= 0 || (done && buffer.trim() !== "")) {
        const block = end >= 0 ? buffer.slice(0, end) : buffer;
        buffer = end >= 0 ? buffer.slice(end + 2) : "";
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("data:")) {
            const part = line.slice(line.startsWith("data: ") ? 6 : 5);
            data = data === "" ? part : `${data}\n${part}`;
          }
        }
        if (data.trim() !== "" && each(JSON.parse(data) as unknown)) {
          return;
        }
        end = buffer.indexOf("\n\n");
      }
      if (done) {
        return;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * A transport calling the tools of the MCP server at `url` (for example
 * `http://127.0.0.1:8080/mcp`) over Streamable HTTP, with `fetch` and nothing else: for browsers,
 * Node 18+ and edge runtimes.
 *
 * It connects on the first call (`initialize`, then `notifications/initialized`), keeps the
 * session (`Mcp-Session-Id`) and the agreed `MCP-Protocol-Version`, starts a new session and
 * sends the call again when the server answers 404 (a session it no longer knows), and reads
 * JSON and Server-Sent Events answers alike. Per call: `onProgress` receives the progress notifications,
 * and an aborted `signal` or a passed `timeoutMs` settles the call at once with a `cancelled` or
 * `timeout` envelope (so `callTool` rejects with a `BurilToolError`) and tells the server
 * (`notifications/cancelled`). A JSON-RPC error for an unknown tool is a `not_found` envelope;
 * network and HTTP failures reject with an `Error`.
 */
export function httpTransport(url: string, options: HttpTransportOptions = {}): HttpTransport {
  const fetchImpl = options.fetch ?? host.fetch;
  let nextId = 1;
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let serverMetadataHash: string | undefined;
  let connecting: Promise<void> | undefined;

  const headers = (): { [name: string]: string } => {
    const all: { [name: string]: string } = {
      ...options.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (sessionId !== undefined) {
      all["mcp-session-id"] = sessionId;
    }
    if (protocolVersion !== undefined) {
      all["mcp-protocol-version"] = protocolVersion;
    }
    return all;
  };

  /**
   * Posts `message`; resolves with the answer whose id is `id` (`undefined` for a notification),
   * handing every other message of the answer to `other`.
   */
  const post = async (
    message: object,
    id: number | undefined,
    signal: AbortSignalLike | undefined,
    other: (message: JsonRpcMessage) => void,
  ): Promise<JsonRpcMessage | undefined> => {
    if (fetchImpl === undefined) {
      throw new Error("httpTransport: there is no global fetch here; pass options.fetch");
    }
    const init: FetchInit = { method: "POST", headers: headers(), body: JSON.stringify(message) };
    if (signal !== undefined) {
      init.signal = signal;
    }
    const sent = sessionId;
    const response = await fetchImpl(url, init);
    const session = response.headers.get("mcp-session-id");
    if (session !== null) {
      sessionId = session;
    }
    if (response.status === 404 && sent !== undefined) {
      await response.text().catch(() => "");
      if (sessionId === sent) {
        // The server no longer knows the session: the next request starts a new one.
        sessionId = undefined;
        protocolVersion = undefined;
        connecting = undefined;
      }
      throw new SessionGone();
    }
    if (response.status < 200 || response.status > 299) {
      const text = await response.text().catch(() => "");
      throw new Error(`httpTransport: ${url} answered HTTP ${response.status}: ${text}`.trim());
    }
    if (id === undefined) {
      await response.text().catch(() => "");
      return undefined;
    }
    let answer: JsonRpcMessage | undefined;
    const each = (parsed: unknown): boolean => {
      for (const item of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
        if (!isMessage(item)) {
          continue;
        }
        if (item.id === id && item.method === undefined) {
          answer = item;
          return true;
        }
        other(item);
      }
      return false;
    };
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream")) {
      await readEvents(response, each);
    } else {
      each(JSON.parse(await response.text()) as unknown);
    }
    if (answer === undefined) {
      throw new Error(`httpTransport: ${url} ended its answer to request ${id} without one`);
    }
    return answer;
  };

  /** The answer to the request `method` (its `result`), or an `Error` for a JSON-RPC error. */
  const request = async (method: string, params: object): Promise<unknown> => {
    const id = nextId++;
    const answer = await post({ jsonrpc: "2.0", id, method, params }, id, undefined, () => {});
    if (answer?.error !== undefined) {
      throw new Error(`httpTransport: ${method} failed: ${JSON.stringify(answer.error)}`);
    }
    return answer?.result;
  };

  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      const result = await request("initialize", {
        protocolVersion: MCP_PROTOCOL_VERSION,
        capabilities: options.capabilities ?? {},
        clientInfo: options.clientInfo ?? { name: "buril-typescript", version: "1" },
      });
      const agreed = isMessage(result)
        ? (result as { readonly protocolVersion?: unknown }).protocolVersion
        : undefined;
      protocolVersion = typeof agreed === "string" ? agreed : MCP_PROTOCOL_VERSION;
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, undefined, undefined, () => {});
    })().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return connecting;
  };

  /** Tells the server that the request `id` was given up (best effort). */
  const cancel = (id: number, reason: string): void => {
    const message = {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id, reason },
    };
    post(message, undefined, undefined, () => {}).catch(() => undefined);
  };

  const call = (name: string, input: unknown, callOptions: CallOptions = {}): Promise<Envelope> => {
    const { signal, onProgress } = callOptions;
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    if (signal?.aborted === true) {
      return Promise.resolve({ ok: false, type: "cancelled", error: `${name} was cancelled before it was sent` });
    }
    return new Promise<Envelope>((resolve, reject) => {
      // Only a signal or a timeout can end the call before its answer: then the request's
      // fetch is aborted too (an abort signal on every fetch costs even when never used).
      const controller =
        signal !== undefined || timeoutMs !== undefined ? new host.AbortController() : undefined;
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
        controller?.abort();
        if (id !== undefined) {
          cancel(id, reason);
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
        const message = {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name, arguments: input, _meta: meta },
        };
        const token = id;
        const onMessage = (other: JsonRpcMessage): void => {
          if (other.method !== "notifications/progress" || !isMessage(other.params)) {
            return;
          }
          const params = other.params as { readonly [key: string]: unknown };
          const progress = mcpProgressOf(params);
          if (params["progressToken"] === token && progress !== undefined && !settled) {
            onProgress?.(progress);
          }
        };
        let answer: JsonRpcMessage | undefined;
        try {
          answer = await post(message, id, controller?.signal, onMessage);
        } catch (error) {
          if (!(error instanceof SessionGone)) {
            throw error;
          }
          // A new session, and the call once more (the server never saw it).
          await connect();
          answer = await post(message, id, controller?.signal, onMessage);
        }
        if (answer === undefined) {
          throw new Error(`httpTransport: no answer to ${name}`);
        }
        if (answer.error !== undefined) {
          return envelopeFromJsonRpcError(answer.error);
        }
        serverMetadataHash = serverMetadataHashOf(answer.result) ?? serverMetadataHash;
        return envelopeFromCallResult(answer.result);
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

  /** One request of the session (made first if need be): its result, or a `JsonRpcError`. */
  const send = async (
    method: string,
    params: object,
    requestOptions: { signal?: AbortSignalLike } = {},
  ): Promise<unknown> => {
    await connect();
    const message = { jsonrpc: "2.0", id: nextId++, method, params };
    let answer: JsonRpcMessage | undefined;
    try {
      answer = await post(message, message.id, requestOptions.signal, () => {});
    } catch (error) {
      if (!(error instanceof SessionGone)) {
        throw error;
      }
      await connect();
      answer = await post(message, message.id, requestOptions.signal, () => {});
    }
    if (answer?.error !== undefined) {
      throw new JsonRpcError(method, answer.error);
    }
    serverMetadataHash = serverMetadataHashOf(answer?.result) ?? serverMetadataHash;
    return answer?.result;
  };

  const close = async (): Promise<void> => {
    const session = sessionId;
    connecting = undefined;
    sessionId = undefined;
    protocolVersion = undefined;
    if (session !== undefined && fetchImpl !== undefined) {
      const response = await fetchImpl(url, {
        method: "DELETE",
        headers: { ...options.headers, "mcp-session-id": session },
      });
      await response.text().catch(() => "");
    }
  };

  const transport: HttpTransport = {
    call,
    request: send,
    close,
    get serverMetadataHash() {
      return serverMetadataHash;
    },
    get sessionId() {
      return sessionId;
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
