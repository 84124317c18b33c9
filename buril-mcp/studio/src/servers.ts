/** The Servers page: the hub's external servers, their status and tools, and Reconnect. */

import { api } from "./api.js";
import { announce, h, replace } from "./dom.js";

interface Server {
  readonly name: string;
  readonly transport: string;
  readonly target: string;
  readonly prefix: string;
  readonly status: string;
  readonly attempts: number;
  readonly last_error?: string | null;
  readonly protocol?: string | null;
  readonly tools: number;
  readonly refused: readonly string[];
  readonly last_refresh?: string | null;
  readonly enabled: boolean;
  readonly served: readonly string[];
}

/** Polls while the page shows; answers the function that stops it. */
export function serversPage(main: HTMLElement): () => void {
  let stopped = false;
  let timer: number | undefined;
  const list = h("div", { id: "server-list" });
  replace(main, h("h2", {}, "Servers"), list);
  const poll = async () => {
    try {
      const { hub, servers } = await api<{ hub: boolean; servers: Server[] }>("servers");
      draw(list, hub, servers);
    } catch (error) {
      replace(list, h("p", { class: "problem" }, error instanceof Error ? error.message : String(error)));
    }
    if (!stopped) timer = window.setTimeout(() => void poll(), 1000);
  };
  void poll();
  return () => {
    stopped = true;
    if (timer !== undefined) window.clearTimeout(timer);
  };
}

function draw(list: HTMLElement, hub: boolean, servers: readonly Server[]): void {
  if (!hub) {
    replace(list, h("p", {}, "This binary has no hub: it serves its own tools only."));
    return;
  }
  if (servers.length === 0) {
    replace(list, h("p", {}, "No external server. Add one with an [[external]] table in the config file, or --external."));
    return;
  }
  replace(
    list,
    ...servers.map((server) => {
      const again = h("button", { type: "button", class: "small", "data-reconnect": server.name }, "Reconnect");
      again.addEventListener("click", () => {
        void api(`servers/${encodeURIComponent(server.name)}/reconnect`, {}).then(() => announce(`${server.name}: reconnecting`));
      });
      return h(
        "article",
        { class: "task", "data-server": server.name, "aria-label": `${server.name}, ${server.status}` },
        h("h3", {}, server.name, " ", h("span", { class: `badge status-${server.status}`, "data-status": server.status }, server.status)),
        h("p", { class: "note" }, `${server.transport}: ${server.target}`, server.protocol === undefined || server.protocol === null ? "" : `, MCP ${server.protocol}`),
        h("p", {}, `${server.tools} tools as ${server.prefix}*`, server.enabled ? "" : " (off until enabled in Settings)"),
        server.last_error === undefined || server.last_error === null ? null : h("p", { class: "problem" }, `${server.attempts} failed attempts; last: ${server.last_error}`),
        server.refused.length === 0 ? null : h("p", { class: "note" }, `Left out: ${server.refused.join("; ")}`),
        h("details", {}, h("summary", {}, "Tools"), h("ul", {}, ...server.served.map((tool) => h("li", {}, h("a", { href: `#tools/${tool}` }, tool))))),
        again,
      );
    }),
  );
}
