// Calls server-everything over its Streamable HTTP mode through the bindings `tools codegen
// --from-server` generated for it (`httpTransport`); prints what came back as JSON.
//
// Usage: node over_http.js <url>

import { getSum, httpTransport } from "./typescript/index.js";

async function main(): Promise<void> {
  const [url] = process.argv.slice(2);
  if (url === undefined) {
    throw new Error("usage: node over_http.js <url>");
  }
  const transport = httpTransport(url);
  const sum = await getSum(transport, { a: 2, b: 3 });
  const first = sum.content[0];
  console.log(JSON.stringify({ sumText: first !== undefined && first.type === "text" ? first.text : null }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
