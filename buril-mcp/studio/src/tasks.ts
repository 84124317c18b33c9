/**
 * The Tasks page: the caller's running and finished tasks from the task store, with their
 * progress, a Cancel button, and a form for each question a task waits on.
 */

import { api } from "./api.js";
import { announce, h, isObject, pretty, replace } from "./dom.js";
import { formOf } from "./form.js";

interface Task {
  readonly handle: string;
  readonly tool: string;
  readonly status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  readonly message?: string;
  readonly createdAt: string;
  readonly progress?: { readonly progress?: number; readonly total?: number; readonly message?: string };
  readonly inputRequests?: { readonly [key: string]: { readonly method?: string; readonly params?: unknown } };
  readonly envelope?: unknown;
}

/** Polls while the page shows; answers the function that stops it. */
export function tasksPage(main: HTMLElement): () => void {
  let stopped = false;
  let timer: number | undefined;
  // A question's form is kept while the task waits on it, so that typing is not lost.
  const forms = new Map<string, HTMLElement>();
  const list = h("div", { class: "tasks", id: "task-list" });
  replace(main, h("h2", {}, "Tasks"), list);
  const poll = async () => {
    try {
      const { tasks } = await api<{ tasks: Task[] }>("tasks");
      draw(list, tasks, forms);
    } catch (error) {
      replace(list, h("p", { class: "problem" }, error instanceof Error ? error.message : String(error)));
    }
    if (!stopped) {
      timer = window.setTimeout(() => void poll(), 500);
    }
  };
  void poll();
  return () => {
    stopped = true;
    if (timer !== undefined) window.clearTimeout(timer);
  };
}

function draw(list: HTMLElement, tasks: readonly Task[], forms: Map<string, HTMLElement>): void {
  if (tasks.length === 0) {
    replace(list, h("p", {}, "No tasks. Start one from a task tool on the Tools page."));
    return;
  }
  const seen = new Set<string>();
  replace(
    list,
    ...tasks.map((task) => {
      const running = task.status === "working" || task.status === "input_required";
      const progress = task.progress;
      const bar =
        progress?.progress === undefined
          ? null
          : h("progress", {
              value: String(progress.progress),
              max: progress.total === undefined ? undefined : String(progress.total),
              "aria-label": `Progress of ${task.tool}`,
            });
      const cancel = running ? h("button", { type: "button", class: "small", "data-cancel": task.handle }, "Cancel") : null;
      cancel?.addEventListener("click", () => {
        void api(`tasks/${encodeURIComponent(task.handle)}/cancel`, {}).then(() => announce(`${task.tool}: cancel asked`));
      });
      const questions = Object.entries(task.inputRequests ?? {}).map(([key, request]) => {
        const id = `${task.handle}/${key}`;
        seen.add(id);
        let form = forms.get(id);
        if (form === undefined) {
          form = question(task, key, request);
          forms.set(id, form);
        }
        return form;
      });
      return h(
        "article",
        { class: `task ${task.status}`, "data-task": task.handle, "aria-label": `${task.tool}, ${task.status}` },
        h("h3", {}, task.tool, " ", h("span", { class: `badge status-${task.status}`, "data-status": task.status }, task.status)),
        h("p", { class: "note" }, `${task.handle}, started ${new Date(task.createdAt).toLocaleTimeString()}`),
        bar,
        progress?.message === undefined ? null : h("p", {}, progress.message),
        task.message === undefined ? null : h("p", {}, task.message),
        cancel,
        ...questions,
        task.envelope === undefined ? null : h("details", {}, h("summary", {}, "Envelope"), h("pre", {}, pretty(task.envelope))),
      );
    }),
  );
  for (const id of [...forms.keys()]) {
    if (!seen.has(id)) forms.delete(id);
  }
}

/** A form answering the question `key` a task waits on (an elicitation's requested schema). */
function question(task: Task, key: string, request: { readonly method?: string; readonly params?: unknown }): HTMLElement {
  const params = isObject(request.params) ? request.params : {};
  const message = typeof params["message"] === "string" ? params["message"] : `${task.tool} asks (${request.method ?? "a question"})`;
  const form = formOf(params["requestedSchema"] ?? { type: "object", properties: {} });
  const send = (action: "accept" | "decline" | "cancel") => {
    const answer: { [key: string]: unknown } = { action };
    if (action === "accept") answer["content"] = form.read();
    void api(`tasks/${encodeURIComponent(task.handle)}/answer`, { responses: { [key]: answer } }).then(() =>
      announce(`${task.tool}: answered`),
    );
  };
  const accept = h("button", { type: "submit" }, "Answer");
  const decline = h("button", { type: "button", class: "small" }, "Decline");
  decline.addEventListener("click", () => send("decline"));
  const element = h("form", { class: "question", "aria-label": message }, h("p", {}, message), form.element, accept, decline);
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    send("accept");
  });
  return element;
}
