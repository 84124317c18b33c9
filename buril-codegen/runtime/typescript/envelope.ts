/** Why a call failed: the `type` of a failed envelope. */
export type ErrorType =
  /** The input does not match the tool's schema, or the tool rejected it: retry with corrected input. */
  | "validation"
  /** The tool ran and failed. */
  | "runtime"
  /** The tool panicked; the host keeps serving. */
  | "panic"
  /** No tool has that name. */
  | "not_found"
  /** The tool exists but the host's policy does not allow it. */
  | "disabled"
  /** The call did not finish within its timeout. */
  | "timeout"
  /** The call was cancelled. */
  | "cancelled"
  /** A rate or concurrency limit refused the call (the message says when to retry); nothing ran. */
  | "limited"
  /** The tool's server (an external MCP server the host serves) cannot answer now; nothing ran. */
  | "unavailable"
  /** The tool ran on another MCP server and reported a failure of its own (its `isError`). */
  | "tool";

/** Every {@link ErrorType}. */
export const errorTypes = [
  "validation",
  "runtime",
  "panic",
  "not_found",
  "disabled",
  "timeout",
  "cancelled",
  "limited",
  "unavailable",
  "tool",
] as const;

/** One thing wrong with a call's input. */
export interface Problem {
  /** A JSON pointer into the input (`""` is the input itself, `/path` a property). */
  path: string;
  /** What is wrong, in words a model can act on. */
  message: string;
}

/** The envelope of a successful call. */
export interface EnvelopeSuccess {
  ok: true;
  /** The tool's output. */
  data: unknown;
  /** Warnings reported with the result, such as the use of a deprecated tool name. */
  warnings?: string[];
}

/** The envelope of a failed call. */
export interface EnvelopeFailure {
  ok: false;
  /** Why the call failed. */
  type: ErrorType;
  /** The message. */
  error: string;
  /** Every problem found in the input (validation failures). */
  problems?: Problem[];
  /** Tool names the caller may have meant (unknown tools). */
  suggestions?: string[];
  /** Warnings reported with the result. */
  warnings?: string[];
}

/**
 * What every call answers with: `{"ok": true, "data": ...}` or
 * `{"ok": false, "type": ..., "error": ...}`.
 */
export type Envelope = EnvelopeSuccess | EnvelopeFailure;

/** A progress notification of a call in flight (MCP's `notifications/progress`). */
export interface Progress {
  /** How far the call got; grows with every notification. */
  progress: number;
  /** The total, when the tool knows it. */
  total?: number;
  /** What the tool is doing. */
  message?: string;
}

/**
 * What a call needs of an `AbortSignal` (the DOM's and Node's both fit); declared here so that
 * the bindings compile without the DOM or Node's types.
 */
export interface AbortSignalLike {
  /** Whether the call was aborted. */
  readonly aborted: boolean;
  /** Why, once aborted. */
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** How one call is made: every field is optional, and a transport may ignore those it cannot honour. */
export interface CallOptions {
  /** Aborts the call: it rejects, and the transport tells the server (`notifications/cancelled`). */
  signal?: AbortSignalLike;
  /** Receives the call's progress notifications. */
  onProgress?: (progress: Progress) => void;
  /** Gives up after this many milliseconds: the call rejects as if aborted. */
  timeoutMs?: number;
  /**
   * The `_meta` of the `tools/call` request. `callTool` sets `buril/metadata` (the bindings'
   * metadata hash) and `buril/tool-metadata` (the called tool's) over what the caller gives.
   */
  meta?: { readonly [key: string]: unknown };
}

/**
 * How calls reach the tools: a process, an HTTP endpoint, an MCP client, an in-memory
 * dispatcher. The typed functions of `client.ts` call through it. A transport written for
 * `call(name, input)` alone still fits: the options are extra.
 */
export interface ToolTransport {
  /** Calls the tool `name` with `input` and resolves with its envelope, failures included. */
  call(name: string, input: unknown, options?: CallOptions): Promise<Envelope>;
  /** Receives the warnings of a successful call (for example the use of a deprecated name). */
  warn?(name: string, warnings: readonly string[]): void;
  /**
   * Sends one JSON-RPC request and resolves with its `result`; rejects with a
   * {@link JsonRpcError} when the server answers an error. What task handles (`startTask`)
   * start, poll and cancel tasks with; the bindings' transports all have it.
   */
  request?(method: string, params: object, options?: { signal?: AbortSignalLike }): Promise<unknown>;
}

/** A JSON-RPC error the server answered a request with. */
export class JsonRpcError extends Error {
  override name = "JsonRpcError";
  /** The JSON-RPC code (`-32602` invalid params, `-32021` a missing client capability, ...). */
  readonly code: number;
  /** The error's `data`, when it has one. */
  readonly data: unknown;

  /** The error for the answer `error` (a JSON-RPC error object) to the request `method`. */
  constructor(method: string, error: unknown) {
    const fields: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown } =
      typeof error === "object" && error !== null ? error : {};
    super(`${method} failed (${String(fields.code)}): ${String(fields.message)}`);
    Object.setPrototypeOf(this, new.target.prototype);
    this.code = typeof fields.code === "number" ? fields.code : -32603;
    this.data = fields.data;
  }
}

/** The error a call rejects with when its envelope says `ok: false`. */
export class BurilToolError extends Error {
  override name = "BurilToolError";
  /** The tool that was called. */
  readonly tool: string;
  /** Why the call failed. */
  readonly type: ErrorType;
  /** The message of the envelope. */
  readonly error: string;
  /** Every problem found in the input (validation failures; otherwise empty). */
  readonly problems: readonly Problem[];
  /** Tool names the caller may have meant (unknown tools; otherwise empty). */
  readonly suggestions: readonly string[];
  /** Warnings reported with the failure. */
  readonly warnings: readonly string[];

  /** The error for the failed call of `tool` that answered `failure`. */
  constructor(tool: string, failure: EnvelopeFailure) {
    super(`${tool} failed (${failure.type}): ${failure.error}`);
    Object.setPrototypeOf(this, new.target.prototype);
    this.tool = tool;
    this.type = failure.type;
    this.error = failure.error;
    this.problems = failure.problems ?? [];
    this.suggestions = failure.suggestions ?? [];
    this.warnings = failure.warnings ?? [];
  }
}
