// The transport benchmark's TypeScript client (`scripts/bench.sh transports`): calls
// `bench_spawn` through a transport of the generated bindings, with the work and the output of
// `mcp-client` (one JSON line: requests per second, p50 and p99 in microseconds).
//
//   node bench.js stdio <mcp-server> [CALLS]   # `mcp-server buril`: CALLS / 4 calls one at a
//                                              # time (latency), then CALLS with 32 in flight
//   node bench.js http <url> [CALLS]           # `mcp-server buril-http`: CALLS one at a time;
//                                              # latency and requests per second over them

import { benchSpawn, httpTransport, stdioTransport } from "./typescript/index.js";
import type { ToolTransport } from "./typescript/index.js";

const IN_FLIGHT = 32;
const INPUT = { name: "crate_01", x: 12.5, tag: "props" };

async function call(transport: ToolTransport): Promise<void> {
  const spawned = await benchSpawn(transport, INPUT);
  if (spawned.name !== "crate_01") {
    throw new Error(`unexpected answer: ${JSON.stringify(spawned)}`);
  }
}

/** Microseconds of `calls` calls one at a time, sorted. */
async function sequential(transport: ToolTransport, calls: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let k = 0; k < calls; k++) {
    const start = process.hrtime.bigint();
    await call(transport);
    latencies.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return latencies.sort((a, b) => a - b);
}

/** Seconds of `calls` calls with `IN_FLIGHT` in flight. */
async function pipelined(transport: ToolTransport, calls: number): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  const lane = async (): Promise<void> => {
    while (next < calls) {
      next += 1;
      await call(transport);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.round((sorted.length - 1) * p)] ?? 0;
}

async function main(): Promise<void> {
  const [kind, target, count] = process.argv.slice(2);
  if (target === undefined || (kind !== "stdio" && kind !== "http")) {
    throw new Error("usage: node bench.js (stdio <mcp-server>|http <url>) [CALLS]");
  }
  if (kind === "stdio") {
    const calls = Number(count ?? 20000);
    const transport = stdioTransport(target, ["buril"]);
    for (let k = 0; k < 200; k++) {
      await call(transport);
    }
    const latencyCalls = Math.max(Math.floor(calls / 4), 100);
    const latencies = await sequential(transport, latencyCalls);
    const seconds = await pipelined(transport, calls);
    await transport.close();
    print("ts-stdio", calls, calls / seconds, latencies, latencyCalls);
  } else {
    const calls = Number(count ?? 2000);
    const transport = httpTransport(target);
    for (let k = 0; k < Math.min(Math.max(Math.floor(calls / 10), 10), 200); k++) {
      await call(transport);
    }
    const start = process.hrtime.bigint();
    const latencies = await sequential(transport, calls);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    await transport.close();
    print("ts-http", calls, calls / seconds, latencies, calls);
  }
}

function print(server: string, calls: number, rps: number, latencies: number[], latencyCalls: number): void {
  console.log(
    JSON.stringify({
      server,
      calls,
      requests_per_second: rps,
      p50_us: percentile(latencies, 0.5),
      p99_us: percentile(latencies, 0.99),
      latency_calls: latencyCalls,
    }),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
