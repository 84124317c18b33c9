// Calls npm's server-everything through the bindings `tools codegen --from-command` generated
// for it: a typed call through `stdioTransport` (the bindings start the server) and one through
// `mcpTransport` over the MCP SDK's client. Prints what came back as one JSON object.
//
// Usage: node everything.js <node> <server-everything's index.js>

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { echo, getStructuredContent, getSum, mcpTransport, stdioTransport } from "./typescript/index.js";

async function main(): Promise<void> {
  const [node, entry] = process.argv.slice(2);
  if (node === undefined || entry === undefined) {
    throw new Error("usage: node everything.js <node> <index.js>");
  }
  const stdio = stdioTransport(node, [entry, "stdio"]);
  const sum = await getSum(stdio, { a: 1, b: 2.5 });
  const echoed = await echo(stdio, { message: "typed" });
  await stdio.close();

  const client = new Client({ name: "buril-foreign-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: node, args: [entry, "stdio"] }));
  const sdk = mcpTransport(client);
  const weather = await getStructuredContent(sdk, { location: "New York" });
  await client.close();

  // Typed: these fields are what the generated types say the data holds.
  const first = sum.content[0];
  console.log(
    JSON.stringify({
      sumText: first !== undefined && first.type === "text" ? first.text : null,
      echoBlocks: echoed.content.length,
      weather,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
