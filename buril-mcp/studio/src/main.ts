/** The studio's page: a hash router over the Tools, Settings and Tasks pages. */

import { catalog, token } from "./api.js";
import { h, replace } from "./dom.js";
import { settingsPage } from "./settings.js";
import { serversPage } from "./servers.js";
import { tasksPage } from "./tasks.js";
import { teamPage } from "./team.js";
import { toolsPage } from "./tools.js";

let stop: (() => void) | undefined;

async function route(): Promise<void> {
  const main = document.getElementById("main");
  if (main === null) return;
  stop?.();
  stop = undefined;
  const [page = "tools", ...rest] = location.hash.replace(/^#/, "").split("/");
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav a[data-page]")) {
    if (link.dataset["page"] === page) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  try {
    if (page === "settings") {
      await settingsPage(main);
    } else if (page === "tasks") {
      stop = tasksPage(main);
    } else if (page === "team") {
      stop = teamPage(main);
    } else if (page === "servers") {
      stop = serversPage(main);
    } else {
      await toolsPage(main, rest.length > 0 ? decodeURIComponent(rest.join("/")) : undefined);
    }
  } catch (error) {
    replace(main, h("p", { class: "problem" }, error instanceof Error ? error.message : String(error)));
  }
}

async function start(): Promise<void> {
  // The token stays in the page, not in the address bar or the history.
  if (location.search.includes("token=")) {
    history.replaceState(null, "", `${location.pathname}${location.hash}`);
  }
  if (token === "") return;
  window.addEventListener("hashchange", () => void route());
  // Asked before the page is drawn, so that the Tools page shares the one request.
  const header = catalog().then(
    ({ server: info }) => {
      const server = document.getElementById("server");
      if (server !== null) server.textContent = `${info.name} ${info.version}`;
    },
    () => {
      // The page says what failed.
    },
  );
  await route();
  await header;
}

void start();
