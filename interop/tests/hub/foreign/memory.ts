// Calls npm's server-memory through the bindings `tools codegen --from-command` generated for
// it (`stdioTransport`): creates an entity, reads the graph back typed, prints it as JSON.
//
// Usage: node memory.js <node> <server-memory's index.js> <the graph's file>

import { createEntities, readGraph, stdioTransport } from "./typescript/index.js";

async function main(): Promise<void> {
  const [node, entry, file] = process.argv.slice(2);
  if (node === undefined || entry === undefined || file === undefined) {
    throw new Error("usage: node memory.js <node> <index.js> <file>");
  }
  const env: { [name: string]: string } = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  env["MEMORY_FILE_PATH"] = file;
  const memory = stdioTransport(node, [entry], { env });
  await createEntities(memory, {
    entities: [{ name: "Ada", entityType: "person", observations: ["typed, in TypeScript"] }],
  });
  const graph = await readGraph(memory, {});
  await memory.close();
  const names: string[] = graph.entities.map((entity) => entity.name);
  console.log(JSON.stringify({ names, observations: graph.entities[0]?.observations ?? [] }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
