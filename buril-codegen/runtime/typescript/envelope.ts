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
  | "cancelled";

/** Every {@link ErrorType}. */
export const errorTypes = [
  "validation",
  "runtime",
  "panic",
  "not_found",
  "disabled",
  "timeout",
  "cancelled",
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

/**
 * How calls reach the tools: a process, an HTTP endpoint, an MCP client, an in-memory
 * dispatcher. The typed functions of `client.ts` call through it.
 */
export interface ToolTransport {
  /** Calls the tool `name` with `input` and resolves with its envelope, failures included. */
  call(name: string, input: unknown): Promise<Envelope>;
  /** Receives the warnings of a successful call (for example the use of a deprecated name). */
  warn?(name: string, warnings: readonly string[]): void;
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
