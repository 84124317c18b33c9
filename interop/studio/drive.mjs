// Drives the studio's page in headless Chromium (Debian's, through puppeteer-core: nothing is
// downloaded) and prints what it saw as JSON.
//
//     node drive.mjs SCENARIO SPEC
//
// SPEC is a JSON object: {"url": the studio's address with its token, "shots": a folder for
// screenshots, "browser": the Chromium executable (default /usr/bin/chromium)} plus what the
// scenario needs. The Rust tests (interop/tests/studio.rs) start the server, run this script and
// check its report; this script only records.

import puppeteer from "puppeteer-core";

const [scenario, specText] = process.argv.slice(2);
const spec = JSON.parse(specText);
const WAIT = 15000;


async function open(page, hash) {
  await page.goto(`${spec.url}${hash}`, { waitUntil: "domcontentloaded" });
}

/** A screenshot of the page, or of the element `selector` picks. */
async function shot(page, name, selector) {
  if (!spec.shots) {
    return;
  }
  const path = `${spec.shots}/${name}.png`;
  const element = selector === undefined ? null : await page.$(selector);
  if (element !== null) {
    await element.screenshot({ path });
  } else {
    await page.screenshot({ path, fullPage: true });
  }
}

/** Fills the field of `pointer` in the form on the page with `value`. */
async function fill(page, pointer, value) {
  const field = await page.waitForSelector(`[data-pointer="${pointer}"]`, { timeout: WAIT });
  await field.click({ clickCount: 3 });
  await field.type(String(value));
}

/** Calls the tool shown with the form as filled; answers the outcome line and the envelope. */
async function submit(page) {
  // The page draws the tool once it has the catalog.
  await page.waitForSelector("#call", { timeout: WAIT });
  await page.click("#call");
  await page.waitForFunction(() => document.querySelector("#outcome") !== null, { timeout: WAIT });
  return page.evaluate(() => ({
    outcome: document.querySelector("#outcome").textContent,
    envelope: JSON.parse(document.querySelector(".envelope").textContent),
  }));
}

const SCENARIOS = {
  /**
   * Keyboard and screen readers: the catalog searched and a tool opened with the keyboard
   * alone; every form control of each page has a name a screen reader says; in a dark scheme the
   * page is dark.
   */
  async access(page, report) {
    await open(page, "");
    await page.waitForSelector("a[data-tool]", { timeout: WAIT });
    // The search box has the focus on arrival; a tool is opened with Tab and Enter.
    report.focused_first = await page.evaluate(() => document.activeElement?.id ?? null);
    await page.keyboard.type(spec.search);
    await page.keyboard.press("Tab");
    report.focused_tool = await page.evaluate(() => document.activeElement?.dataset?.tool ?? null);
    await page.keyboard.press("Enter");
    await page.waitForSelector("#tool-name", { timeout: WAIT });
    report.opened = await page.evaluate(() => location.hash);
    const unnamed = () =>
      [...document.querySelectorAll("input, select, textarea, button")]
        .filter((control) => {
          const labelled = control.id && document.querySelector(`label[for="${control.id}"]`);
          const own = control.getAttribute("aria-label") || (control.tagName === "BUTTON" && control.textContent.trim());
          return !labelled && !own;
        })
        .map((control) => control.outerHTML.slice(0, 80));
    report.unnamed = { tools: await page.evaluate(unnamed) };
    for (const name of ["settings", "tasks", "team"]) {
      await open(page, `#${name}`);
      await page.waitForFunction(() => !document.getElementById("main").textContent.includes("Loading"), { timeout: WAIT });
      await new Promise((resolve) => setTimeout(resolve, 500));
      report.unnamed[name] = await page.evaluate(unnamed);
    }
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
    await open(page, "");
    await page.waitForSelector("a[data-tool]", { timeout: WAIT });
    report.dark_background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await shot(page, "dark");
  },

  /**
   * A tool with an app: its map in a sandboxed frame; a marker pressed in the frame calls
   * another tool through the page, whose answer the page lists and the app shows.
   */
  async app(page, report) {
    await open(page, `#tools/${spec.tool}`);
    report.called = await submit(page);
    const handle = await page.waitForSelector("iframe.app", { timeout: WAIT });
    report.sandbox = await handle.evaluate((frame) => frame.getAttribute("sandbox"));
    const frame = await handle.contentFrame();
    await frame.waitForSelector(".marker", { timeout: WAIT });
    report.markers = await frame.$$eval(".marker", (markers) => markers.map((marker) => marker.getAttribute("aria-label")));
    await frame.click(`.marker[data-id="${spec.id}"]`);
    await page.waitForSelector(`#app-calls [data-app-call="${spec.calls}"]`, { timeout: WAIT });
    report.app_call = await page.$eval("#app-calls [data-app-call]", (item) => item.firstChild.textContent + item.childNodes[1].textContent);
    await frame.waitForFunction(() => !document.getElementById("object").textContent.startsWith("Asking"), { timeout: WAIT });
    report.shown_in_app = await frame.$eval("#object", (element) => ({ text: element.textContent, problem: element.className === "problem" }));
    // Its origin is opaque: the page is out of its reach.
    report.reaches_page = await frame.evaluate(() => {
      try {
        return window.parent.document.title;
      } catch (error) {
        return null;
      }
    });
    await shot(page, `app${spec.shot ?? ""}`, 'section[aria-label^="The app"]');
  },

  /**
   * The catalog's speed, `spec.runs` times: from navigation to the catalog painted (its links
   * in the page, and a frame drawn after), and from a search typed to its results painted.
   */
  async speed(page, report) {
    report.painted_ms = [];
    report.searched_ms = [];
    report.tools = 0;
    for (let run = 0; run < (spec.runs ?? 5); run += 1) {
      const started = Date.now();
      await open(page, "");
      await page.waitForSelector("a[data-tool]", { timeout: 60000 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      report.painted_ms.push(Date.now() - started);
      report.tools = await page.$$eval("a[data-tool]", (links) => links.length);
      const searched = await page.evaluate(async (words) => {
        const search = document.getElementById("search");
        const begun = performance.now();
        search.value = words;
        search.dispatchEvent(new Event("input"));
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        return { ms: performance.now() - begun, found: document.querySelectorAll("a[data-tool]").length };
      }, spec.search);
      report.searched_ms.push(searched.ms);
      report.found = searched.found;
    }
    await shot(page, "speed");
  },

  /** The Servers page: a server connected with its tools, then Reconnect pressed. */
  async servers(page, report) {
    await open(page, "#servers");
    const connected = `[data-server="${spec.server}"] [data-status="connected"]`;
    await page.waitForSelector(connected, { timeout: WAIT });
    report.served = await page.$$eval(`[data-server="${spec.server}"] li a`, (links) => links.map((link) => link.textContent));
    await shot(page, "servers");
    await page.click(`button[data-reconnect="${spec.server}"]`);
    await page.waitForFunction(() => document.getElementById("status").textContent.includes("reconnecting"), { timeout: WAIT });
    await page.waitForSelector(connected, { timeout: WAIT });
    report.status = await page.$eval(`[data-server="${spec.server}"]`, (element) => element.getAttribute("aria-label"));
  },

  /**
   * A handoff from the Team page, its run drawn live until done; a recorded trace drawn; a
   * drifted trace replayed, its drift marked on its call.
   */
  async team(page, report) {
    await open(page, "#team");
    await page.waitForSelector("#handoff-specialist option", { timeout: WAIT });
    await page.select("#handoff-specialist", spec.specialist);
    await page.type("#handoff-brief", spec.brief);
    await page.click("#handoff");
    await page.waitForSelector('[data-run-status="done"]', { timeout: WAIT });
    report.live = await page.$$eval("#live [data-bar]", (bars) =>
      bars.map((bar) => ({ kind: bar.dataset.bar, tool: bar.dataset.tool ?? null, outcome: bar.className })),
    );
    await shot(page, "team-run");
    const opener = `button[data-open="${spec.trace}"]`;
    await page.waitForSelector(opener, { timeout: WAIT });
    await page.click(opener);
    await page.waitForSelector('#trace [data-bar="call"]', { timeout: WAIT });
    report.recorded = await page.$$eval('#trace [data-bar="call"]', (bars) => bars.map((bar) => bar.dataset.tool));
    await page.click(`button[data-replay="${spec.drifted}"]`);
    await page.waitForSelector("#replay-result", { timeout: WAIT });
    report.replay = await page.$eval("#replay-result", (element) => element.textContent);
    report.drifted = await page.$$eval("#trace .bar.drift", (bars) => bars.map((bar) => bar.dataset.tool));
    report.drift_note = await page.$eval("#drift", (element) => element.textContent);
    await shot(page, "team-replay");
  },

  /** The catalog: every tool's name, and the address bar without the token. */
  async catalog(page, report) {
    const started = Date.now();
    await open(page, "");
    await page.waitForSelector("a[data-tool]", { timeout: WAIT });
    report.painted_ms = Date.now() - started;
    report.tools = await page.$$eval("a[data-tool]", (links) => links.map((link) => link.dataset.tool));
    report.address = page.url();
    report.server = await page.$eval("#server", (element) => element.textContent);
    await page.type("#search", spec.search ?? "scene");
    report.found = await page.$$eval("a[data-tool]", (links) => links.map((link) => link.dataset.tool));
    await shot(page, "tools");
  },

  /** A call from a form that succeeds, then one whose value the server refuses at its field. */
  async call(page, report) {
    await open(page, `#tools/${spec.good.tool}`);
    for (const [pointer, value] of Object.entries(spec.good.fields)) {
      await fill(page, pointer, value);
    }
    report.good = await submit(page);
    await shot(page, "call");
    await open(page, `#tools/${spec.bad.tool}`);
    await page.reload({ waitUntil: "domcontentloaded" });
    for (const [pointer, value] of Object.entries(spec.bad.fields)) {
      await fill(page, pointer, value);
    }
    report.bad = await submit(page);
    report.bad.at_field = await page.evaluate((pointer) => {
      const control = document.querySelector(`[data-pointer="${pointer}"]`);
      const problem = control.closest(".field").querySelector(".problem");
      return {
        invalid: control.getAttribute("aria-invalid"),
        problem: problem.hidden ? null : problem.textContent,
        described: control.getAttribute("aria-describedby"),
      };
    }, spec.bad.problem_at);
    report.history = await page.$$eval(".history tbody tr", (rows) => rows.length);
    await shot(page, "problem");
  },

  /** A tool's switch in Settings set to `spec.enabled`; answers the switch as the page shows it after. */
  async toggle(page, report) {
    await open(page, "#settings");
    const box = await page.waitForSelector(`input[data-tool="${spec.tool}"]`, { timeout: WAIT });
    report.before = await box.evaluate((element) => element.checked);
    if (report.before !== spec.enabled) {
      await box.click();
      await page.waitForFunction(
        (tool, enabled) => document.querySelector(`input[data-tool="${tool}"]`)?.checked === enabled,
        { timeout: WAIT },
        spec.tool,
        spec.enabled,
      );
    }
    report.after = await page.$eval(`input[data-tool="${spec.tool}"]`, (element) => element.checked);
    if (spec.timeout !== undefined) {
      const field = await page.$(`input[data-timeout="${spec.tool}"]`);
      await field.click({ clickCount: 3 });
      await field.type(String(spec.timeout));
      await page.keyboard.press("Tab");
      await page.waitForFunction(
        (tool, seconds) => document.querySelector(`input[data-timeout="${tool}"]`)?.value === String(seconds) &&
          document.getElementById("status").textContent.includes("timeout"),
        { timeout: WAIT },
        spec.tool,
        spec.timeout,
      );
    }
    report.message = await page.$eval("#settings-message", (element) => element.textContent);
    await shot(page, `settings-${spec.enabled ? "on" : "off"}`);
  },

  /**
   * A task started from its form: its progress bar read twice as it advances, then Cancel;
   * then a task that asks a question, answered from the Tasks page.
   */
  async tasks(page, report) {
    await open(page, "#tools/fixture_count");
    await fill(page, "/to", 1000);
    await fill(page, "/every_ms", 20);
    report.started = await submit(page);
    await open(page, "#tasks");
    const bar = 'article[aria-label^="fixture_count"] progress';
    await page.waitForSelector(bar, { timeout: WAIT });
    const first = await page.$eval(bar, (element) => Number(element.value));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const second = await page.$eval(bar, (element) => Number(element.value));
    report.progress = [first, second];
    await shot(page, "tasks");
    await page.click("button[data-cancel]");
    await page.waitForSelector('article[aria-label^="fixture_count"] [data-status="cancelled"]', { timeout: WAIT });
    report.cancelled = await page.$eval('article[aria-label^="fixture_count"]', (element) => element.getAttribute("aria-label"));

    await open(page, "#tools/fixture_greet");
    report.asked = await submit(page);
    await open(page, "#tasks");
    const question = await page.waitForSelector("form.question", { timeout: WAIT });
    report.question = await question.evaluate((element) => element.getAttribute("aria-label"));
    await fill(page, "/name", spec.name);
    await shot(page, "question");
    await page.click("form.question button[type=submit]");
    await page.waitForSelector('article[aria-label^="fixture_greet"] [data-status="completed"]', { timeout: WAIT });
    report.answered = await page.$eval('article[aria-label^="fixture_greet"] details pre', (element) => JSON.parse(element.textContent));
  },
};

const browser = await puppeteer.launch({
  executablePath: spec.browser ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const report = {};
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await SCENARIOS[scenario](page, report);
  report.errors = errors;
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
