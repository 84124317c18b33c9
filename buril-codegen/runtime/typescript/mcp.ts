import type {
  AbortSignalLike,
  CallOptions,
  Envelope,
  EnvelopeFailure,
  EnvelopeSuccess,
  ErrorType,
  Progress,
  ToolTransport,
} from "./envelope.js";
import { JsonRpcError, errorTypes } from "./envelope.js";

/** The `_meta` key of the server's metadata hash, in every `tools/call` and `tools/list` result. */
const METADATA_META = "buril/metadata";

/** The `_meta` key of a failed call's whole envelope, in its `tools/call` result. */
const ENVELOPE_META = "buril/envelope";

/** The `_meta` key of a successful call's warnings, in its `tools/call` result. */
const WARNINGS_META = "buril/warnings";

/**
 * The `_meta` key that says a result holds a tool's content blocks: `"content"` (they are the
 * result's content, before the warnings) or `"rich"` (the first text block is the JSON of the
 * structured data, the blocks follow it).
 */
const RESULT_META = "buril/result";

/** A JSON object. */
type JsonObject = { readonly [key: string]: unknown };

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrorType(value: unknown): value is ErrorType {
  return typeof value === "string" && (errorTypes as readonly string[]).includes(value);
}

/**
 * Whether these bindings are for another MCP server than buril's (`codegen --from-server`):
 * its answers are read as buril's hub reads them (content blocks as `{content}`, `isError` as
 * a `tool` failure).
 */
const FROM_OTHER_SERVER: boolean = false;

/** The texts of a result's `text` content blocks, in order. */
function texts(result: JsonObject): string[] {
  const content = result["content"];
  if (!Array.isArray(content)) {
    return [];
  }
  const found: string[] = [];
  for (const block of content as unknown[]) {
    if (isJsonObject(block) && block["type"] === "text" && typeof block["text"] === "string") {
      found.push(block["text"]);
    }
  }
  return found;
}

/**
 * The envelope of an MCP `tools/call` result from a buril server: on failure (`isError`) the
 * envelope the server put in `_meta["buril/envelope"]`; on success the data (the result's
 * `structuredContent`, else its first text block as JSON) with the warnings (the text blocks
 * after the first). A tool that returns content blocks has `{content}` as its data, and a rich
 * one `{structured, content}`, as `_meta["buril/result"]` says.
 */
export function envelopeFromCallResult(result: unknown): Envelope {
  if (!isJsonObject(result)) {
    return { ok: false, type: "runtime", error: "the server answered tools/call with no result" };
  }
  if (result["isError"] === true) {
    const meta = result["_meta"];
    const envelope = isJsonObject(meta) ? meta[ENVELOPE_META] : undefined;
    if (
      isJsonObject(envelope) &&
      envelope["ok"] === false &&
      isErrorType(envelope["type"]) &&
      typeof envelope["error"] === "string"
    ) {
      return envelope as unknown as EnvelopeFailure;
    }
    const error = texts(result).join("\n");
    // Another server than buril's says no more than its text: a failure of the tool's own.
    const type = FROM_OTHER_SERVER ? "tool" : "runtime";
    return { ok: false, type, error: error === "" ? "the tool failed" : error };
  }
  const meta = result["_meta"];
  const kind = isJsonObject(meta) ? meta[RESULT_META] : undefined;
  const content = result["content"];
  if ((kind === "content" || kind === "rich") && Array.isArray(content)) {
    return contentEnvelope(content as unknown[], kind, isJsonObject(meta) ? meta : {});
  }
  let data: unknown = result["structuredContent"];
  if (FROM_OTHER_SERVER && data === undefined && Array.isArray(content)) {
    // Another server's content blocks, as buril's hub answers them: the data is `{content}`.
    return { ok: true, data: { content } };
  }
  if (data !== undefined && (!Array.isArray(content) || content.length < 2)) {
    // Structured data and at most one block, its text: no warnings (most answers).
    return { ok: true, data: data ?? null };
  }
  const blocks = texts(result);
  if (data === undefined && blocks[0] !== undefined) {
    try {
      data = JSON.parse(blocks[0]) as unknown;
    } catch {
      data = blocks[0];
    }
  }
  const success: EnvelopeSuccess = { ok: true, data: data ?? null };
  if (blocks.length > 1) {
    success.warnings = blocks.slice(1);
  }
  return success;
}

/** The envelope of a tool's content blocks (and, for a rich tool, its structured data). */
function contentEnvelope(
  content: unknown[],
  kind: "content" | "rich",
  meta: JsonObject,
): EnvelopeSuccess {
  const listed = meta[WARNINGS_META];
  const warnings = Array.isArray(listed)
    ? listed.filter((w): w is string => typeof w === "string")
    : [];
  const blocks = content.slice(0, content.length - warnings.length);
  let data: { [key: string]: unknown } = { content: blocks };
  if (kind === "rich") {
    const first = blocks[0];
    let structured: unknown = null;
    if (isJsonObject(first) && typeof first["text"] === "string") {
      try {
        structured = JSON.parse(first["text"]) as unknown;
      } catch {
        structured = first["text"];
      }
    }
    data = { structured, content: blocks.slice(1) };
  }
  const success: EnvelopeSuccess = { ok: true, data };
  if (warnings.length > 0) {
    success.warnings = warnings;
  }
  return success;
}

/**
 * The envelope of a JSON-RPC error answering `tools/call`: a buril server answers an unknown
 * (or disabled) tool with `-32602`, which becomes `not_found`; any other code, `runtime`.
 */
export function envelopeFromJsonRpcError(error: unknown): EnvelopeFailure {
  const object = isJsonObject(error) ? error : {};
  const message = typeof object["message"] === "string" ? object["message"] : "the call failed";
  return { ok: false, type: object["code"] === -32602 ? "not_found" : "runtime", error: message };
}

/** The progress in the params of a `notifications/progress` message, if they hold one. */
export function mcpProgressOf(params: { readonly [key: string]: unknown }): Progress | undefined {
  const progress = params["progress"];
  if (typeof progress !== "number") {
    return undefined;
  }
  const found: Progress = { progress };
  const total = params["total"];
  if (typeof total === "number") {
    found.total = total;
  }
  const message = params["message"];
  if (typeof message === "string") {
    found.message = message;
  }
  return found;
}

/** The server's metadata hash in a result's `_meta`, if it has one. */
export function serverMetadataHashOf(result: unknown): string | undefined {
  const meta = isJsonObject(result) ? result["_meta"] : undefined;
  const hash = isJsonObject(meta) ? meta[METADATA_META] : undefined;
  return typeof hash === "string" ? hash : undefined;
}

/** A progress notification as an MCP client library hands it over. */
export interface McpProgressLike {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** The per-request options of an MCP client's `callTool` (the SDK's `RequestOptions`). */
export interface McpRequestOptionsLike {
  signal?: AbortSignalLike;
  timeout?: number;
  onprogress?: (progress: McpProgressLike) => void;
}

/**
 * What `mcpTransport` needs of a connected `Client` of `@modelcontextprotocol/sdk` (1.x): its
 * `callTool`. Written out here, so that the SDK stays a peer dependency and these bindings import
 * nothing from it.
 */
export interface McpClientLike {
  callTool(
    params: {
      name: string;
      arguments?: { [key: string]: unknown };
      _meta?: { [key: string]: unknown };
    },
    resultSchema?: undefined,
    options?: McpRequestOptionsLike,
  ): Promise<unknown>;
}

/** A `ToolTransport` over an MCP client, with the server's metadata hash from its last answer. */
export interface McpTransport extends ToolTransport {
  /** The server's metadata hash, from its last answer (`undefined` before the first call). */
  readonly serverMetadataHash: string | undefined;
}

/** Whether `signal` is aborted now (a function, so that no earlier check narrows it). */
function isAborted(signal: AbortSignalLike | undefined): boolean {
  return signal?.aborted === true;
}

/** The JSON-RPC code the SDK rejects a request with when its timeout passes. */
const REQUEST_TIMEOUT = -32001;

/**
 * A transport over a connected MCP client (`Client` of `@modelcontextprotocol/sdk` 1.x, over
 * any of its transports): `tools/call` with the `_meta` of `callTool` (the metadata hashes),
 * `onProgress` as the SDK's `onprogress`, `signal` and `timeoutMs` as its `signal` and `timeout`.
 * An aborted call answers a `cancelled` envelope and a timed-out one a `timeout` envelope (the SDK
 * tells the server with `notifications/cancelled`); a JSON-RPC error for an unknown tool is a
 * `not_found` envelope; anything else the client rejects with is rethrown.
 */
export function mcpTransport(
  client: McpClientLike,
  options: {
    /** Receives the warnings of successful calls (`callTool` hands them over), such as stale bindings. */
    warn?: (name: string, warnings: readonly string[]) => void;
    /**
     * The SDK's `ResultSchema` (from `@modelcontextprotocol/sdk/types.js`): with it the
     * transport has `request`, so that `startTask` can start, poll and cancel tasks through
     * the client (the SDK reads answers with a schema, and these bindings import nothing
     * from it).
     */
    resultSchema?: unknown;
  } = {},
): McpTransport {
  let serverMetadataHash: string | undefined;
  const call = async (name: string, input: unknown, callOptions: CallOptions = {}): Promise<Envelope> => {
    const { signal, onProgress, timeoutMs } = callOptions;
    if (signal?.aborted === true) {
      return { ok: false, type: "cancelled", error: `${name} was cancelled before it was sent` };
    }
    const request: McpRequestOptionsLike = {};
    if (signal !== undefined) {
      request.signal = signal;
    }
    if (timeoutMs !== undefined) {
      request.timeout = timeoutMs;
    }
    if (onProgress !== undefined) {
      request.onprogress = (p) => {
        const progress: Progress = { progress: p.progress };
        if (p.total !== undefined) {
          progress.total = p.total;
        }
        if (p.message !== undefined) {
          progress.message = p.message;
        }
        onProgress(progress);
      };
    }
    const params: {
      name: string;
      arguments?: { [key: string]: unknown };
      _meta?: { [key: string]: unknown };
    } = { name, _meta: { ...callOptions.meta } };
    if (isJsonObject(input)) {
      params.arguments = input;
    }
    let result: unknown;
    try {
      result = await client.callTool(params, undefined, request);
    } catch (error) {
      if (isAborted(signal)) {
        return { ok: false, type: "cancelled", error: `${name} was cancelled` };
      }
      const code = isJsonObject(error) ? error["code"] : undefined;
      if (code === REQUEST_TIMEOUT) {
        return { ok: false, type: "timeout", error: `${name} did not answer within ${timeoutMs ?? 0} ms` };
      }
      if (typeof code === "number" && code === -32602) {
        return envelopeFromJsonRpcError(error);
      }
      throw error;
    }
    serverMetadataHash = serverMetadataHashOf(result) ?? serverMetadataHash;
    return envelopeFromCallResult(result);
  };
  const transport: McpTransport = {
    call,
    get serverMetadataHash() {
      return serverMetadataHash;
    },
  };
  // The SDK's `request` (generic over its schemas, so not part of `McpClientLike`).
  const sdk = client as unknown as {
    request?: (request: { method: string; params?: object }, schema: unknown, options?: McpRequestOptionsLike) => Promise<unknown>;
  };
  const send = sdk.request?.bind(client);
  const resultSchema = options.resultSchema;
  if (send !== undefined && resultSchema !== undefined) {
    transport.request = async (method, params, requestOptions = {}) => {
      const sent: McpRequestOptionsLike = {};
      if (requestOptions.signal !== undefined) {
        sent.signal = requestOptions.signal;
      }
      try {
        const result = await send({ method, params }, resultSchema, sent);
        serverMetadataHash = serverMetadataHashOf(result) ?? serverMetadataHash;
        return result;
      } catch (error) {
        const code = isJsonObject(error) ? error["code"] : undefined;
        if (typeof code === "number") {
          const message = error instanceof Error ? error.message : String(error);
          throw new JsonRpcError(method, { code, message, data: isJsonObject(error) ? error["data"] : undefined });
        }
        throw error;
      }
    };
  }
  if (options.warn !== undefined) {
    transport.warn = options.warn;
  }
  return transport;
}
