/**
 * The Settings page: which tools, families, dangerous and third parties' tools are on, and the
 * timeouts, changed in the server's config file, which the server applies at once (its MCP
 * clients are told the tool list changed).
 */

import { ApiError, api } from "./api.js";
import { announce, h, replace } from "./dom.js";

interface ToolState {
  readonly name: string;
  readonly family: string;
  readonly dangerous: boolean;
  readonly enabled: boolean;
  readonly reason?: string;
}

interface View {
  readonly config: string;
  readonly exists: boolean;
  readonly allow_dangerous: boolean;
  readonly enable: readonly string[];
  readonly disable: readonly string[];
  readonly timeout: number | null;
  readonly timeouts: { readonly [tool: string]: number };
  readonly tools: readonly ToolState[];
  readonly externals: readonly { readonly name: string; readonly prefix: string; readonly enabled: boolean }[];
}

type Change =
  | { change: "allow_dangerous"; allow: boolean }
  | { change: "enable" | "disable" | "reset"; rule: string }
  | { change: "external"; server: string; enable: boolean }
  | { change: "timeout"; seconds: number | null }
  | { change: "tool_timeout"; tool: string; seconds: number | null };

export async function settingsPage(main: HTMLElement): Promise<void> {
  let view: View;
  try {
    view = await api<View>("settings");
  } catch (error) {
    replace(main, h("h2", {}, "Settings"), h("p", { class: "problem" }, error instanceof Error ? error.message : String(error)));
    return;
  }
  const message = h("p", { class: "message", id: "settings-message", role: "alert" });
  const change = async (changes: Change[], what: string) => {
    try {
      view = await api<View>("settings", { changes });
      announce(`${what}: saved`);
      draw();
    } catch (error) {
      message.textContent = error instanceof ApiError ? error.message : String(error);
    }
  };
  const draw = () => {
    const dangerous = h("input", { type: "checkbox", id: "allow-dangerous" });
    dangerous.checked = view.allow_dangerous;
    dangerous.addEventListener("change", () => void change([{ change: "allow_dangerous", allow: dangerous.checked }], "dangerous tools"));
    const timeout = h("input", { type: "number", id: "timeout", min: "0.001", step: "any", placeholder: "the server's default" });
    timeout.value = view.timeout === null ? "" : String(view.timeout);
    timeout.addEventListener("change", () =>
      void change([{ change: "timeout", seconds: timeout.value === "" ? null : Number(timeout.value) }], "timeout"),
    );
    const families = new Map<string, ToolState[]>();
    for (const tool of view.tools) {
      families.set(tool.family, [...(families.get(tool.family) ?? []), tool]);
    }
    replace(
      main,
      h("h2", {}, "Settings"),
      h("p", {}, "Written to ", h("code", {}, view.config), view.exists ? "" : " (not there yet: the defaults)", "; the server applies a change at once."),
      message,
      h("div", { class: "field check" }, dangerous, h("label", { for: "allow-dangerous" }, "Every dangerous tool on")),
      h("div", { class: "field" }, h("label", { for: "timeout" }, "Timeout of calls without their own (seconds)"), timeout),
      rules("Enabled by rules", view.enable, change),
      rules("Disabled by rules", view.disable, change),
      view.externals.length === 0
        ? null
        : h(
            "fieldset",
            {},
            h("legend", {}, "Third parties' servers"),
            ...view.externals.map((external) => {
              const box = h("input", { type: "checkbox", id: `external-${external.name}` });
              box.checked = external.enabled;
              box.addEventListener("change", () => void change([{ change: "external", server: external.name, enable: box.checked }], external.name));
              return h("div", { class: "field check" }, box, h("label", { for: `external-${external.name}` }, `${external.name} (tools ${external.prefix}*)`));
            }),
          ),
      ...[...families.entries()].map(([family, tools]) => {
        const on = h("button", { type: "button", class: "small", "data-family-enable": family }, `Enable family ${family}`);
        const off = h("button", { type: "button", class: "small", "data-family-disable": family }, `Disable family ${family}`);
        on.addEventListener("click", () => void change([{ change: "enable", rule: `family:${family}` }], family));
        off.addEventListener("click", () => void change([{ change: "disable", rule: `family:${family}` }], family));
        return h(
          "fieldset",
          { class: "family" },
          h("legend", {}, family),
          h("div", { class: "buttons" }, on, off),
          ...tools.map((tool) => {
            const id = `tool-${tool.name}`;
            const box = h("input", { type: "checkbox", id, "data-tool": tool.name });
            box.checked = tool.enabled;
            box.addEventListener("change", () =>
              void change([{ change: box.checked ? "enable" : "disable", rule: tool.name }], tool.name),
            );
            const seconds = view.timeouts[tool.name];
            const timeout = h("input", {
              type: "number",
              class: "timeout",
              min: "0.001",
              step: "any",
              placeholder: "timeout (s)",
              "aria-label": `Timeout of ${tool.name} in seconds`,
              "data-timeout": tool.name,
            });
            timeout.value = seconds === undefined ? "" : String(seconds);
            timeout.addEventListener("change", () =>
              void change(
                [{ change: "tool_timeout", tool: tool.name, seconds: timeout.value === "" ? null : Number(timeout.value) }],
                `${tool.name}'s timeout`,
              ),
            );
            return h(
              "div",
              { class: "field check" },
              box,
              h("label", { for: id }, tool.name, tool.dangerous ? h("span", { class: "badge" }, "dangerous") : null),
              timeout,
              tool.reason === undefined ? null : h("span", { class: "note" }, ` ${tool.reason}`),
            );
          }),
        );
      }),
    );
  };
  draw();
}

function rules(title: string, list: readonly string[], change: (changes: Change[], what: string) => Promise<void>): HTMLElement {
  return h(
    "section",
    { class: "rules" },
    h("h3", {}, title),
    list.length === 0
      ? h("p", {}, "None.")
      : h(
          "ul",
          {},
          ...list.map((rule) => {
            const remove = h("button", { type: "button", class: "small" }, `Remove ${rule}`);
            remove.addEventListener("click", () => void change([{ change: "reset", rule }], rule));
            return h("li", {}, h("code", {}, rule), " ", remove);
          }),
        ),
  );
}
