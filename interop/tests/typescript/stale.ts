// Calls a real `tools serve --http` through bindings generated from other tool metadata than
// the server's (see `tests/transports.rs`), and prints the warnings the calls drew, the
// bindings' hash and the server's, as JSON.
//
// Usage: node stale.js <url>

import { METADATA_HASH, consoleRead, httpTransport, sceneList } from "./typescript/index.js";

async function main(): Promise<void> {
  const [url] = process.argv.slice(2);
  if (url === undefined) {
    throw new Error("usage: node stale.js <url>");
  }
  const warned: { name: string; warnings: readonly string[] }[] = [];
  const transport = httpTransport(url, { warn: (name, warnings) => warned.push({ name, warnings }) });
  const listed = await sceneList(transport, {});
  const changed = warned.splice(0);
  const read = await consoleRead(transport, { max_count: 1 });
  const unchanged = warned.splice(0);
  const result = {
    metadataHash: METADATA_HASH,
    serverMetadataHash: transport.serverMetadataHash ?? null,
    listed,
    read,
    changed,
    unchanged,
  };
  await transport.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
