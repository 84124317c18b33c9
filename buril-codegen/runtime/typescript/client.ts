import { BurilToolError, JsonRpcError } from "./envelope.js";
import type { AbortSignalLike, CallOptions, Envelope, Problem, ToolTransport } from "./envelope.js";
import { envelopeFromCallResult } from "./mcp.js";
import { METADATA_HASH, tools } from "./tools.js";
import type { ToolMap } from "./tools.js";

/**
 * Calls the tool `name` through `transport`: resolves with the tool's output, or rejects with a
 * {@link BurilToolError} when the envelope says `ok: false`. Warnings of a successful call go to
 * `transport.warn`, when it is set.
 *
 * Before anything is sent, the input is checked against the tool's input schema for integers a
 * JavaScript number cannot hold exactly: a value where the schema wants an integer that is not a
 * safe integer (beyond ±`Number.MAX_SAFE_INTEGER`, 2^53 - 1, or not an integer at all) rejects
 * the call with a {@link BurilToolError} of type `validation`, shaped like the host's own, with
 * a problem per such value (its JSON pointer and the value), and the transport is not called. A
 * rounded integer would otherwise reach the tool as another value. Floating-point numbers are
 * never refused for their size.
 *
 * `options` go to the transport (cancellation, a timeout, progress), with `_meta` carrying
 * `buril/metadata` (`METADATA_HASH`) and `buril/tool-metadata` (the tool's own
 * `metadataHash`), so that the server can tell bindings older than itself.
 */
export function callTool<K extends keyof ToolMap>(
  transport: ToolTransport,
  name: K,
  input: ToolMap[K]["input"],
  options: CallOptions = noOptions,
): Promise<ToolMap[K]["output"]> {
  // Not an `async` function: that would be one more promise, and its turns of the microtask
  // queue, on every call (about 5% of a call's time against a fast server, 32 in flight). What
  // the checks throw before anything is sent still rejects the returned promise.
  let answered: Promise<Envelope>;
  try {
    refuseUnsafeIntegers(name, input);
    answered = Promise.resolve(transport.call(name, input, withHashes(name, options)));
  } catch (error) {
    // Rejected with what was thrown, as an `async` function would be.
    return Promise.reject(error);
  }
  return answered.then((envelope) => {
    if (typeof envelope !== "object" || envelope === null || typeof envelope.ok !== "boolean") {
      throw new TypeError(`${name}: the transport answered something that is not an envelope`);
    }
    if (!envelope.ok) {
      throw new BurilToolError(name, envelope);
    }
    if (envelope.warnings !== undefined && envelope.warnings.length > 0) {
      transport.warn?.(name, envelope.warnings);
    }
    return envelope.data as ToolMap[K]["output"];
  });
}

/** MCP's tasks extension, which the clients declare on a task tool's call. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Where a task is: `working` and `input_required` until it ends `completed`, `failed` or `cancelled`. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The wire names of the tools whose calls become tasks (`#[tool(task)]`). */
export type TaskToolName = {
  [K in keyof ToolMap]: ToolMap[K] extends { task: string } ? K : never;
}[keyof ToolMap];

/** A task as `tasks/get` answered it. */
export interface TaskSnapshot {
  /** The task's handle. */
  readonly taskId: string;
  /** Where it is. */
  readonly status: TaskStatus;
  /** What it is doing, or why it ended. */
  readonly statusMessage?: string;
  /** How often to poll it, in milliseconds. */
  readonly pollIntervalMs?: number;
  /** How long the server keeps it, counted from its creation, in milliseconds. */
  readonly ttlMs?: number | null;
  /** The questions it waits on, by key (`input_required`). */
  readonly inputRequests?: { readonly [key: string]: unknown };
  /** Its envelope, once it completed (or was cancelled). */
  readonly envelope?: Envelope;
}

/** How {@link TaskHandle.wait} waits. */
export interface TaskWaitOptions {
  /** Cancels the task when aborted (`tasks/cancel`); the wait rejects as `cancelled`. */
  signal?: AbortSignalLike;
  /** Receives each status the task is seen in. */
  onStatus?: (task: TaskSnapshot) => void;
  /** Gives up waiting (the task goes on) after this many milliseconds: rejects as `timeout`. */
  timeoutMs?: number;
}

/** A running task of the tool `K`: poll it, wait for its output, or cancel it. */
export interface TaskHandle<K extends keyof ToolMap> {
  /** The tool. */
  readonly tool: K;
  /** The task's handle (`task_…`), valid for its TTL. */
  readonly taskId: string;
  /** The task as last seen. */
  readonly last: TaskSnapshot;
  /** The task now (`tasks/get`). */
  poll(): Promise<TaskSnapshot>;
  /**
   * Resolves with the tool's output once the task completed; rejects with a
   * {@link BurilToolError} when the tool failed, the task failed (`runtime`), was cancelled
   * (`cancelled`), or `timeoutMs` passed (`timeout`).
   */
  wait(options?: TaskWaitOptions): Promise<ToolMap[K]["output"]>;
  /** Asks the server to cancel the task (an ended task stays as it is). */
  cancel(): Promise<void>;
  /** Answers the task's question `key` (see `inputRequests`) with `answer` (`tasks/update`). */
  answer(key: string, answer: unknown): Promise<void>;
}

/**
 * Starts the task tool `name` with `input` as an MCP task (the tasks extension declared on the
 * call) and resolves with its handle once the server stored it. The input is checked as
 * {@link callTool} checks it. The transport must have `request` (all the bindings' transports
 * do; `mcpTransport` when given the SDK's `ResultSchema`). A server that answered at once (a
 * quick task) gives a handle that has already completed.
 */
export async function startTask<K extends TaskToolName>(
  transport: ToolTransport,
  name: K,
  input: ToolMap[K]["input"],
  options: { signal?: AbortSignalLike; meta?: { readonly [key: string]: unknown } } = {},
): Promise<TaskHandle<K>> {
  const request = transport.request?.bind(transport);
  if (request === undefined) {
    throw new TypeError(`${name}: this transport cannot follow tasks (it has no \`request\`)`);
  }
  refuseUnsafeIntegers(name, input);
  const meta = {
    ...withHashes(name, options.meta === undefined ? noOptions : { meta: options.meta }).meta,
    ...followsTasks,
  };
  const sent = options.signal === undefined ? {} : { signal: options.signal };
  let result: unknown;
  try {
    result = await request("tools/call", { name, arguments: input, _meta: meta }, sent);
  } catch (error) {
    if (error instanceof JsonRpcError && error.code === -32602) {
      throw new BurilToolError(name, { ok: false, type: "not_found", error: error.message });
    }
    throw error;
  }
  const created = isObject(result) ? result : {};
  if (created["resultType"] !== "task" || typeof created["taskId"] !== "string") {
    // Answered at once: the call's own result.
    const envelope = envelopeFromCallResult(result);
    if (!envelope.ok) {
      throw new BurilToolError(name, envelope);
    }
    return settledTask(name, envelope);
  }
  return taskHandle(request, name, snapshotOf(created));
}

type Request = NonNullable<ToolTransport["request"]>;

/** The `_meta` of every request of a task: the client follows tasks (its capability, per request). */
const followsTasks = Object.freeze({
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION]: {} } },
});

/** The snapshot of a `CreateTaskResult` or a `tasks/get` answer. */
function snapshotOf(result: JsonObject): TaskSnapshot {
  const status = result["status"];
  const snapshot: { -readonly [K in keyof TaskSnapshot]: TaskSnapshot[K] } = {
    taskId: String(result["taskId"]),
    status: (typeof status === "string" ? status : "working") as TaskStatus,
  };
  if (typeof result["statusMessage"] === "string") {
    snapshot.statusMessage = result["statusMessage"];
  }
  if (typeof result["pollIntervalMs"] === "number") {
    snapshot.pollIntervalMs = result["pollIntervalMs"];
  }
  if (typeof result["ttlMs"] === "number" || result["ttlMs"] === null) {
    snapshot.ttlMs = result["ttlMs"];
  }
  if (isObject(result["inputRequests"])) {
    snapshot.inputRequests = result["inputRequests"];
  }
  if (status === "completed" && result["result"] !== undefined) {
    snapshot.envelope = envelopeFromCallResult(result["result"]);
  }
  return snapshot;
}

/** A handle of a task that has already completed with `envelope` (a server that answered at once). */
function settledTask<K extends keyof ToolMap>(name: K, envelope: Envelope): TaskHandle<K> {
  const last: TaskSnapshot = { taskId: "", status: "completed", envelope };
  return {
    tool: name,
    taskId: "",
    last,
    poll: () => Promise.resolve(last),
    wait: () => Promise.resolve(outputOf(name, last)),
    cancel: () => Promise.resolve(),
    answer: () => Promise.reject(new Error(`${name}: the task has ended; nothing waits for an answer`)),
  };
}

/** The output of the ended task `task` of `name`, or the error it ended with. */
function outputOf<K extends keyof ToolMap>(name: K, task: TaskSnapshot): ToolMap[K]["output"] {
  if (task.status === "completed" && task.envelope !== undefined) {
    if (!task.envelope.ok) {
      throw new BurilToolError(name, task.envelope);
    }
    return task.envelope.data as ToolMap[K]["output"];
  }
  const type = task.status === "cancelled" ? "cancelled" : "runtime";
  const error = task.statusMessage ?? `the task ${task.taskId} ended ${task.status}`;
  throw new BurilToolError(name, { ok: false, type, error });
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    (globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown }).setTimeout(resolve, ms);
  });

function taskHandle<K extends keyof ToolMap>(request: Request, name: K, first: TaskSnapshot): TaskHandle<K> {
  const taskId = first.taskId;
  let last = first;
  const poll = async (): Promise<TaskSnapshot> => {
    const answer = await request("tasks/get", { taskId, _meta: followsTasks });
    last = snapshotOf(isObject(answer) ? answer : {});
    return last;
  };
  const cancel = async (): Promise<void> => {
    await request("tasks/cancel", { taskId, _meta: followsTasks });
  };
  const answer = async (key: string, value: unknown): Promise<void> => {
    await request("tasks/update", { taskId, inputResponses: { [key]: value }, _meta: followsTasks });
  };
  const wait = async (options: TaskWaitOptions = {}): Promise<ToolMap[K]["output"]> => {
    const { signal, onStatus, timeoutMs } = options;
    const until = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    let seen: TaskStatus | undefined;
    for (;;) {
      if (signal?.aborted === true) {
        await cancel().catch(() => undefined);
        throw new BurilToolError(name, { ok: false, type: "cancelled", error: `${name} was cancelled` });
      }
      const task = await poll();
      if (task.status !== seen) {
        seen = task.status;
        onStatus?.(task);
      }
      if (task.status === "completed" || task.status === "failed" || task.status === "cancelled") {
        return outputOf(name, task);
      }
      if (until !== undefined && Date.now() >= until) {
        throw new BurilToolError(name, {
          ok: false,
          type: "timeout",
          error: `${name}: the task ${taskId} was still ${task.status} after ${timeoutMs ?? 0} ms`,
        });
      }
      const pause = Math.min(Math.max(task.pollIntervalMs ?? 500, 10), 1000);
      await sleep(until === undefined ? pause : Math.max(0, Math.min(pause, until - Date.now())));
    }
  };
  return {
    tool: name,
    taskId,
    get last() {
      return last;
    },
    poll,
    wait,
    cancel,
    answer,
  };
}

/** Throws the `validation` error of an input with integers a number cannot hold exactly. */
function refuseUnsafeIntegers(name: string, input: unknown): void {
  const problems = unsafeIntegers(name, input);
  if (problems.length > 0) {
    throw new BurilToolError(name, {
      ok: false,
      type: "validation",
      error: invalidInput(problems),
      problems: [...problems],
    });
  }
}

/** A JSON Schema object, as far as the integer check reads it. */
type Schema = { readonly [keyword: string]: unknown };

/** A JSON object of the input. */
type JsonObject = { readonly [key: string]: unknown };

/** The most problems one refusal lists, as the host does. */
const maxProblems = 32;

/** How many schemas the check may pass through for one value (`$ref`s, unions) before it stops. */
const maxHops = 64;

/** What `callTool` reads of a tool's definition. */
interface Definition {
  readonly name: string;
  readonly inputSchema: unknown;
  readonly metadataHash: string;
}

/** Each tool's definition, by wire name (built on first use). */
let definitions: Map<string, Definition> | undefined;

/** The definition of the tool `name`, if it is one of `tools`. */
function definitionOf(name: string): Definition | undefined {
  if (definitions === undefined) {
    definitions = new Map();
    const all: readonly Definition[] = tools;
    for (const definition of all) {
      definitions.set(definition.name, definition);
    }
  }
  return definitions.get(name);
}

/** The input schema of the tool `name`, if it is one of `tools`. */
function inputSchemaOf(name: string): unknown {
  return definitionOf(name)?.inputSchema;
}

/** The host's wording of a validation failure: `invalid input: /a: ...`. */
function invalidInput(problems: readonly Problem[]): string {
  const listed = problems.map((p) => `${p.path === "" ? "input" : p.path}: ${p.message}`);
  return listed.length === 1
    ? `invalid input: ${listed[0] ?? ""}`
    : `invalid input (${listed.length} problems): ${listed.join("; ")}`;
}

/**
 * Every value of `input` where the input schema of `name` wants an integer and the value is a
 * number that is not a safe integer.
 */
function unsafeIntegers(name: string, input: unknown): readonly Problem[] {
  const root = integerSchemaOf(name);
  if (root === null) {
    return noProblems;
  }
  const problems: Problem[] = [];
  check(root, root, input, "", problems, 0);
  return problems;
}

const noProblems: readonly Problem[] = [];

/** The options of a call that has none (one object, never changed). */
const noOptions: CallOptions = {};

/** The options of a call without options of its own, with the hashes, made once per tool (frozen). */
const hashesOnly = new Map<string, CallOptions>();

/** `options` with `_meta` carrying the bindings' hashes. */
function withHashes(name: string, options: CallOptions): CallOptions {
  if (options === noOptions) {
    let made = hashesOnly.get(name);
    if (made === undefined) {
      const toolHash = definitionOf(name)?.metadataHash;
      const meta: { [key: string]: unknown } = { "buril/metadata": METADATA_HASH };
      if (toolHash !== undefined) {
        meta["buril/tool-metadata"] = toolHash;
      }
      made = Object.freeze({ meta: Object.freeze(meta) });
      hashesOnly.set(name, made);
    }
    return made;
  }
  const meta: { [key: string]: unknown } = { ...options.meta, "buril/metadata": METADATA_HASH };
  const toolHash = definitionOf(name)?.metadataHash;
  if (toolHash !== undefined) {
    meta["buril/tool-metadata"] = toolHash;
  }
  return { ...options, meta };
}

/** Each tool's input schema if it mentions `integer` anywhere, else `null` (nothing to check). */
const integerSchemas = new Map<string, Schema | null>();

function integerSchemaOf(name: string): Schema | null {
  let found = integerSchemas.get(name);
  if (found === undefined) {
    const root = inputSchemaOf(name);
    found = isSchema(root) && JSON.stringify(root).includes('"integer"') ? root : null;
    integerSchemas.set(name, found);
  }
  return found;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function has(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** A JSON pointer token (RFC 6901). */
function token(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The schema `reference` names within `root` (`#`, `#/$defs/Name`, any `#/...` pointer). */
function resolve(root: Schema, reference: string): unknown {
  if (!reference.startsWith("#")) {
    return undefined;
  }
  let at: unknown = root;
  const pointer = reference.slice(1);
  if (pointer === "") {
    return at;
  }
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(at) || !has(at, key)) {
      return undefined;
    }
    at = at[key];
  }
  return at;
}

/** The JSON types `schema` names (`type`: a string or a list); `undefined` when it names none. */
function typesOf(schema: Schema): readonly unknown[] | undefined {
  const type = schema["type"];
  if (typeof type === "string") {
    return [type];
  }
  return Array.isArray(type) ? type : undefined;
}

/** Whether `value` is a JSON primitive that `expected` equals. */
function same(expected: unknown, value: unknown): boolean {
  return typeof expected === "object" && expected !== null ? true : expected === value;
}

/**
 * Whether a union's variant could be the one `value` is: its JSON type, `const`, `enum`,
 * required properties, closed properties and constant (tag) properties, looked at without
 * descending into the values.
 */
function admits(root: Schema, schema: unknown, value: unknown, hops: number): boolean {
  if (!isSchema(schema) || hops > maxHops) {
    return schema !== false;
  }
  const reference = schema["$ref"];
  if (typeof reference === "string" && !admits(root, resolve(root, reference), value, hops + 1)) {
    return false;
  }
  const types = typesOf(schema);
  if (types !== undefined) {
    const type =
      value === null
        ? "null"
        : Array.isArray(value)
          ? "array"
          : typeof value === "number"
            ? "number"
            : typeof value;
    const typed = types.some((t) => t === type || (type === "number" && t === "integer"));
    if (!typed) {
      return false;
    }
  }
  if (has(schema, "const") && !same(schema["const"], value)) {
    return false;
  }
  const values = schema["enum"];
  if (Array.isArray(values) && !values.some((v) => same(v, value))) {
    return false;
  }
  if (isObject(value)) {
    const required = schema["required"];
    if (Array.isArray(required) && !required.every((k) => typeof k !== "string" || has(value, k))) {
      return false;
    }
    const properties = schema["properties"];
    const known: Schema = isSchema(properties) ? properties : {};
    if (schema["additionalProperties"] === false && !Object.keys(value).every((k) => has(known, k))) {
      return false;
    }
    for (const key of Object.keys(known)) {
      let property = known[key];
      if (isSchema(property) && typeof property["$ref"] === "string") {
        property = resolve(root, property["$ref"]);
      }
      if (isSchema(property) && has(property, "const") && has(value, key)) {
        if (!same(property["const"], value[key])) {
          return false;
        }
      }
    }
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const variants = schema[keyword];
    if (Array.isArray(variants) && !variants.some((v) => admits(root, v, value, hops + 1))) {
      return false;
    }
  }
  const all = schema["allOf"];
  if (Array.isArray(all) && !all.every((s) => admits(root, s, value, hops + 1))) {
    return false;
  }
  return true;
}

/**
 * Adds to `problems` every number under `value` (at `pointer`) that `schema` wants as an
 * integer and that is not a safe integer. `hops` counts the schemas passed through for this
 * value, so that a schema referring to itself ends.
 */
function check(
  root: Schema,
  schema: unknown,
  value: unknown,
  pointer: string,
  problems: Problem[],
  hops: number,
): void {
  if (!isSchema(schema) || hops > maxHops || problems.length >= maxProblems) {
    return;
  }
  const reference = schema["$ref"];
  if (typeof reference === "string") {
    check(root, resolve(root, reference), value, pointer, problems, hops + 1);
  }
  const all = schema["allOf"];
  if (Array.isArray(all)) {
    for (const part of all) {
      check(root, part, value, pointer, problems, hops + 1);
    }
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const variants = schema[keyword];
    if (Array.isArray(variants)) {
      union(root, variants, value, pointer, problems, hops + 1);
    }
  }
  if (typeof value === "number") {
    const types = typesOf(schema);
    const integer = types !== undefined && types.includes("integer") && !types.includes("number");
    if (integer && !Number.isSafeInteger(value)) {
      problems.push({ path: pointer, message: unsafeMessage(value) });
    }
  } else if (Array.isArray(value)) {
    const items = schema["items"];
    const prefix = schema["prefixItems"];
    value.forEach((item: unknown, index) => {
      const each = Array.isArray(prefix) && index < prefix.length ? prefix[index] : items;
      check(root, each, item, `${pointer}/${index}`, problems, 0);
    });
  } else if (isObject(value)) {
    const properties = schema["properties"];
    const additional = schema["additionalProperties"];
    for (const key of Object.keys(value)) {
      const property =
        isSchema(properties) && has(properties, key) ? properties[key] : additional;
      check(root, property, value[key], `${pointer}/${token(key)}`, problems, 0);
    }
  }
}

/**
 * Checks a value against a union: a problem only if every variant that could be the value's
 * has one (a large float is fine where a variant is `type: number`); then those of the first.
 */
function union(
  root: Schema,
  variants: readonly unknown[],
  value: unknown,
  pointer: string,
  problems: Problem[],
  hops: number,
): void {
  let first: Problem[] | undefined;
  for (const variant of variants) {
    if (!admits(root, variant, value, hops)) {
      continue;
    }
    const found: Problem[] = [];
    check(root, variant, value, pointer, found, hops);
    if (found.length === 0) {
      return;
    }
    first ??= found;
  }
  for (const problem of first ?? []) {
    if (problems.length < maxProblems) {
      problems.push(problem);
    }
  }
}

/** What is wrong with a number where an integer is wanted. */
function unsafeMessage(value: number): string {
  if (!Number.isInteger(value)) {
    return `expected an integer, got the number ${String(value)}; it was not sent`;
  }
  return (
    `the integer ${String(value)} is beyond ±Number.MAX_SAFE_INTEGER (${Number.MAX_SAFE_INTEGER}): ` +
    "a JavaScript number does not hold it exactly, so it was not sent"
  );
}
