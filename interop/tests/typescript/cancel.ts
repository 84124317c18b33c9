// Cancels an `asset_search` in flight over `httpTransport` against a real `tools serve --http`
// and prints, as JSON, what the server sent on that request's response stream, and whether
// the server ended that stream while the tool was still blocked.
//
// Usage: node cancel.js <url> <fifo>
//
// <fifo> is a named pipe under the project's `Assets/`: the tool blocks reading it (after its
// progress report naming it) until this program writes to it, so the call cannot end on its
// own before the cancellation. A `fetch` wrapper copies the call's response stream, so that
// the server's answer to the request is read even after the transport gave up on it.

import { writeFileSync } from "node:fs";

import { searchAndAbort } from "./cancel_search.js";

import { httpTransport, sceneList } from "./typescript/index.js";
import type { FetchInit, FetchLike, FetchResponseLike } from "./typescript/index.js";

interface Message {
  id?: number;
  method?: string;
  params?: { requestId?: number; name?: string };
  result?: unknown;
  error?: unknown;
}

async function main(): Promise<void> {
  const [url, fifo] = process.argv.slice(2);
  if (url === undefined || fifo === undefined) {
    throw new Error("usage: node cancel.js <url> <fifo>");
  }
  const real = globalThis.fetch as unknown as FetchLike;
  const sent: Message[] = [];
  let callId: number | undefined;
  const onStream: Message[] = [];
  let answered: (answer: Message | null) => void = () => {};
  const answer = new Promise<Message | null>((resolve) => {
    answered = resolve;
  });
  const copying: FetchLike = async (target: string, init: FetchInit): Promise<FetchResponseLike> => {
    const message = JSON.parse(init.body ?? "{}") as Message;
    sent.push(message);
    if (message.method !== "tools/call" || message.params?.name !== "asset_search") {
      return real(target, init);
    }
    callId = message.id;
    // The request itself is never aborted: only the transport's copy of its answer is.
    const unabortable: FetchInit = { method: init.method, headers: init.headers };
    if (init.body !== undefined) {
      unabortable.body = init.body;
    }
    const response = (await real(target, unabortable)) as unknown as Response;
    if (response.body === null) {
      throw new Error("the call's answer has no body");
    }
    const [mine, theirs] = response.body.tee();
    void (async () => {
      const reader = mine.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        text += decoder.decode(value, { stream: true });
        const lines = text.split("\n");
        text = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("data:")) {
            continue;
          }
          const data = line.slice(5).trim();
          if (data === "") {
            continue;
          }
          const parsed = JSON.parse(data) as Message;
          onStream.push(parsed);
          if (parsed.id === callId && (parsed.result !== undefined || parsed.error !== undefined)) {
            answered(parsed);
          }
        }
      }
      answered(null);
    })();
    return new Response(theirs, { status: response.status, headers: response.headers }) as unknown as FetchResponseLike;
  };
  const transport = httpTransport(url, { fetch: copying });
  await sceneList(transport, {});
  const { progress, rejected } = await searchAndAbort(transport);

  // The server's answer to the request, or `null` when it ended the stream without one: either
  // way before the tool's read can end.
  const server = await answer;
  const streamEndedWhileBlocked = server === null;
  // Lets the tool's read end.
  writeFileSync(fifo, "unblocked\n");
  const after = await sceneList(transport, {});
  await transport.close();
  const result = {
    callId: callId ?? null,
    progress,
    rejected,
    server,
    streamEndedWhileBlocked,
    onStream: onStream.map((m) => m.method ?? (m.id === undefined ? null : `response ${m.id}`)),
    cancelled: sent.filter((m) => m.method === "notifications/cancelled").map((m) => m.params ?? null),
    methods: sent.map((m) => m.method ?? null),
    after,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
