// Calls the generated client with a transport that records what reaches it, and prints each
// case as one JSON array, for `tests/integers.rs` to check: whether the input was sent (and
// as what), or what the call rejected with.

import { BurilToolError, integerExtremes, integerSend } from "./typescript/index.js";
import type {
  Envelope,
  IntegerExtremesInput,
  IntegerSendInput,
  ToolTransport,
} from "./typescript/index.js";

declare const console: { log(text: string): void };

const sent: { name: string; input: unknown }[] = [];

const transport: ToolTransport = {
  call(name: string, input: unknown): Promise<Envelope> {
    sent.push({ name, input });
    return Promise.resolve({ ok: true, data: {} });
  },
};

/** What happened to one call. */
async function attempt(label: string, call: () => Promise<unknown>): Promise<unknown> {
  const before = sent.length;
  try {
    await call();
  } catch (error) {
    if (!(error instanceof BurilToolError)) {
      return { label, sent: sent.length > before, threw: String(error) };
    }
    return {
      label,
      sent: sent.length > before,
      refused: {
        isBurilToolError: true,
        tool: error.tool,
        type: error.type,
        error: error.error,
        message: error.message,
        problems: error.problems,
      },
    };
  }
  const last = sent[sent.length - 1];
  return { label, sent: sent.length > before, input: last?.input };
}

const send = (label: string, input: IntegerSendInput): Promise<unknown> =>
  attempt(label, () => integerSend(transport, input));

/** An input of `integer_extremes` with every field at a safe value, then `changes`. */
function extremes(changes: Partial<IntegerExtremesInput>): IntegerExtremesInput {
  return {
    i8: 0,
    i16: 0,
    i32: 0,
    i64: -Number.MAX_SAFE_INTEGER,
    isize: 0,
    u8: 0,
    u16: 0,
    u32: 4294967295,
    u64: Number.MAX_SAFE_INTEGER,
    usize: 0,
    i128: 0,
    u128: 0,
    unbounded: 0,
    percent: 0,
    maybe_u64: null,
    maybe_i64: null,
    maybe_u32: null,
    maybe_usize: null,
    list_u64: [],
    list_maybe_u64: [],
    map_i64: {},
    ...changes,
  };
}

async function main(): Promise<void> {
  const cases = [
    await send("safe max", { count: Number.MAX_SAFE_INTEGER }),
    await send("safe min", { signed: -Number.MAX_SAFE_INTEGER }),
    await send("u32 max", { medium: 4294967295 }),
    await send("large floats", { ratio: 1e300 }),
    await send("tagged float", { pick: { kind: "ratio", r: 2 ** 60 } }),
    await send("untagged float", { amount: 2 ** 60 }),
    await send("untagged safe", { amount: 5, id: 7 }),
    await send("untagged name", { id: "seven" }),
    await send("null", { count: null, pick: null }),
    await send("2^53", { count: 2 ** 53 }),
    await send("safe max + 2", { count: Number.MAX_SAFE_INTEGER + 2 }),
    await send("2^53 + 2", { count: 2 ** 53 + 2 }),
    await send("negative 2^53", { signed: -(2 ** 53) }),
    await send("fraction", { small: 1.5, ratio: 1.5 }),
    await send("list", { counts: [1, 2 ** 53, 3, 2 ** 60] }),
    await send("map", { by_name: { "a/b": 2 ** 53, c: 1 } }),
    await send("tagged", { pick: { kind: "count", n: 2 ** 53 } }),
    await send("untagged", { id: 2 ** 53 }),
    await attempt("extremes safe", () => integerExtremes(transport, extremes({}))),
    await attempt("extremes 2^64", () =>
      integerExtremes(
        transport,
        extremes({ u64: 2 ** 64, maybe_u64: 2 ** 64, list_maybe_u64: [2 ** 63, null] }),
      ),
    ),
  ];
  console.log(JSON.stringify(cases));
}

main().catch((error: unknown) => {
  console.log(JSON.stringify({ failed: String(error) }));
});
