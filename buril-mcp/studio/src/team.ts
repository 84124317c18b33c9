/**
 * The Team page: the specialists and the tools each one's view resolves to now; a handoff
 * started from a form, its run drawn live as a timeline; the traces recorded on disk, each
 * drawn the same way, and replayed with the drift shown beside the recording. Everything goes
 * through the `agent_team_*` tools, as a director's calls do.
 */

import type { Envelope } from "../../../buril-codegen/runtime/typescript/envelope.js";
import { mcp } from "./api.js";
import { announce, h, isObject, pretty, replace } from "./dom.js";

/** A bar of a timeline: a model turn or a tool call. */
interface Bar {
  readonly kind: "turn" | "call";
  readonly label: string;
  readonly start: number;
  readonly duration: number;
  readonly outcome: "ok" | "failed" | "model";
  readonly detail: unknown;
}

/** The tool's data, or an error with the envelope's words. */
async function call<T>(tool: string, input: object): Promise<T> {
  const envelope: Envelope = await mcp.call(tool, input);
  if (!envelope.ok) {
    throw new Error(`${tool}: ${envelope.type}: ${envelope.error}`);
  }
  return envelope.data as T;
}

/** Polls while the page shows; answers the function that stops it. */
export function teamPage(main: HTMLElement): () => void {
  let stopped = false;
  const specialists = h("section", { "aria-labelledby": "specialists-title" }, h("h3", { id: "specialists-title" }, "Specialists"));
  const run = h("section", { "aria-labelledby": "run-title", id: "run" }, h("h3", { id: "run-title" }, "A run"));
  const traces = h("section", { "aria-labelledby": "traces-title", id: "traces" }, h("h3", { id: "traces-title" }, "Recorded traces"));
  replace(main, h("h2", {}, "Agent team"), specialists, run, traces);
  void drawSpecialists(specialists, run, () => stopped);
  void drawTraces(traces);
  return () => {
    stopped = true;
  };
}

interface Specialist {
  readonly name: string;
  readonly description: string;
  readonly model: string;
  readonly tool_view: readonly string[];
  readonly tools: readonly { readonly name: string }[];
  readonly missing: readonly string[];
}

async function drawSpecialists(section: HTMLElement, run: HTMLElement, stopped: () => boolean): Promise<void> {
  let list: readonly Specialist[];
  try {
    list = (await call<{ specialists: Specialist[] }>("agent_team_list_specialists", {})).specialists;
  } catch (error) {
    section.append(h("p", { class: "problem" }, String(error instanceof Error ? error.message : error)));
    return;
  }
  const choose = h("select", { id: "handoff-specialist" }, ...list.map((s) => h("option", { value: s.name }, s.name)));
  const brief = h("textarea", { id: "handoff-brief", rows: "3", required: true });
  const view = h("input", { id: "handoff-view", placeholder: "the specialist's own" });
  const form = h(
    "form",
    { class: "handoff", "aria-label": "Start a handoff" },
    h("div", { class: "field" }, h("label", { for: "handoff-specialist" }, "Specialist"), choose),
    h("div", { class: "field" }, h("label", { for: "handoff-brief" }, "Brief"), brief),
    h("div", { class: "field" }, h("label", { for: "handoff-view" }, "Tool view (patterns, comma-separated)"), view),
    h("button", { type: "submit", id: "handoff" }, "Hand off"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const input: { [key: string]: unknown } = { specialist: choose.value, brief: brief.value };
    const patterns = view.value.split(",").map((p) => p.trim()).filter((p) => p !== "");
    if (patterns.length > 0) input["tool_view"] = patterns;
    void follow(run, input, stopped);
  });
  section.append(
    ...list.map((s) =>
      h(
        "details",
        { class: "specialist", "data-specialist": s.name },
        h("summary", {}, h("strong", {}, s.name), ` on ${s.model}: ${s.description}`),
        h("p", {}, "View: ", h("code", {}, s.tool_view.join(", ") || "(none)")),
        h("p", {}, `Resolves to ${s.tools.length} tools now: `, s.tools.map((t) => t.name).join(", ")),
        s.missing.length === 0 ? null : h("p", { class: "problem" }, `Matches nothing: ${s.missing.join(", ")}`),
      ),
    ),
    form,
  );
}

interface RunStatus {
  readonly handle: string;
  readonly status: string;
  readonly specialist: string;
  readonly duration_ms: number;
  readonly calls: readonly { tool: string; ok: boolean; error_type?: string | null; duration_ms: number; started_ms?: number }[];
  readonly turns?: readonly { started_ms: number; duration_ms: number; calls: number; failed?: boolean }[];
  readonly report?: string | null;
}

/** Starts a handoff and draws its run until it ends. */
async function follow(section: HTMLElement, input: object, stopped: () => boolean): Promise<void> {
  const place = h("div", { id: "live" }, h("p", {}, "Handing off…"));
  replace(section, h("h3", { id: "run-title" }, "A run"), place);
  let handle: string;
  try {
    handle = (await call<{ handle: string }>("agent_team_handoff", input)).handle;
  } catch (error) {
    replace(place, h("p", { class: "problem" }, String(error instanceof Error ? error.message : error)));
    return;
  }
  for (;;) {
    let status: RunStatus;
    try {
      status = await call<RunStatus>("agent_team_query", { handle });
    } catch (error) {
      replace(place, h("p", { class: "problem" }, String(error instanceof Error ? error.message : error)));
      return;
    }
    replace(
      place,
      h("p", { "data-run-status": status.status }, `${status.specialist}: ${status.status}, ${status.calls.length} calls, ${status.duration_ms} ms`),
      timeline(barsOfRun(status), status.duration_ms),
      status.report === undefined || status.report === null ? null : h("details", { open: true }, h("summary", {}, "Report"), h("pre", {}, status.report)),
    );
    if (status.status !== "running" || stopped()) {
      announce(`the run ended: ${status.status}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** A model turn, as runs and traces keep it. */
interface TurnTimes {
  readonly started_ms: number;
  readonly duration_ms: number;
  readonly failed?: boolean;
}

/** A call, as runs and traces keep it: laid after the one before when it kept no start. */
interface CallTimes {
  readonly tool: string;
  readonly duration_ms: number;
  readonly started_ms?: number;
  readonly ok: boolean;
  readonly detail: unknown;
}

/** The bars of a run or a trace: its model turns, then its calls. */
function bars(turns: readonly TurnTimes[], calls: readonly CallTimes[]): Bar[] {
  const drawn: Bar[] = turns.map((turn, at) => ({
    kind: "turn",
    label: `model turn ${at + 1}`,
    start: turn.started_ms,
    duration: turn.duration_ms,
    outcome: turn.failed === true ? "failed" : "model",
    detail: turn,
  }));
  let cursor = 0;
  for (const c of calls) {
    const start = c.started_ms ?? cursor;
    drawn.push({ kind: "call", label: c.tool, start, duration: c.duration_ms, outcome: c.ok ? "ok" : "failed", detail: c.detail });
    cursor = start + c.duration_ms;
  }
  return drawn;
}

/** The bars of a run as `agent_team_query` answers it. */
function barsOfRun(status: RunStatus): Bar[] {
  return bars(
    status.turns ?? [],
    status.calls.map((c) => ({ ...c, detail: c })),
  );
}

interface Trace {
  readonly specialist: string;
  readonly status: string;
  readonly duration_ms: number;
  readonly calls: readonly { tool: string; input: unknown; envelope: unknown; duration_ms: number; started_ms?: number }[];
  readonly turns?: readonly { started_ms: number; duration_ms: number; calls: number; failed?: boolean }[];
}

/** The bars of a recorded trace. */
function barsOfTrace(trace: Trace): Bar[] {
  return bars(
    trace.turns ?? [],
    trace.calls.map((c) => ({ ...c, ok: isObject(c.envelope) && c.envelope["ok"] === true, detail: c })),
  );
}

/**
 * A timeline: one row per bar, on a time axis from 0 to the run's end; each bar a button that
 * shows what it holds. `drift` marks the call (by its index among the calls) a replay departed at.
 */
function timeline(bars: readonly Bar[], total: number, drift?: { call: number; text: string }): HTMLElement {
  const end = Math.max(total, ...bars.map((b) => b.start + b.duration), 1);
  const detail = h("pre", { class: "bar-detail", hidden: true });
  let callIndex = -1;
  const rows = bars.map((bar) => {
    if (bar.kind === "call") callIndex += 1;
    const drifted = drift !== undefined && bar.kind === "call" && callIndex === drift.call;
    const left = (bar.start / end) * 100;
    const width = Math.max((bar.duration / end) * 100, 0.4);
    const button = h(
      "button",
      {
        type: "button",
        class: `bar ${bar.outcome}${drifted ? " drift" : ""}`,
        style: undefined,
        "data-bar": bar.kind,
        "data-tool": bar.kind === "call" ? bar.label : undefined,
        "aria-label": `${bar.label}: ${bar.outcome}, ${bar.duration} ms from ${bar.start} ms${drifted ? ", where the replay drifted" : ""}`,
      },
      drifted ? "≠" : "",
    );
    button.style.marginLeft = `${left}%`;
    button.style.width = `${width}%`;
    button.addEventListener("click", () => {
      detail.hidden = false;
      detail.textContent = pretty(bar.detail);
    });
    return h("li", { class: "row" }, h("span", { class: "row-label" }, bar.label), h("span", { class: "track" }, button));
  });
  return h(
    "figure",
    { class: "timeline" },
    h("ol", { class: "rows", "aria-label": "Timeline" }, ...rows),
    h("figcaption", {}, `0 to ${end} ms; blue: model turns, green: calls that answered ok, red: failures`),
    drift === undefined ? null : h("p", { class: "drift-note", id: "drift" }, drift.text),
    detail,
  );
}

interface TraceInfo {
  readonly path: string;
  readonly specialist: string;
  readonly status: string;
  readonly calls: number;
  readonly duration_ms: number;
  readonly brief: string;
}

async function drawTraces(section: HTMLElement): Promise<void> {
  const shown = h("div", { id: "trace" });
  let list: readonly TraceInfo[];
  try {
    list = (await call<{ traces: TraceInfo[] }>("agent_team_list_traces", {})).traces;
  } catch (error) {
    section.append(h("p", { class: "problem" }, String(error instanceof Error ? error.message : error)));
    return;
  }
  if (list.length === 0) {
    section.append(h("p", {}, "None recorded yet (agent_team_record writes them)."));
    return;
  }
  section.append(
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...["Trace", "Specialist", "Status", "Calls", "Time", ""].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        ...list.map((info) => {
          const open = h("button", { type: "button", class: "small", "data-open": info.path }, "Open");
          const again = h("button", { type: "button", class: "small", "data-replay": info.path }, "Replay");
          open.addEventListener("click", () => void openTrace(shown, info.path, false));
          again.addEventListener("click", () => void openTrace(shown, info.path, true));
          return h(
            "tr",
            {},
            h("td", {}, h("code", {}, info.path), h("br", {}), h("span", { class: "note" }, info.brief)),
            h("td", {}, info.specialist),
            h("td", {}, info.status),
            h("td", { class: "number" }, String(info.calls)),
            h("td", { class: "number" }, `${info.duration_ms} ms`),
            h("td", {}, open, " ", again),
          );
        }),
      ),
    ),
    shown,
  );
}

interface Replay {
  readonly result: "match" | "drift";
  readonly message: string;
  readonly drift?: { readonly kind: string; readonly call: number; readonly tool: string; readonly pointer?: string; readonly expected?: unknown; readonly actual?: unknown } | null;
}

/** A trace drawn; with `replay`, replayed first and its drift marked on the recording. */
async function openTrace(place: HTMLElement, path: string, replay: boolean): Promise<void> {
  replace(place, h("p", {}, replay ? "Replaying…" : "Reading…"));
  try {
    const trace = await call<Trace>("agent_team_read_trace", { trace_path: path });
    let drift: { call: number; text: string } | undefined;
    let result: HTMLElement | null = null;
    if (replay) {
      const report = await call<Replay>("agent_team_replay", { trace_path: path });
      const message = report.message.startsWith(report.result) ? report.message : `${report.result}: ${report.message}`;
      result = h("p", { class: report.result === "match" ? "outcome ok" : "outcome failed", id: "replay-result" }, message);
      if (report.drift !== undefined && report.drift !== null) {
        const d = report.drift;
        drift = {
          call: d.call,
          text:
            d.kind === "envelope"
              ? `Call ${d.call + 1} (${d.tool}) differs at ${d.pointer ?? ""}: recorded ${shown(d.expected)}, now ${shown(d.actual)}`
              : `Call ${d.call + 1} (${d.tool}): ${d.kind.replace(/_/g, " ")}`,
        };
      }
    }
    replace(
      place,
      h("h4", {}, path),
      h("p", {}, `${trace.specialist}: ${trace.status}, ${trace.calls.length} calls, ${trace.duration_ms} ms`),
      result,
      timeline(barsOfTrace(trace), trace.duration_ms, drift),
    );
  } catch (error) {
    replace(place, h("p", { class: "problem" }, String(error instanceof Error ? error.message : error)));
  }
}

/** A value of a drift as JSON, or "absent". */
function shown(value: unknown): string {
  return value === undefined ? "absent" : JSON.stringify(value);
}
