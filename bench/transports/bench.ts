// The transport benchmark's TypeScript client (`scripts/bench.sh transports`): calls
// `bench_spawn` through a transport of the generated bindings and through the raw client of
// `raw.ts` (the same calls with no generated code), in alternating blocks in one process, so
// that both meet the same machine; prints one JSON line for each, with the fields of
// `mcp-client` (requests per second, p50 and p99 in microseconds).
//
//   node bench.js stdio <mcp-server> [CALLS]   # `stdioTransport` and the raw client, each on its
//                                              # own `mcp-server buril`: CALLS / 4 calls one at
//                                              # a time (latency), then CALLS with 32 in flight
//   node bench.js stdio-aa <mcp-server> [CALLS]  # as `stdio`, the raw client against a second
//                                              # raw client (an A/A pair: the instrument's bias)
//   node bench.js http <url> [CALLS]           # `httpTransport` and the raw client, each with its
//                                              # own session of `mcp-server buril-http`: CALLS
//                                              # one at a time; latency and requests per second
//
// With BENCH_SERVER_CPUS set (`1`, say), the stdio servers run under `taskset -c` on those CPUs
// (the script runs the client itself on the others), so that neither client's server is luckier
// in where the scheduler puts it.

import { benchSpawn, httpTransport, stdioTransport } from "./typescript/index.js";
import type { ToolTransport } from "./typescript/index.js";
import { callParams, checkRaw, initialize, rawHttp, rawStdio, serverCommand } from "./raw.js";

const IN_FLIGHT = 32;
/** Calls one at a time per block (32 in flight: eight times as many). */
const BLOCK = 500;
const INPUT = { name: "crate_01", x: 12.5, tag: "props" };


type Call = () => Promise<void>;

function generated(transport: ToolTransport): Call {
  return async () => {
    const spawned = await benchSpawn(transport, INPUT);
    if (spawned.name !== "crate_01") {
      throw new Error(`unexpected answer: ${JSON.stringify(spawned)}`);
    }
  };
}

/** Blocks of calls one at a time, each client's block in turn: latencies (µs, sorted) and seconds. */
async function sequential(clients: Call[], calls: number): Promise<{ latencies: number[][]; seconds: number[] }> {
  const latencies: number[][] = clients.map(() => []);
  const seconds = clients.map(() => 0);
  for (let done = 0, block = 0; done < calls; block++) {
    const size = Math.min(BLOCK, calls - done);
    for (let turn = 0; turn < clients.length; turn++) {
      // Who goes first alternates, so that neither always follows the other.
      const c = (turn + block) % clients.length;
      const client = clients[c] as Call;
      const mine = latencies[c] as number[];
      const total = process.hrtime.bigint();
      for (let k = 0; k < size; k++) {
        const start = process.hrtime.bigint();
        await client();
        mine.push(Number(process.hrtime.bigint() - start) / 1000);
      }
      seconds[c] = (seconds[c] ?? 0) + Number(process.hrtime.bigint() - total) / 1e9;
    }
    done += size;
  }
  for (const each of latencies) {
    each.sort((a, b) => a - b);
  }
  return { latencies, seconds };
}

/** Blocks of calls with `IN_FLIGHT` in flight, each client's in turn: each client's seconds. */
async function pipelined(clients: Call[], calls: number): Promise<number[]> {
  const seconds = clients.map(() => 0);
  for (let done = 0, block = 0; done < calls; block++) {
    const size = Math.min(BLOCK * 8, calls - done);
    for (let turn = 0; turn < clients.length; turn++) {
      const c = (turn + block) % clients.length;
      const client = clients[c] as Call;
      let next = 0;
      const start = process.hrtime.bigint();
      const lane = async (): Promise<void> => {
        while (next < size) {
          next += 1;
          await client();
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      seconds[c] = (seconds[c] ?? 0) + Number(process.hrtime.bigint() - start) / 1e9;
    }
    done += size;
  }
  return seconds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.round((sorted.length - 1) * p)] ?? 0;
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

async function main(): Promise<void> {
  const [kind, target, count] = process.argv.slice(2);
  if (target === undefined || (kind !== "stdio" && kind !== "stdio-aa" && kind !== "http")) {
    throw new Error("usage: node bench.js (stdio <mcp-server>|stdio-aa <mcp-server>|http <url>) [CALLS]");
  }
  if (kind === "stdio" || kind === "stdio-aa") {
    const calls = Number(count ?? 20000);
    const raw = rawStdio(target);
    await raw.call("initialize", initialize);
    raw.notify("notifications/initialized");
    const clients: Call[] = [async () => checkRaw(await raw.call("tools/call", callParams()))];
    const names = ["ts-raw-stdio", "ts-stdio"];
    let other: () => void | Promise<void>;
    if (kind === "stdio-aa") {
      const second = rawStdio(target);
      await second.call("initialize", initialize);
      second.notify("notifications/initialized");
      clients.push(async () => checkRaw(await second.call("tools/call", callParams())));
      names.splice(0, 2, "ts-raw-stdio-a", "ts-raw-stdio-b");
      other = () => second.close();
    } else {
      const transport = stdioTransport(...serverCommand(target));
      clients.push(generated(transport));
      other = () => transport.close();
    }
    await sequential(clients, 200);
    const latencyCalls = Math.max(Math.floor(calls / 4), 100);
    const { latencies } = await sequential(clients, latencyCalls);
    const seconds = await pipelined(clients, calls);
    raw.close();
    await other();
    names.forEach((name, c) => {
      print(name, calls, calls / (seconds[c] ?? 1), latencies[c] ?? [], latencyCalls);
    });
  } else {
    const calls = Number(count ?? 2000);
    const raw = rawHttp(target);
    await raw.call("initialize", initialize);
    await raw.notify("notifications/initialized");
    const transport = httpTransport(target);
    const clients: Call[] = [
      async () => checkRaw(await raw.call("tools/call", callParams())),
      generated(transport),
    ];
    await sequential(clients, Math.min(Math.max(Math.floor(calls / 10), 10), 200));
    const { latencies, seconds } = await sequential(clients, calls);
    await raw.close();
    await transport.close();
    print("ts-raw-http", calls, calls / (seconds[0] ?? 1), latencies[0] ?? [], calls);
    print("ts-http", calls, calls / (seconds[1] ?? 1), latencies[1] ?? [], calls);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
