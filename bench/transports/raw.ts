// The transport benchmark's raw TypeScript client (`bench.ts` runs it beside the generated
// transports): the same calls written directly against Node's `child_process` and the global
// `fetch`, with no generated code, so that the generated transports' overhead is measured
// against the same runtime doing the same work.

import { spawn } from "node:child_process";

/** The stdio server's command and arguments, under `taskset` when BENCH_SERVER_CPUS says so. */
export function serverCommand(path: string): [string, string[]] {
  const cpus = process.env["BENCH_SERVER_CPUS"];
  return cpus === undefined || cpus === "" ? [path, ["buril"]] : ["taskset", ["-c", cpus, path, "buril"]];
}

const ARGUMENTS = { name: "crate_01", x: 12.5, tag: "props" };

export interface Answer {
  id?: number;
  result?: { structuredContent?: { name?: string }; isError?: boolean };
  error?: unknown;
}

export function checkRaw(answer: Answer): void {
  if (answer.result?.isError === true || answer.result?.structuredContent?.name !== "crate_01") {
    throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  }
}

function request(id: number, method: string, params: object): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

export function callParams(): object {
  return { name: "bench_spawn", arguments: ARGUMENTS };
}

/** Newline-delimited JSON-RPC over a child's standard input and output. */
export function rawStdio(server: string): {
  call(method: string, params: object): Promise<Answer>;
  notify(method: string): void;
  close(): void;
} {
  const [command, args] = serverCommand(server);
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map<number, (answer: Answer) => void>();
  let nextId = 1;
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      const answer = JSON.parse(buffer.slice(0, end)) as Answer;
      buffer = buffer.slice(end + 1);
      if (typeof answer.id === "number") {
        const resolve = waiting.get(answer.id);
        waiting.delete(answer.id);
        resolve?.(answer);
      }
      end = buffer.indexOf("\n");
    }
  });
  return {
    call(method, params) {
      const id = nextId++;
      return new Promise<Answer>((resolve) => {
        waiting.set(id, resolve);
        child.stdin.write(`${request(id, method, params)}\n`);
      });
    },
    notify(method) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
    },
    close() {
      child.stdin.end();
    },
  };
}

/** One MCP session over Streamable HTTP with the global `fetch`. */
export function rawHttp(url: string): {
  call(method: string, params: object): Promise<Answer>;
  notify(method: string): Promise<void>;
  close(): Promise<void>;
} {
  let nextId = 1;
  let session: string | null = null;
  const headers = (): Record<string, string> => {
    const all: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    if (session !== null) {
      all["mcp-session-id"] = session;
      all["mcp-protocol-version"] = "2025-11-25";
    }
    return all;
  };
  const post = async (body: string): Promise<string> => {
    const response = await fetch(url, { method: "POST", headers: headers(), body });
    session = response.headers.get("mcp-session-id") ?? session;
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw new Error(`HTTP ${response.status}: ${text}`);
    }
    return text;
  };
  return {
    async call(method, params) {
      const text = await post(request(nextId++, method, params));
      if (text.startsWith("{")) {
        return JSON.parse(text) as Answer;
      }
      // A Server-Sent Events stream: the answer is its last non-empty `data:` line.
      const data = text
        .split("\n")
        .filter((line) => line.startsWith("data:") && line.length > 5)
        .pop();
      return JSON.parse(data?.slice(5) ?? "null") as Answer;
    },
    async notify(method) {
      await post(JSON.stringify({ jsonrpc: "2.0", method }));
    },
    async close() {
      await fetch(url, { method: "DELETE", headers: headers() });
    },
  };
}

export const initialize = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "raw", version: "1" },
};
