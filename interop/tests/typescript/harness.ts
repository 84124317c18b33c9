// Calls the real `tools` binary through the generated client and prints what happened as one
// JSON object, for `tests/typescript.rs` to check.
//
// Usage: node harness.js <path of the tools binary> <project folder>

import { execFileSync } from "node:child_process";

import {
  BurilToolError,
  callTool,
  gameobjectCreate,
  sceneGetHierarchy,
  sceneListGameobjects,
  sceneOpen,
} from "./typescript/index.js";
import type {
  Envelope,
  SceneListGameobjectsOutput,
  SceneOpenInput,
  ToolTransport,
} from "./typescript/index.js";

const [toolsPath, project] = process.argv.slice(2);
if (toolsPath === undefined || project === undefined) {
  throw new Error("usage: node harness.js <tools binary> <project folder>");
}

const warnings: { name: string; warnings: readonly string[] }[] = [];

/** Runs `tools call NAME INPUT --compact`: exit code 1 still prints an envelope. */
const transport: ToolTransport = {
  call(name: string, input: unknown): Promise<Envelope> {
    let stdout: string;
    try {
      stdout = execFileSync(toolsPath, ["call", name, JSON.stringify(input), "--compact"], {
        env: { ...process.env, BURIL_PROJECT: project },
        encoding: "utf8",
      });
    } catch (error) {
      const failed = error as { status?: number | null; stdout?: unknown };
      if (failed.status !== 1 || typeof failed.stdout !== "string") {
        throw error;
      }
      stdout = failed.stdout;
    }
    return Promise.resolve(JSON.parse(stdout) as Envelope);
  },
  warn(name: string, list: readonly string[]): void {
    warnings.push({ name, warnings: list });
  },
};

/** What a rejected call rejected with. */
function failure(error: unknown): unknown {
  if (error instanceof BurilToolError) {
    return {
      isBurilToolError: true,
      isError: error instanceof Error,
      name: error.name,
      tool: error.tool,
      type: error.type,
      error: error.error,
      message: error.message,
      problems: error.problems,
      suggestions: error.suggestions,
    };
  }
  return { isBurilToolError: false, text: String(error) };
}

async function main(): Promise<void> {
  const opened = await sceneOpen(transport, { path: "Assets/Scenes/Main.scene" });
  const created = await gameobjectCreate(transport, {
    name: "Enemy",
    primitive: "cube",
    position: { x: 1, y: 0.5, z: -2 },
    components: [{ type: "Rigidbody", properties: { mass: 2.5 } }],
  });
  const hierarchy: SceneListGameobjectsOutput = await sceneListGameobjects(transport, {
    include_components: true,
  });
  // The deprecated function calls the tool under its current name.
  const viaAliasFunction = await sceneGetHierarchy(transport, { include_components: true });
  // The deprecated wire name itself: the host answers with a warning.
  const viaAliasName = await callTool(
    transport,
    "scene_get_hierarchy" as string as "scene_list_gameobjects",
    { include_components: true },
  );
  let invalid: unknown = { rejected: false };
  try {
    await callTool(transport, "scene_open", { path: 42 } as unknown as SceneOpenInput);
  } catch (error) {
    invalid = failure(error);
  }
  let unknownTool: unknown = { rejected: false };
  try {
    await callTool(transport, "scene_opn" as string as "scene_open", { path: "x" });
  } catch (error) {
    unknownTool = failure(error);
  }
  const result = {
    opened,
    created,
    hierarchy,
    viaAliasFunction,
    viaAliasName,
    invalid,
    unknownTool,
    warnings,
  };
  console.log(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
