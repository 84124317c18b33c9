/**
 * The Tools page: the catalog by family with search; a tool's description, flags, annotations
 * and schemas; a form from its input schema that calls it over MCP and shows the envelope (the
 * server's validation problems at their fields, images, sounds and links as such); the calls
 * made from this page, with their timings.
 */

import type { Envelope } from "../../../buril-codegen/runtime/typescript/envelope.js";
import { envelopeFromCallResult } from "../../../buril-codegen/runtime/typescript/mcp.js";
import { catalog as loadCatalog, mcp } from "./api.js";
import type { ToolInfo } from "./api.js";
import { announce, append, h, isObject, pretty, replace } from "./dom.js";
import { formOf } from "./form.js";

/** A call made from the page. */
interface Call {
  readonly tool: string;
  readonly input: unknown;
  readonly envelope: Envelope;
  readonly ms: number;
  /** When it was made (ISO 8601). */
  readonly at: string;
}

/** Where the calls are kept while the tab lives: through reloads, not beyond. */
const HISTORY_KEY = "buril-studio-history";
/** How many calls are kept. */
const HISTORY_LENGTH = 100;

const history: Call[] = readHistory();

function readHistory(): Call[] {
  try {
    const kept = JSON.parse(sessionStorage.getItem(HISTORY_KEY) ?? "[]") as unknown;
    return Array.isArray(kept) ? (kept as Call[]) : [];
  } catch {
    return [];
  }
}

function remember(call: Call): void {
  history.unshift(call);
  history.length = Math.min(history.length, HISTORY_LENGTH);
  try {
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(history));
  } catch {
    // Storage full or refused: the history lives in the page alone.
  }
}

/** The tasks extension's capability, declared on a call that should become a task. */
const FOLLOWS_TASKS = {
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

export async function toolsPage(main: HTMLElement, chosen: string | undefined): Promise<void> {
  const catalog = await loadCatalog();
  const search = h("input", { type: "search", id: "search", placeholder: "Search tools", "aria-label": "Search tools" });
  const list = h("nav", { class: "catalog", "aria-label": "Tools" });
  const detail = h("section", { class: "detail", "aria-live": "polite", id: "detail" });
  const calls = h("section", { class: "history", "aria-labelledby": "history-title" });
  const draw = () => {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter((w) => w !== "");
    const named = (tool: ToolInfo) => words.length > 0 && words.every((word) => tool.name.toLowerCase().includes(word));
    // Tools whose names match come first (and their families with them); then the others.
    const matching = catalog.tools
      .filter((tool) => {
        const text = `${tool.name} ${tool.family} ${tool.description}`.toLowerCase();
        return words.every((word) => text.includes(word));
      })
      .sort((a, b) => Number(named(b)) - Number(named(a)));
    const families = new Map<string, ToolInfo[]>();
    for (const tool of matching) {
      const family = families.get(tool.family) ?? [];
      family.push(tool);
      families.set(tool.family, family);
    }
    replace(
      list,
      h("p", { class: "count" }, `${matching.length} of ${catalog.tools.length} tools`),
      ...[...families.entries()].map(([family, tools]) =>
        h(
          "div",
          { class: "family" },
          h("h3", {}, family),
          h(
            "ul",
            {},
            ...tools.map((tool) =>
              h(
                "li",
                {},
                h(
                  "a",
                  {
                    href: `#tools/${tool.name}`,
                    class: tool.enabled ? "tool" : "tool off",
                    "aria-current": tool.name === chosen ? "page" : undefined,
                    "data-tool": tool.name,
                  },
                  tool.name,
                  tool.enabled ? null : h("span", { class: "badge" }, "off"),
                ),
              ),
            ),
          ),
        ),
      ),
    );
  };
  search.addEventListener("input", draw);
  draw();
  const tool = catalog.tools.find((t) => t.name === chosen);
  if (tool === undefined) {
    append(detail, h("p", {}, "Choose a tool to see it and call it."));
  } else {
    showTool(detail, tool, calls);
  }
  drawHistory(calls);
  replace(
    main,
    h("h2", {}, "Tools"),
    h("div", { class: "tools" }, h("div", { class: "side" }, search, list), h("div", { class: "body" }, detail, calls)),
  );
  if (tool === undefined) {
    search.focus();
  }
}

function badges(tool: ToolInfo): HTMLElement {
  const marks: string[] = [];
  if (!tool.enabled) marks.push("off");
  if (tool.dangerous) marks.push("dangerous");
  if (tool.annotations.readOnlyHint === true) marks.push("read-only");
  if (tool.annotations.destructiveHint === true) marks.push("destructive");
  if (tool.annotations.idempotentHint === true) marks.push("idempotent");
  if (tool.annotations.openWorldHint === true) marks.push("open world");
  if (tool.task !== "never") marks.push(`task: ${tool.task}`);
  if (tool.provider !== undefined) marks.push(`from ${tool.provider}`);
  return h("ul", { class: "badges", "aria-label": "Flags" }, ...marks.map((mark) => h("li", { class: "badge" }, mark)));
}

function showTool(detail: HTMLElement, tool: ToolInfo, calls: HTMLElement): void {
  const form = formOf(tool.inputSchema);
  const result = h("div", { class: "result", id: "result" });
  const button = h("button", { type: "submit", id: "call" }, tool.task === "never" ? "Call" : "Start");
  // The server checks the input: its problems are shown at their fields.
  const element = h("form", { class: "call", "aria-label": `Call ${tool.name}`, novalidate: true }, form.element, button);
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    void call(tool, form.read(), form, result, calls, button);
  });
  replace(
    detail,
    h("h2", { id: "tool-name" }, tool.annotations.title ?? tool.name),
    tool.annotations.title === undefined ? null : h("p", { class: "name" }, tool.name),
    badges(tool),
    tool.reason === undefined ? null : h("p", { class: "reason" }, tool.reason),
    tool.unavailable === undefined ? null : h("p", { class: "reason" }, `Unavailable: ${tool.unavailable}`),
    tool.original === undefined ? null : h("p", {}, `Called ${tool.original} on its server.`),
    h("p", { class: "description" }, tool.description),
    element,
    result,
    h("details", {}, h("summary", {}, "Input schema"), h("pre", {}, pretty(tool.inputSchema))),
    h("details", {}, h("summary", {}, "Output schema"), h("pre", {}, pretty(tool.outputSchema))),
  );
}

async function call(
  tool: ToolInfo,
  input: unknown,
  form: ReturnType<typeof formOf>,
  result: HTMLElement,
  calls: HTMLElement,
  button: HTMLButtonElement,
): Promise<void> {
  button.disabled = true;
  replace(result, h("p", {}, "Calling…"));
  const started = performance.now();
  let envelope: Envelope;
  let task: string | undefined;
  let raw: { [key: string]: unknown } | undefined;
  try {
    if (tool.ui !== undefined && tool.task === "never") {
      // A tool with an app: its `CallToolResult` is what the app is handed.
      const answer = await mcp.request?.("tools/call", { name: tool.name, arguments: input ?? {} });
      raw = isObject(answer) ? answer : {};
      envelope = envelopeFromCallResult(raw);
    } else if (tool.task === "never") {
      envelope = await mcp.call(tool.name, input ?? {});
    } else {
      const answer = await mcp.request?.("tools/call", { name: tool.name, arguments: input ?? {}, _meta: FOLLOWS_TASKS });
      if (isObject(answer) && answer["resultType"] === "task" && typeof answer["taskId"] === "string") {
        task = answer["taskId"];
        envelope = { ok: true, data: { task: answer["taskId"], status: answer["status"] } };
      } else {
        envelope = envelopeFromCallResult(answer);
      }
    }
  } catch (error) {
    envelope = { ok: false, type: "runtime", error: error instanceof Error ? error.message : String(error) };
  }
  const ms = performance.now() - started;
  button.disabled = false;
  const problems = new Map<string, string[]>();
  if (!envelope.ok) {
    for (const problem of envelope.problems ?? []) {
      problems.set(problem.path, [...(problems.get(problem.path) ?? []), problem.message]);
    }
  }
  const shown = form.show(problems);
  const elsewhere = [...problems.entries()].filter(([path]) => !shown.has(path));
  replace(
    result,
    h(
      "p",
      { class: envelope.ok ? "outcome ok" : "outcome failed", id: "outcome" },
      envelope.ok ? "ok" : `${envelope.type}: ${envelope.error}`,
      ` (${ms.toFixed(0)} ms)`,
    ),
    elsewhere.length === 0
      ? null
      : h("ul", { class: "problems" }, ...elsewhere.map(([path, messages]) => h("li", {}, `${path === "" ? "the input" : path}: ${messages.join("; ")}`))),
    task === undefined ? null : h("p", {}, "Started as a task: ", h("a", { href: "#tasks" }, "follow it on the Tasks page"), "."),
    envelope.ok ? rich(envelope.data) : null,
    h("pre", { class: "envelope", "aria-label": "Envelope" }, pretty(envelope)),
  );
  if (raw !== undefined && tool.ui !== undefined && envelope.ok) {
    void showApp(result, tool, tool.ui, isObject(input) ? input : {}, raw);
  }
  announce(envelope.ok ? `${tool.name} answered ok` : `${tool.name} failed: ${envelope.type}`);
  remember({ tool: tool.name, input, envelope, ms, at: new Date().toISOString() });
  drawHistory(calls);
}

/** The tool's app beside its result, and the calls it makes through the page. */
async function showApp(
  result: HTMLElement,
  tool: ToolInfo,
  uri: string,
  input: { [key: string]: unknown },
  raw: { [key: string]: unknown },
): Promise<void> {
  const container = h("div", { class: "app-frame", id: "app" });
  const calls = h("ul", { class: "app-calls", id: "app-calls", "aria-label": "Calls the app made" });
  result.prepend(h("section", { "aria-label": `The app of ${tool.name}` }, h("h3", {}, "App"), container, calls));
  const request = (name: string, args: { [key: string]: unknown }) =>
    mcp.request?.("tools/call", { name, arguments: args }).then((answer) => (isObject(answer) ? answer : {})) ??
    Promise.reject(new Error("the transport cannot call tools"));
  const { showApp: show } = await import("./apps.js");
  await show({
    container,
    src: `/studio/app?uri=${encodeURIComponent(uri)}`,
    tool: tool.name,
    input,
    result: raw,
    callTool: request,
    onCall: (name, answer) => {
      const envelope = envelopeFromCallResult(answer);
      append(
        calls,
        h("li", { "data-app-call": name }, `${name}: `, envelope.ok ? "ok" : `${envelope.type}: ${envelope.error}`, h("pre", {}, pretty(envelope))),
      );
      announce(`the app called ${name}`);
    },
  });
}

/** Images, sounds and links of a result's content blocks, shown as such. */
function rich(data: unknown): HTMLElement | null {
  const blocks = isObject(data) && Array.isArray(data["content"]) ? (data["content"] as unknown[]) : [];
  const shown: HTMLElement[] = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    const mime = typeof block["mimeType"] === "string" ? block["mimeType"] : "";
    if (block["type"] === "image" && typeof block["data"] === "string") {
      shown.push(h("img", { src: `data:${mime};base64,${block["data"]}`, alt: "An image the tool returned" }));
    } else if (block["type"] === "audio" && typeof block["data"] === "string") {
      shown.push(h("audio", { controls: true, src: `data:${mime};base64,${block["data"]}` }));
    } else if (block["type"] === "resource_link" && typeof block["uri"] === "string") {
      shown.push(h("p", {}, "A file: ", h("code", {}, block["uri"]), mime === "" ? "" : ` (${mime})`));
    } else if (block["type"] === "text" && typeof block["text"] === "string") {
      shown.push(h("pre", {}, block["text"]));
    }
  }
  return shown.length === 0 ? null : h("div", { class: "rich" }, ...shown);
}

function drawHistory(calls: HTMLElement): void {
  replace(
    calls,
    h("h3", { id: "history-title" }, "Calls from this page"),
    history.length === 0
      ? h("p", {}, "None yet.")
      : h(
          "table",
          {},
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "Tool"), h("th", { scope: "col" }, "Outcome"), h("th", { scope: "col" }, "Time"))),
          h(
            "tbody",
            {},
            ...history.map((entry) =>
              h(
                "tr",
                {},
                h("td", {}, new Date(entry.at).toLocaleTimeString()),
                h("td", {}, entry.tool),
                h("td", {}, h("details", {}, h("summary", {}, entry.envelope.ok ? "ok" : entry.envelope.type), h("pre", {}, pretty({ input: entry.input, envelope: entry.envelope })))),
                h("td", { class: "number" }, `${entry.ms.toFixed(0)} ms`),
              ),
            ),
          ),
        ),
  );
}
