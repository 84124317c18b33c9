/**
 * An MCP App (the extension `io.modelcontextprotocol/ui`) shown as a host shows one: the tool's
 * document in a sandboxed frame without same-origin access (an opaque origin: it reaches
 * neither the page nor its token), spoken to over postMessage by the extension's own
 * `AppBridge` (npm `@modelcontextprotocol/ext-apps`). The app is handed the call's input and
 * result; the tools it calls go to the server over MCP, through its policy like any call.
 *
 * Built into its own asset (`apps.js`), which the page loads only when it shows an app.
 */

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/** What the page hands over to show one app. */
export interface AppView {
  /** Where the frame goes. */
  readonly container: HTMLElement;
  /** The document's address on the studio's server (served with the extension's default policy). */
  readonly src: string;
  /** The tool's name. */
  readonly tool: string;
  /** The call's input. */
  readonly input: { [key: string]: unknown };
  /** The call's `CallToolResult`. */
  readonly result: { [key: string]: unknown };
  /** Calls a tool over MCP; answers its `CallToolResult`. */
  readonly callTool: (name: string, input: { [key: string]: unknown }) => Promise<{ [key: string]: unknown }>;
  /** Told of every tool call the app makes, and its result. */
  readonly onCall?: (name: string, result: { [key: string]: unknown }) => void;
}

/** Shows the app; answers a function that tears it down. */
export async function showApp(view: AppView): Promise<() => Promise<void>> {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.setAttribute("title", `The app of ${view.tool}`);
  frame.className = "app";
  view.container.replaceChildren(frame);
  const bridge = new AppBridge(
    null,
    { name: "buril-studio", version: "1" },
    { serverTools: {}, logging: {} },
    {
      hostContext: {
        theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
        displayMode: "inline",
        platform: "web",
        containerDimensions: { maxHeight: 720 },
      },
    },
  );
  // The app's calls go to the server as the page's do: its policy refuses what it refuses.
  bridge.oncalltool = async (params) => {
    try {
      const result = await view.callTool(params.name, (params.arguments ?? {}) as { [key: string]: unknown });
      view.onCall?.(params.name, result);
      return result as never;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      view.onCall?.(params.name, { isError: true, content: [{ type: "text", text }] });
      throw error;
    }
  };
  bridge.addEventListener("sizechange", ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.min(height, 720)}px`;
  });
  bridge.oninitialized = () => {
    void bridge
      .sendToolInput({ arguments: view.input })
      .then(() => bridge.sendToolResult(view.result as never));
  };
  const transport = new PostMessageTransport(frame.contentWindow as Window, frame.contentWindow as Window);
  await bridge.connect(transport);
  frame.src = view.src;
  return async () => {
    try {
      await bridge.teardownResource({});
    } finally {
      frame.remove();
      await bridge.close();
    }
  };
}
