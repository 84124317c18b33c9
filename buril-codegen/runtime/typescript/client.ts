import { BurilToolError } from "./envelope.js";
import type { ToolTransport } from "./envelope.js";
import type { ToolMap } from "./tools.js";

/**
 * Calls the tool `name` through `transport`: resolves with the tool's output, or rejects with a
 * {@link BurilToolError} when the envelope says `ok: false`. Warnings of a successful call go to
 * `transport.warn`, when it is set.
 */
export async function callTool<K extends keyof ToolMap>(
  transport: ToolTransport,
  name: K,
  input: ToolMap[K]["input"],
): Promise<ToolMap[K]["output"]> {
  const envelope = await transport.call(name, input);
  if (typeof envelope !== "object" || envelope === null || typeof envelope.ok !== "boolean") {
    throw new TypeError(`${name}: the transport answered something that is not an envelope`);
  }
  if (!envelope.ok) {
    throw new BurilToolError(name, envelope);
  }
  if (envelope.warnings !== undefined && envelope.warnings.length > 0) {
    transport.warn?.(name, envelope.warnings);
  }
  return envelope.data as ToolMap[K]["output"];
}
