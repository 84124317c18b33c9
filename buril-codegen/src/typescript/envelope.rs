//! `envelope.ts`: the wire envelope, the transport interface and the error a failed call
//! rejects with. The same for every API.

use super::layout::write_list;
use crate::writer::SourceWriter;

/// The names `envelope.ts` exports.
pub(crate) const EXPORTS: &[&str] = &[
    "ErrorType",
    "errorTypes",
    "Problem",
    "EnvelopeSuccess",
    "EnvelopeFailure",
    "Envelope",
    "ToolTransport",
    "BurilToolError",
];

/// The failure kinds of `buril::ErrorKind`, with their meaning.
const ERROR_TYPES: &[(&str, &str)] = &[
    (
        "validation",
        "The input does not match the tool's schema, or the tool rejected it: retry with \
         corrected input.",
    ),
    ("runtime", "The tool ran and failed."),
    ("panic", "The tool panicked; the host keeps serving."),
    ("not_found", "No tool has that name."),
    (
        "disabled",
        "The tool exists but the host's policy does not allow it.",
    ),
    ("timeout", "The call did not finish within its timeout."),
    ("cancelled", "The call was cancelled."),
];

/// The body of `envelope.ts`, after the header. Plain text: nothing in it comes from the API.
const BODY: &str = r#"/** One thing wrong with a call's input. */
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
"#;

/// Writes the body of `envelope.ts` (after the header).
pub(crate) fn write(w: &mut SourceWriter) {
    w.line("/** Why a call failed: the `type` of a failed envelope. */");
    w.line("export type ErrorType =");
    w.indent();
    for (i, (name, meaning)) in ERROR_TYPES.iter().enumerate() {
        w.line_fmt(format_args!("/** {meaning} */"));
        let end = if i + 1 == ERROR_TYPES.len() { ";" } else { "" };
        w.line_fmt(format_args!("| \"{name}\"{end}"));
    }
    w.dedent();
    w.blank();
    let names: Vec<String> = ERROR_TYPES
        .iter()
        .map(|(name, _)| format!("\"{name}\""))
        .collect();
    w.line("/** Every {@link ErrorType}. */");
    write_list(w, "export const errorTypes = [", &names, "] as const;");
    w.blank();
    for line in BODY.lines() {
        w.line(line);
    }
}

#[cfg(test)]
mod error_kinds {
    use super::ERROR_TYPES;

    #[test]
    fn every_error_kind_of_the_runtime_is_listed() {
        let runtime: Vec<&str> = buril::ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        let listed: Vec<&str> = ERROR_TYPES.iter().map(|(name, _)| *name).collect();
        assert_eq!(listed, runtime);
    }
}
