//! buril's validation against an independent validator, on every example tool.
//!
//! For each tool, inputs are generated from its published input schema (the `mcp` profile's,
//! what `tools/list` serves): valid samples, then mutations of each property (left out, of
//! another type, out of range, an integer-valued float, an unknown property beside it, nested
//! deeper). Ajv (draft 2020-12, every error, installed by `scripts/test.sh` into
//! `interop/node_modules`) judges each one, and the whole dispatcher answers it:
//!
//! - the verdicts agree: an input Ajv accepts is never refused by buril's validation, and one
//!   Ajv refuses is refused, as `validation` with its problems;
//! - the pointers agree: every pointer buril names is one where Ajv finds a problem, and every
//!   problem Ajv finds lies at, above or below a pointer buril names;
//! - every input the schema accepts reaches the tool: no `validation` answer with problems (the
//!   shape of a refusal by the validator or by serde after it) for a valid input.
//!
//! The test fails, never skips, when node or Ajv is missing.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use buril::profile::{self, Profile};
use buril::{Dispatcher, Policy};
use serde_json::{Map, Value, json};
use tools::Project;

/// Numbers whose size JavaScript keeps exactly: bounds beyond it are probed far outside.
const EXACT: f64 = 9_007_199_254_740_992.0;

#[test]
fn validation_agrees_with_ajv_on_every_example_tool() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open_or_create(dir.path()).unwrap();
    let dispatcher = Dispatcher::builder()
        .state(project)
        .policy(Policy::new().allow_dangerous(true))
        .timeout(Duration::from_secs(20))
        .build();
    let registry = buril::registry();
    let mut schemas = Map::new();
    let mut cases: Vec<(String, Value)> = Vec::new();
    for &tool in registry.linked() {
        let definition = profile::render(Profile::Mcp, tool)
            .map(|rendered| rendered.value)
            .unwrap();
        let schema = definition["inputSchema"].clone();
        for input in inputs(&schema) {
            cases.push((tool.name().to_owned(), input));
        }
        schemas.insert(tool.name().to_owned(), schema);
    }
    assert!(registry.len() >= 30, "only {} tools", registry.len());
    let verdicts = ajv(&schemas, &cases);

    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for ((tool, input), verdict) in cases.iter().zip(&verdicts) {
        let envelope = dispatcher
            .invoke(tool, input.clone(), buril::CallOptions::default())
            .into_envelope();
        let refused = envelope["type"] == "validation";
        let problems: Vec<String> = envelope["problems"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|p| p["path"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let case = || format!("{tool} {input}\n  buril: {envelope}\n  ajv: {verdict}");
        if verdict["valid"] == true {
            valid += 1;
            if refused && !problems.is_empty() {
                failures.push(format!("refused an input the schema accepts: {}", case()));
            }
            continue;
        }
        invalid += 1;
        if !refused || problems.is_empty() {
            failures.push(format!("accepted an input the schema refuses: {}", case()));
            continue;
        }
        let found = ajv_pointers(verdict);
        for pointer in problems.iter().filter(|p| !p.is_empty()) {
            if !found.contains(pointer) {
                failures.push(format!(
                    "named `{pointer}`, where Ajv finds no problem: {}",
                    case()
                ));
            }
        }
        for pointer in &found {
            let covered = problems
                .iter()
                .any(|p| related(p, pointer) || p.is_empty() && pointer.is_empty());
            if !covered {
                failures.push(format!("did not name `{pointer}`: {}", case()));
            }
        }
    }
    assert!(
        valid >= 100 && invalid >= 500,
        "too few cases: {valid} valid, {invalid} invalid"
    );
    assert!(
        failures.is_empty(),
        "{} of {} inputs disagree ({valid} valid, {invalid} invalid):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Deeper than the input limits: refused before validation, whatever the schema says.
#[test]
fn inputs_past_the_depth_limit_are_refused_by_every_tool() {
    let dispatcher = Dispatcher::builder()
        .policy(Policy::new().allow_dangerous(true))
        .build();
    let mut deep = json!(1);
    for _ in 0..buril::InputLimits::DEFAULT.max_depth + 1 {
        deep = json!([deep]);
    }
    for &tool in buril::registry().linked() {
        let envelope = dispatcher
            .invoke(
                tool.name(),
                json!({"nested": deep.clone()}),
                buril::CallOptions::default(),
            )
            .into_envelope();
        assert_eq!(
            envelope["type"],
            "validation",
            "{}: {envelope}",
            tool.name()
        );
        assert!(
            envelope["error"].as_str().unwrap().contains("levels"),
            "{}: {envelope}",
            tool.name()
        );
    }
}

/// Whether one pointer is the other or lies under it.
fn related(a: &str, b: &str) -> bool {
    let under = |inner: &str, outer: &str| {
        inner == outer || (inner.starts_with(outer) && inner[outer.len()..].starts_with('/'))
    };
    under(a, b) || under(b, a)
}

/// The pointers where Ajv finds problems: a missing or unknown property at its own pointer.
fn ajv_pointers(verdict: &Value) -> BTreeSet<String> {
    let mut pointers = BTreeSet::new();
    for error in verdict["errors"].as_array().into_iter().flatten() {
        let at = error["instancePath"].as_str().unwrap_or_default();
        let params = &error["params"];
        let pointer = match error["keyword"].as_str() {
            Some("required") => child(at, params["missingProperty"].as_str().unwrap()),
            Some("additionalProperties") => {
                child(at, params["additionalProperty"].as_str().unwrap())
            }
            _ => at.to_owned(),
        };
        pointers.insert(pointer);
    }
    pointers
}

fn child(pointer: &str, token: &str) -> String {
    buril::pointer::child(pointer, token)
}

/// Ajv's verdict on each case, from one node process.
fn ajv(schemas: &Map<String, Value>, cases: &[(String, Value)]) -> Vec<Value> {
    let script = buril_test_support::bin::workspace().join("interop/ajv/validate.js");
    let mut child = Command::new("node")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node runs the Ajv script (scripts/test.sh installs Ajv into interop/)");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "{}", json!({ "schemas": schemas })).unwrap();
    let ready: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(ready["ready"], schemas.len(), "Ajv compiled every schema");
    let verdicts = std::thread::scope(|scope| {
        // Written from another thread, so that neither pipe fills while the other waits.
        let writer = scope.spawn(move || {
            for (tool, input) in cases {
                writeln!(stdin, "{}", json!({"schema": tool, "input": input})).unwrap();
            }
        });
        let verdicts: Vec<Value> = (0..cases.len())
            .map(|_| serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap())
            .collect();
        writer.join().unwrap();
        verdicts
    });
    assert!(child.wait().unwrap().success());
    verdicts
}

/// Generates inputs from an input schema.
struct Generator<'a> {
    root: &'a Value,
}

impl<'a> Generator<'a> {
    /// The schema `schema` stands for: `$ref`s followed.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..16 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    schema = self
                        .root
                        .pointer(reference.trim_start_matches('#'))
                        .unwrap_or(&Value::Bool(true));
                }
                None => break,
            }
        }
        schema
    }

    /// The non-null branch of a nullable `anyOf`, or the first branch of a union.
    fn branch(&self, schema: &'a Value) -> &'a Value {
        let schema = self.resolve(schema);
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                let chosen = branches
                    .iter()
                    .find(|b| self.resolve(b).get("type") != Some(&json!("null")))
                    .unwrap_or(&branches[0]);
                return self.branch(chosen);
            }
        }
        schema
    }

    fn types(schema: &Value) -> Vec<&str> {
        match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// A value the schema accepts, as far as a simple walk can tell.
    fn sample(&self, schema: &'a Value, depth: usize) -> Value {
        let schema = self.branch(schema);
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return values
                .iter()
                .find(|v| !v.is_null())
                .unwrap_or(&values[0])
                .clone();
        }
        let types = Self::types(schema);
        let kind = types.iter().find(|t| **t != "null").copied();
        match kind {
            Some("string") => {
                let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1);
                json!("a".repeat(min.max(1) as usize))
            }
            Some("integer") => json!(clamp(schema, 1.0) as i64),
            Some("number") => json!(clamp(schema, 1.5)),
            Some("boolean") => json!(true),
            Some("array") => {
                let items = schema.get("items").unwrap_or(&Value::Bool(true));
                let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1);
                if depth > 6 {
                    return json!([]);
                }
                Value::Array(
                    (0..count.max(1))
                        .map(|_| self.sample(items, depth + 1))
                        .collect(),
                )
            }
            Some("object") | None if schema.get("properties").is_some() || kind.is_some() => {
                let mut object = Map::new();
                if depth > 6 {
                    return Value::Object(object);
                }
                if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                    for (name, property) in properties {
                        object.insert(name.clone(), self.sample(property, depth + 1));
                    }
                }
                if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
                    object.insert("key".into(), self.sample(extra, depth + 1));
                }
                Value::Object(object)
            }
            Some("null") => Value::Null,
            _ => json!("free-form"),
        }
    }

    /// Every mutation of `value` at every site below it, with the site's schema.
    fn mutations(&self, schema: &'a Value, value: &Value, at: &[String], out: &mut Vec<Mutation>) {
        let schema = self.branch(schema);
        let types = Self::types(schema);
        let mut wrong = vec![json!(null), json!({"x": 1}), json!([1, "x"])];
        if types.contains(&"string") || schema.get("enum").is_some() {
            wrong.extend([json!(7), json!(true), json!("not-one-of-the-values")]);
        } else {
            wrong.extend([json!("text"), json!(true)]);
        }
        if types.contains(&"integer") || types.contains(&"number") {
            for (key, step) in [("minimum", -1.0), ("maximum", 1.0)] {
                if let Some(bound) = schema.get(key).and_then(Value::as_f64) {
                    if bound.abs() < EXACT {
                        wrong.push(json!(bound + step));
                        wrong.push(json!(bound));
                    } else {
                        wrong.push(json!(bound * 10.0));
                    }
                }
            }
            wrong.extend([json!(2.0), json!(-0.0), json!(2.5), json!(1e2), json!(-7)]);
        }
        if types.contains(&"array") {
            wrong.push(json!([]));
        }
        // Nested deeper, within the input limits.
        let mut nested = value.clone();
        for _ in 0..12 {
            nested = json!([nested]);
        }
        wrong.push(nested);
        for replacement in wrong {
            // `null` for the whole input is no input, by the dispatcher's documented rule (the
            // `null_input_is_no_input` test in buril's validation tests).
            if at.is_empty() && replacement.is_null() {
                continue;
            }
            out.push(Mutation::Replace(at.to_vec(), replacement));
        }
        match value {
            Value::Object(object) => {
                out.push(Mutation::Insert(at.to_vec(), "zz_unknown".into(), json!(1)));
                let properties = schema.get("properties").and_then(Value::as_object);
                for (name, inner) in object {
                    let mut path = at.to_vec();
                    path.push(name.clone());
                    out.push(Mutation::Remove(path.clone()));
                    let property = properties
                        .and_then(|p| p.get(name))
                        .or_else(|| schema.get("additionalProperties"))
                        .unwrap_or(&Value::Bool(true));
                    self.mutations(property, inner, &path, out);
                }
            }
            Value::Array(items) => {
                let item_schema = schema.get("items").unwrap_or(&Value::Bool(true));
                for (index, inner) in items.iter().enumerate().take(2) {
                    let mut path = at.to_vec();
                    path.push(index.to_string());
                    self.mutations(item_schema, inner, &path, out);
                }
            }
            _ => {}
        }
    }
}

/// A number inside the schema's bounds, near `preferred`.
fn clamp(schema: &Value, preferred: f64) -> f64 {
    let mut value = preferred;
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        value = value.max(min);
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        value = value.min(max);
    }
    value
}

enum Mutation {
    Replace(Vec<String>, Value),
    Remove(Vec<String>),
    Insert(Vec<String>, String, Value),
}

impl Mutation {
    fn apply(&self, base: &Value) -> Value {
        let mut value = base.clone();
        let at = |path: &[String]| buril::pointer::from_tokens(path);
        match self {
            Mutation::Replace(path, replacement) => {
                if let Some(node) = value.pointer_mut(&at(path)) {
                    *node = replacement.clone();
                }
            }
            Mutation::Remove(path) => {
                let (last, parent) = path.split_last().unwrap();
                if let Some(Value::Object(object)) = value.pointer_mut(&at(parent)) {
                    object.remove(last);
                }
            }
            Mutation::Insert(path, key, inserted) => {
                if let Some(Value::Object(object)) = value.pointer_mut(&at(path)) {
                    object.insert(key.clone(), inserted.clone());
                }
            }
        }
        value
    }
}

/// The inputs tried on one tool: a full sample, the sample with only its required properties,
/// and every mutation of the full sample.
fn inputs(schema: &Value) -> Vec<Value> {
    let generator = Generator { root: schema };
    let full = generator.sample(schema, 0);
    let mut minimal = full.clone();
    if let (Value::Object(object), Some(required)) = (&mut minimal, schema.get("required")) {
        let required: Vec<&str> = required
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        object.retain(|key, _| required.contains(&key.as_str()));
    }
    let mut mutations = Vec::new();
    generator.mutations(schema, &full, &[], &mut mutations);
    let mut inputs = vec![full.clone(), minimal, json!({})];
    inputs.extend(mutations.iter().map(|m| m.apply(&full)));
    inputs
}
