// The cancelled call of the cancellation programs (`cancel.ts`, `cancel_stdio.ts`).

import { BurilToolError, assetSearch } from "./typescript/index.js";
import type { ToolTransport } from "./typescript/index.js";

/** How the call ended: a `BurilToolError`'s type, or what else it rejected or resolved with. */
export type Rejection = string | { isBurilToolError: true; type: string } | { isBurilToolError: false; text: string };

/**
 * Calls `asset_search` over `Assets/Blocking` and aborts it on the progress report naming
 * `a.fifo` (the tool is then blocked reading it); answers the progress messages seen and how
 * the call ended.
 */
export async function searchAndAbort(transport: ToolTransport): Promise<{ progress: (string | null)[]; rejected: Rejection }> {
  const controller = new AbortController();
  const progress: (string | null)[] = [];
  const rejected = await assetSearch(
    transport,
    { query: "anything", folder: "Assets/Blocking" },
    {
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p.message ?? null);
        // The tool is now reading the named pipe, and blocked there.
        if (p.message?.endsWith("a.fifo") === true) {
          controller.abort();
        }
      },
    },
  ).then(
    (): Rejection => "resolved",
    (error: unknown): Rejection =>
      error instanceof BurilToolError ? { isBurilToolError: true, type: error.type } : { isBurilToolError: false, text: String(error) },
  );
  return { progress, rejected };
}
