import type { Envelope, EnvelopeFailure, EnvelopeSuccess, ErrorType } from "./envelope.js";
import { errorTypes } from "./envelope.js";

/** The `_meta` key of the server's metadata hash, in every `tools/call` and `tools/list` result. */
const METADATA_META = "buril/metadata";

/** The `_meta` key of a failed call's whole envelope, in its `tools/call` result. */
const ENVELOPE_META = "buril/envelope";

/** A JSON object. */
type JsonObject = { readonly [key: string]: unknown };

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isErrorType(value: unknown): value is ErrorType {
  return typeof value === "string" && (errorTypes as readonly string[]).includes(value);
}

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
 * after the first).
 */
export function envelopeFromCallResult(result: unknown): Envelope {
  if (!isJsonObject(result)) {
    return { ok: false, type: "runtime", error: "the server answered tools/call with no result" };
  }
  const blocks = texts(result);
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
    const error = blocks.join("\n");
    return { ok: false, type: "runtime", error: error === "" ? "the tool failed" : error };
  }
  let data: unknown = result["structuredContent"];
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

/**
 * The envelope of a JSON-RPC error answering `tools/call`: a buril server answers an unknown
 * (or disabled) tool with `-32602`, which becomes `not_found`; any other code, `runtime`.
 */
export function envelopeFromJsonRpcError(error: unknown): EnvelopeFailure {
  const object = isJsonObject(error) ? error : {};
  const message = typeof object["message"] === "string" ? object["message"] : "the call failed";
  return { ok: false, type: object["code"] === -32602 ? "not_found" : "runtime", error: message };
}

/** The server's metadata hash in a result's `_meta`, if it has one. */
export function serverMetadataHashOf(result: unknown): string | undefined {
  const meta = isJsonObject(result) ? result["_meta"] : undefined;
  const hash = isJsonObject(meta) ? meta[METADATA_META] : undefined;
  return typeof hash === "string" ? hash : undefined;
}
