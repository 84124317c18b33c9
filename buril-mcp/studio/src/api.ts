/** The server: the studio's JSON API and the MCP endpoint, both with the page's token. */

import { httpTransport } from "../../../buril-codegen/runtime/typescript/http.js";
import type { HttpTransport } from "../../../buril-codegen/runtime/typescript/http.js";

/** The token the page was opened with (the server put it in a `<meta>`). */
function readToken(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="buril-token"]');
  return meta?.content ?? "";
}

export const token = readToken();

/** The MCP client of the page: the tools are called as any client calls them. */
export const mcp: HttpTransport = httpTransport(new URL("/mcp", location.href).href, {
  headers: { authorization: `Bearer ${token}` },
  clientInfo: { name: "buril-studio", version: "1" },
  // A task's questions are answered on the Tasks page.
  // Apps are shown on the Tools page (MCP Apps).
  capabilities: {
    elicitation: { form: {} },
    extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
  },
});

/** A refusal or failure of the API, with its status and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** `GET` (or, with a body, `POST`) the API's `path`, answering its JSON. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit = {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`/studio/api/${path}`, init);
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const message =
      typeof parsed === "object" && parsed !== null && "error" in parsed
        ? String((parsed as { error: unknown }).error)
        : text;
    throw new ApiError(response.status, message);
  }
  return parsed as T;
}

/** A tool as the API lists it. */
export interface ToolInfo {
  readonly name: string;
  readonly description: string;
  readonly family: string;
  readonly inputSchema: unknown;
  readonly outputSchema: unknown;
  readonly annotations: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
  readonly dangerous: boolean;
  readonly task: "never" | "optional" | "required" | "handle" | "deferred";
  readonly enabled: boolean;
  readonly reason?: string;
  readonly unavailable?: string;
  readonly provider?: string;
  readonly original?: string;
  /** The `ui://` URI of the tool's app (MCP Apps), if it has one. */
  readonly ui?: string;
}

/** The catalog in flight, shared by whoever asks for it meanwhile (the page's header and the Tools page on arrival). */
let catalogInFlight: Promise<Catalog> | undefined;

/** The catalog now: one request however many ask for it at once. */
export function catalog(): Promise<Catalog> {
  catalogInFlight ??= api<Catalog>("tools").finally(() => {
    catalogInFlight = undefined;
  });
  return catalogInFlight;
}

/** What `GET tools` answers. */
export interface Catalog {
  readonly server: { readonly name: string; readonly version: string };
  readonly families: readonly string[];
  readonly tools: readonly ToolInfo[];
}
