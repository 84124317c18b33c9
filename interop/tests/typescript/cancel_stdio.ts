// Cancels an `asset_search` in flight over `stdioTransport` against a real `tools serve` and
// prints, as JSON, how the call ended and what the server logged about the tool afterwards.
//
// Usage: node cancel_stdio.js <tools> <project> <a.fifo> <log>
//
// The server runs as `sh -c 'exec <tools> serve 2>><log>'` with `BURIL_LOG=buril::dispatch=debug,buril::server=debug`,
// so that its `tracing` events land in <log>. <a.fifo> is a named pipe under the project's
// `Assets/Blocking/`, beside `b.fifo`: the tool blocks reading it (after its progress report
// naming it) until this program writes to it. The call is aborted on that report; then the
// pipe is written, and the program waits (at most a minute) for the server's line saying what
// the tool returned after its call ended: `cancelled` if its context saw the cancellation
// before the next file; had it not, it would block on `b.fifo` and no line would come.

import { readFileSync, writeFileSync } from "node:fs";

import { searchAndAbort } from "./cancel_search.js";

import { sceneList, stdioTransport } from "./typescript/index.js";

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The first line of the server's log that `matches`, within a minute (else null). */
async function logged(log: string, matches: (line: string) => boolean): Promise<string | null> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const line = readFileSync(log, "utf8").split("\n").find(matches);
    if (line !== undefined) {
      return line;
    }
    await sleep(50);
  }
  return null;
}

async function main(): Promise<void> {
  const [tools, project, fifo, log] = process.argv.slice(2);
  if (tools === undefined || project === undefined || fifo === undefined || log === undefined) {
    throw new Error("usage: node cancel_stdio.js <tools> <project> <a.fifo> <log>");
  }
  const env: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  env["BURIL_PROJECT"] = project;
  env["BURIL_LOG"] = "buril::dispatch=debug,buril::server=debug";
  const transport = stdioTransport("sh", ["-c", 'exec "$0" serve 2>>"$1"', tools, log], { env });
  await sceneList(transport, {});
  const { progress, rejected } = await searchAndAbort(transport);

  // Once the server has cancelled the call's context (it logs so), lets the tool's read end;
  // what it does next is what its context knows. Unblocked before, the tool could read on before
  // the server has read the cancellation.
  await logged(log, (l) => l.includes('tool="asset_search"') && l.includes("cancelled the call"));
  writeFileSync(fifo, "unblocked\n");
  const line = await logged(log, (l) => l.includes('tool="asset_search"') && l.includes("returned="));
  const after = await sceneList(transport, {});
  await transport.close();
  process.stdout.write(`${JSON.stringify({ progress, rejected, line, after })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
