// Validates inputs against JSON Schemas with Ajv (draft 2020-12, every error), for the
// differential test of buril's validation (interop/tests/differential.rs).
//
// stdin: one JSON object per line. The first is {"schemas": {NAME: SCHEMA, ...}}; each later one
// is {"schema": NAME, "input": VALUE}. stdout: one line per input,
// {"valid": BOOL, "errors": [{"instancePath", "keyword", "params"}, ...]}.
"use strict";
const readline = require("node:readline");
const Ajv2020 = require("ajv/dist/2020");

// Formats are annotations in 2020-12 unless a validator opts in; buril does not validate them.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const compiled = new Map();
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let first = true;
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  if (first) {
    first = false;
    for (const [name, schema] of Object.entries(message.schemas)) {
      compiled.set(name, ajv.compile(schema));
    }
    process.stdout.write(JSON.stringify({ ready: compiled.size }) + "\n");
    return;
  }
  const validate = compiled.get(message.schema);
  if (!validate) throw new Error(`no schema named ${message.schema}`);
  const valid = validate(message.input);
  const errors = (validate.errors || []).map((e) => ({
    instancePath: e.instancePath,
    keyword: e.keyword,
    params: e.params,
  }));
  process.stdout.write(JSON.stringify({ valid, errors }) + "\n");
});
