// Calls every example tool of a real `tools serve` through its typed function of the generated
// bindings, over one transport, and prints each call's outcome as JSON, for
// `tests/transports.rs` to check.
//
// Usage: node every_tool.js <calls.json> http <url>
//        node every_tool.js <calls.json> sdk-http <url>
//        node every_tool.js <calls.json> sdk-stdio|stdio <tools binary> <project folder>
//
// <calls.json> is an array of `{tool, input}`. A string `"$id"` anywhere in an input stands for
// the id of the game object created last (by `gameobject_create`), and `"$handle"` for the
// handle of the run started last (by `agent_team_handoff`).

import { readFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import * as Buril from "./typescript/index.js";
import type { ToolMap, ToolTransport } from "./typescript/index.js";

/** Every tool's typed function: `tsc` refuses this object when one of the bindings' tools is missing. */
const typed: {
  [K in keyof ToolMap]: (transport: ToolTransport, input: ToolMap[K]["input"]) => Promise<ToolMap[K]["output"]>;
} = {
  agent_team_cancel: Buril.agentTeamCancel,
  agent_team_handoff: Buril.agentTeamHandoff,
  agent_team_list_specialists: Buril.agentTeamListSpecialists,
  agent_team_query: Buril.agentTeamQuery,
  agent_team_record: Buril.agentTeamRecord,
  agent_team_replay: Buril.agentTeamReplay,
  agent_team_list_traces: Buril.agentTeamListTraces,
  agent_team_read_trace: Buril.agentTeamReadTrace,
  asset_create_folder: Buril.assetCreateFolder,
  asset_create_material: Buril.assetCreateMaterial,
  asset_delete: Buril.assetDelete,
  asset_list: Buril.assetList,
  asset_move: Buril.assetMove,
  asset_read: Buril.assetRead,
  asset_search: Buril.assetSearch,
  console_clear: Buril.consoleClear,
  console_log: Buril.consoleLog,
  console_read: Buril.consoleRead,
  editor_play_mode_set: Buril.editorPlayModeSet,
  editor_selection_get: Buril.editorSelectionGet,
  editor_selection_set: Buril.editorSelectionSet,
  editor_state: Buril.editorState,
  mcp_list_servers: Buril.mcpListServers,
  mcp_register_external: Buril.mcpRegisterExternal,
  mcp_unregister_external: Buril.mcpUnregisterExternal,
  gameobject_add_component: Buril.gameobjectAddComponent,
  gameobject_create: Buril.gameobjectCreate,
  gameobject_destroy: Buril.gameobjectDestroy,
  gameobject_find: Buril.gameobjectFind,
  gameobject_get: Buril.gameobjectGet,
  gameobject_remove_component: Buril.gameobjectRemoveComponent,
  gameobject_rename: Buril.gameobjectRename,
  gameobject_set_active: Buril.gameobjectSetActive,
  gameobject_set_parent: Buril.gameobjectSetParent,
  gameobject_set_transform: Buril.gameobjectSetTransform,
  scene_close: Buril.sceneClose,
  scene_create: Buril.sceneCreate,
  scene_list: Buril.sceneList,
  scene_list_gameobjects: Buril.sceneListGameobjects,
  scene_open: Buril.sceneOpen,
  scene_render_map: Buril.sceneRenderMap,
  scene_save: Buril.sceneSave,
  scene_set_active: Buril.sceneSetActive,
  script_check: Buril.scriptCheck,
  script_create: Buril.scriptCreate,
  script_find_references: Buril.scriptFindReferences,
  script_list: Buril.scriptList,
  // Done in the Unity editor: typed here too (interop/tests/csharp/editor.rs calls them).
  unity_clear_console: Buril.unityClearConsole,
  unity_compile_scripts: Buril.unityCompileScripts,
  unity_execute_menu_item: Buril.unityExecuteMenuItem,
  unity_read_console: Buril.unityReadConsole,
  unity_run_tests: Buril.unityRunTests,
  unity_set_play_mode: Buril.unitySetPlayMode,
};

function call<K extends keyof ToolMap>(transport: ToolTransport, name: K, input: unknown): Promise<unknown> {
  const f = typed[name] as (transport: ToolTransport, input: ToolMap[K]["input"]) => Promise<ToolMap[K]["output"]>;
  return f(transport, input as ToolMap[K]["input"]);
}

/** What `"$id"` and `"$handle"` stand for, once known. */
interface Known {
  id?: number;
  handle?: string;
}

function substitute(value: unknown, known: Known): unknown {
  if (value === "$id" || value === "$handle") {
    const replacement = value === "$id" ? known.id : known.handle;
    if (replacement === undefined) {
      throw new Error(`${value} used before the call that gives it`);
    }
    return replacement;
  }
  if (Array.isArray(value)) {
    return value.map((v) => substitute(v, known));
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, known)]));
  }
  return value;
}

interface Connected {
  transport: ToolTransport;
  serverMetadataHash(): string | undefined;
  close(): Promise<void>;
}

async function connect(kind: string | undefined, target: string | undefined, project: string | undefined): Promise<Connected> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  const args = ["serve", "--allow-dangerous"];
  if (kind === "http" && target !== undefined) {
    const transport = Buril.httpTransport(target);
    return { transport, serverMetadataHash: () => transport.serverMetadataHash, close: () => transport.close() };
  }
  if (kind === "sdk-http" && target !== undefined) {
    const client = new Client({ name: "buril-every-tool", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(target)));
    const transport = Buril.mcpTransport(client);
    return { transport, serverMetadataHash: () => transport.serverMetadataHash, close: () => client.close() };
  }
  if (kind === "sdk-stdio" && target !== undefined && project !== undefined) {
    env["BURIL_PROJECT"] = project;
    const client = new Client({ name: "buril-every-tool", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: target, args, env }));
    const transport = Buril.mcpTransport(client);
    return { transport, serverMetadataHash: () => transport.serverMetadataHash, close: () => client.close() };
  }
  if (kind === "stdio" && target !== undefined && project !== undefined) {
    env["BURIL_PROJECT"] = project;
    const transport = Buril.stdioTransport(target, args, { env });
    return { transport, serverMetadataHash: () => transport.serverMetadataHash, close: () => transport.close() };
  }
  throw new Error("usage: node every_tool.js <calls.json> http|sdk-http <url> | sdk-stdio|stdio <tools binary> <project>");
}

async function main(): Promise<void> {
  const [callsPath, kind, target, project] = process.argv.slice(2);
  if (callsPath === undefined) {
    throw new Error("no calls file");
  }
  const calls = JSON.parse(readFileSync(callsPath, "utf8")) as { tool: keyof ToolMap; input: unknown }[];
  const connected = await connect(kind, target, project);
  const known: Known = {};
  const outcomes: unknown[] = [];
  for (const { tool, input } of calls) {
    const sent = substitute(input, known);
    try {
      const data = await call(connected.transport, tool, sent);
      if (tool === "gameobject_create") {
        known.id = (data as ToolMap["gameobject_create"]["output"]).id;
      }
      if (tool === "agent_team_handoff") {
        known.handle = (data as ToolMap["agent_team_handoff"]["output"]).handle;
      }
      outcomes.push({ tool, input: sent, ok: true, data });
    } catch (error: unknown) {
      if (error instanceof Buril.BurilToolError) {
        outcomes.push({ tool, input: sent, ok: false, toolError: true, type: error.type, error: error.error });
      } else {
        outcomes.push({ tool, input: sent, ok: false, toolError: false, text: String(error) });
      }
    }
  }
  const result = { serverMetadataHash: connected.serverMetadataHash() ?? null, outcomes };
  await connected.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
