//! Input validation: every problem at once, located by JSON pointers, worded for a model, and
//! the tool's body never runs on invalid input.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use buril_test_support::call;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

static GUARD_OBJECT_RUNS: AtomicUsize = AtomicUsize::new(0);
static GUARD_BODY_RUNS: AtomicUsize = AtomicUsize::new(0);
static NESTED_RUNS: AtomicUsize = AtomicUsize::new(0);
static PING_RUNS: AtomicUsize = AtomicUsize::new(0);

/// How to move.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Walk,
    Run,
    Teleport,
}

/// The middle of a nested input.
#[derive(Debug, Deserialize, JsonSchema)]
struct Outer {
    b: Vec<u32>,
    label: Option<String>,
}

/// Settings that allow no other keys.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Settings {
    verbose: bool,
    depth: u32,
}

/// Moves something.
#[buril::tool(off_thread)]
fn val_move(
    /// Where to.
    path: String,
    /// How many steps.
    count: u32,
    /// How to move.
    mode: Mode,
    /// Keep the previous position.
    additive: Option<bool>,
) -> String {
    format!(
        "{path} x{count} {mode:?} {}",
        additive.map_or("-", |a| if a { "+" } else { "=" })
    )
}

/// Configures strictly.
#[buril::tool(off_thread)]
fn val_configure(
    /// Settings.
    settings: Settings,
) -> bool {
    settings.verbose
}

/// Counts its runs; used by one test only, so that the count is that test's.
#[buril::tool(off_thread)]
fn val_guard_object(
    /// Where to.
    path: String,
) -> String {
    GUARD_OBJECT_RUNS.fetch_add(1, Ordering::SeqCst);
    path
}

/// Counts its runs; used by one test only, so that the count is that test's.
#[buril::tool(off_thread)]
fn val_guard_body(
    /// Where to.
    path: String,
    /// How many steps.
    count: u32,
    /// How to move.
    mode: Mode,
) -> String {
    GUARD_BODY_RUNS.fetch_add(1, Ordering::SeqCst);
    format!("{path} {count} {mode:?}")
}

/// Counts steps.
#[buril::tool(off_thread)]
fn val_steps(
    /// How many steps.
    count: u32,
) -> u32 {
    count
}

/// Takes nested input.
#[buril::tool(off_thread)]
fn val_nested(
    /// The nested value.
    a: Outer,
    /// Settings.
    settings: Option<Settings>,
) -> usize {
    NESTED_RUNS.fetch_add(1, Ordering::SeqCst);
    a.b.len() + usize::from(a.label.is_some()) + settings.map_or(0, |s| s.depth as usize)
}

/// Pings an address.
#[buril::tool(off_thread)]
fn val_ping(
    /// The address.
    addr: IpAddr,
) -> String {
    PING_RUNS.fetch_add(1, Ordering::SeqCst);
    addr.to_string()
}

/// Takes weights by name.
#[buril::tool(off_thread)]
fn val_weights(
    /// Weights by name.
    weights: std::collections::HashMap<String, f64>,
    /// Anything at all.
    extra: Option<Value>,
) -> usize {
    weights.len() + usize::from(extra.is_some())
}

/// Takes no parameters.
#[buril::tool(off_thread)]
fn val_empty() -> u8 {
    1
}

/// Rejects odd numbers itself.
#[buril::tool(off_thread)]
fn val_even(
    /// A number that must be even.
    n: i64,
) -> Result<i64, buril::ToolError> {
    if n % 2 != 0 {
        return Err(buril::ToolError::invalid(format!(
            "`n` must be even, got {n}; pass {} or {}",
            n - 1,
            n + 1
        )));
    }
    Ok(n / 2)
}

fn problems_in(envelope: &Value) -> Vec<(String, String)> {
    assert_eq!(envelope["ok"], false, "{envelope:#}");
    assert_eq!(envelope["type"], "validation", "{envelope:#}");
    let mut list: Vec<(String, String)> = envelope["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no problems in {envelope:#}"))
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_owned(),
                p["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    list.sort();
    list
}

fn message_at(problems: &[(String, String)], path: &str) -> String {
    problems
        .iter()
        .find(|(p, _)| p == path)
        .map(|(_, m)| m.clone())
        .unwrap_or_else(|| panic!("no problem at `{path}` in {problems:?}"))
}

#[test]
fn a_valid_call_runs_the_tool() {
    let envelope = call(
        "val_move",
        json!({"path": "a", "count": 2, "mode": "run", "additive": true}),
    );
    assert_eq!(
        envelope,
        json!({"ok": true, "data": {"result": "a x2 Run +"}})
    );
}

#[test]
fn a_wrong_type_names_the_expected_and_the_given_value() {
    let envelope = call("val_move", json!({"path": 3, "count": 1, "mode": "walk"}));
    let problems = problems_in(&envelope);
    assert_eq!(
        problems,
        [(
            "/path".to_owned(),
            "expected a string, got the number 3".to_owned()
        )]
    );
    assert_eq!(
        envelope["error"],
        "invalid input: /path: expected a string, got the number 3"
    );

    let problems_list = problems_of(json!({"path": "p", "count": -1, "mode": "walk"}));
    assert_eq!(
        message_at(&problems_list, "/count"),
        "expected an integer from 0 to 4294967295, got the number -1"
    );

    let problems_list = problems_of(json!({"path": "p", "count": 1.5, "mode": "walk"}));
    assert_eq!(
        message_at(&problems_list, "/count"),
        "expected an integer, got the number 1.5"
    );

    let problems_list = problems_of(json!({"path": null, "count": 1, "mode": "walk"}));
    assert_eq!(
        message_at(&problems_list, "/path"),
        "expected a string, got null"
    );

    let problems_list =
        problems_of(json!({"path": "p", "count": 1, "mode": "walk", "additive": "yes"}));
    let message = message_at(&problems_list, "/additive");
    assert!(
        message.contains("boolean") && message.contains("\"yes\""),
        "{message}"
    );
}

fn problems_of(input: Value) -> Vec<(String, String)> {
    problems_in(&call("val_move", input))
}

#[test]
fn a_missing_required_property_is_located_at_its_name() {
    let problems = problems_of(json!({"path": "p", "mode": "walk"}));
    assert_eq!(
        problems,
        [("/count".to_owned(), "missing required property".to_owned())]
    );
    // An optional parameter may be missing or null.
    let envelope = call(
        "val_move",
        json!({"path": "p", "count": 1, "mode": "walk", "additive": null}),
    );
    assert_eq!(envelope["data"]["result"], "p x1 Walk -");
}

#[test]
fn an_unknown_property_suggests_the_nearest_and_lists_the_known_ones() {
    let problems = problems_of(json!({"path": "p", "count": 1, "mode": "walk", "additiv": true}));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "/additiv");
    assert_eq!(
        problems[0].1,
        "unknown property; did you mean `additive`? Known properties: path, count, mode, additive"
    );

    // Nothing close: no guess, but still the list.
    let problems = problems_of(json!({"path": "p", "count": 1, "mode": "walk", "zzzzzz": 1}));
    assert_eq!(problems[0].0, "/zzzzzz");
    assert!(
        problems[0].1.starts_with("unknown property"),
        "{problems:?}"
    );
    assert!(!problems[0].1.contains("did you mean"), "{problems:?}");
    assert!(
        problems[0]
            .1
            .ends_with("Known properties: path, count, mode, additive"),
        "{problems:?}"
    );
}

#[test]

fn an_unknown_property_without_a_suggestion_reads_as_two_sentences() {
    let problems = problems_of(json!({"path": "p", "count": 1, "mode": "walk", "zzzzzz": 1}));
    // Today: "unknown property Known properties: ...".
    assert!(
        !problems[0].1.contains("property Known"),
        "missing punctuation: {:?}",
        problems[0].1
    );
}

#[test]
fn an_unknown_property_of_a_closed_nested_struct_suggests_the_nearest() {
    let envelope = call(
        "val_configure",
        json!({"settings": {"verbos": true, "depth": 1}}),
    );
    let problems = problems_in(&envelope);
    assert_eq!(
        problems,
        [
            (
                "/settings/verbos".to_owned(),
                "unknown property; did you mean `verbose`? Known properties: verbose, depth"
                    .to_owned()
            ),
            (
                "/settings/verbose".to_owned(),
                "missing required property".to_owned()
            ),
        ]
    );
}

#[test]

fn an_optional_struct_reports_the_problems_of_the_struct_not_expected_null() {
    let before = NESTED_RUNS.load(Ordering::SeqCst);
    let envelope = call(
        "val_nested",
        json!({"a": {"b": []}, "settings": {"verbos": true, "depth": 1}}),
    );
    let problems = problems_in(&envelope);
    for (_, message) in &problems {
        assert!(
            !message.contains("expected null"),
            "a non-null value is not a mistyped null: {problems:?}"
        );
    }
    let message = message_at(&problems, "/settings/verbos");
    assert!(message.contains("did you mean `verbose`?"), "{message}");

    let envelope = call(
        "val_nested",
        json!({"a": {"b": []}, "settings": {"verbose": "no", "depth": 1}}),
    );
    let problems = problems_in(&envelope);
    assert!(
        message_at(&problems, "/settings/verbose").contains("expected a boolean"),
        "{problems:?}"
    );
    assert_eq!(NESTED_RUNS.load(Ordering::SeqCst), before);
}

#[test]
fn several_problems_are_reported_at_once_with_json_pointers() {
    let before = NESTED_RUNS.load(Ordering::SeqCst);
    let envelope = call(
        "val_nested",
        json!({"a": {"b": [1, "two", -3], "label": 5}, "zzz": 0}),
    );
    let problems = problems_in(&envelope);
    let paths: Vec<&str> = problems.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        ["/a/b/1", "/a/b/2", "/a/label", "/zzz"],
        "{problems:?}"
    );
    assert_eq!(
        message_at(&problems, "/a/b/1"),
        "expected an integer, got the string \"two\""
    );
    assert_eq!(
        message_at(&problems, "/a/b/2"),
        "expected an integer from 0 to 4294967295, got the number -3"
    );
    assert_eq!(
        message_at(&problems, "/a/label"),
        "expected null or a string, got the number 5"
    );
    let error = envelope["error"].as_str().unwrap();
    assert!(error.starts_with("invalid input (4 problems): "), "{error}");
    for (path, message) in &problems {
        assert!(error.contains(&format!("{path}: {message}")), "{error}");
    }
    assert_eq!(NESTED_RUNS.load(Ordering::SeqCst), before);

    // Through a reference: a wrong type and a missing property of a nested struct.
    let envelope = call("val_configure", json!({"settings": {"verbose": "no"}}));
    assert_eq!(
        problems_list_paths(&envelope),
        ["/settings/depth", "/settings/verbose"]
    );

    // The first element of a nested array.
    let envelope = call("val_nested", json!({"a": {"b": ["x"]}}));
    assert_eq!(problems_list_paths(&envelope), ["/a/b/0"], "{envelope:#}");

    // A nested required property.
    let envelope = call("val_nested", json!({"a": {}}));
    assert_eq!(
        problems_in(&envelope),
        [("/a/b".to_owned(), "missing required property".to_owned())]
    );
}

fn problems_list_paths(envelope: &Value) -> Vec<String> {
    problems_in(envelope).into_iter().map(|(p, _)| p).collect()
}

#[test]
fn wrong_types_missing_and_unknown_together() {
    let envelope = call("val_move", json!({"path": 3, "mode": "fly", "additiv": 1}));
    let problems = problems_in(&envelope);
    let paths: Vec<&str> = problems.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/additiv", "/count", "/mode", "/path"]);
}

#[test]
fn an_enum_value_outside_the_set_lists_the_allowed_values() {
    let problems = problems_of(json!({"path": "p", "count": 1, "mode": "fly"}));
    assert_eq!(
        message_at(&problems, "/mode"),
        r#"expected one of "walk", "run", "teleport", got the string "fly""#
    );
}

#[test]
fn too_many_problems_are_counted_not_listed() {
    let mut input = serde_json::Map::new();
    for i in 0..40 {
        input.insert(format!("extra{i:02}"), json!(i));
    }
    let envelope = call("val_empty", Value::Object(input));
    let list = envelope["problems"].as_array().unwrap();
    assert_eq!(list.len(), 33, "{envelope:#}");
    assert_eq!(
        list[32],
        json!({"path": "", "message": "8 more problems not listed; fix the ones above first"})
    );
}

#[test]
fn null_input_is_the_empty_object() {
    assert_eq!(
        call("val_empty", Value::Null),
        json!({"ok": true, "data": {"result": 1}})
    );
    // For a tool with required parameters, null reports them as missing.
    let problems = problems_in(&call("val_move", Value::Null));
    let paths: Vec<&str> = problems.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["/count", "/mode", "/path"]);
}

#[test]
fn input_that_is_not_an_object_is_rejected() {
    for (input, described) in [
        (json!([1, 2]), "an array of 2 items"),
        (json!("path"), "the string \"path\""),
        (json!(7), "the number 7"),
        (json!(true), "true"),
    ] {
        let envelope = call("val_guard_object", input.clone());
        assert_eq!(
            problems_in(&envelope),
            [(
                String::new(),
                format!("expected an object, got {described}")
            )],
            "{input}"
        );
        assert_eq!(
            envelope["error"],
            format!("invalid input: input: expected an object, got {described}")
        );
    }
    assert_eq!(GUARD_OBJECT_RUNS.load(Ordering::SeqCst), 0);
}

#[test]
fn the_body_does_not_run_when_validation_fails() {
    let invalid = [
        json!({}),
        json!({"path": "p", "count": "1", "mode": "walk"}),
        json!({"path": "p", "count": 1, "mode": "fly"}),
        json!({"path": "p", "count": 1, "mode": "walk", "extra": 0}),
        json!({"path": "p", "count": 2.5, "mode": "walk"}),
        json!({"path": "p", "count": 4_294_967_296u64, "mode": "walk"}),
        json!([]),
        Value::Null,
    ];
    for input in invalid {
        let envelope = call("val_guard_body", input.clone());
        assert_eq!(envelope["type"], "validation", "{input}: {envelope}");
    }
    assert_eq!(GUARD_BODY_RUNS.load(Ordering::SeqCst), 0);
    // And it does run on valid input (the counter is live).
    let envelope = call(
        "val_guard_body",
        json!({"path": "p", "count": 1, "mode": "walk"}),
    );
    assert_eq!(envelope["data"]["result"], "p 1 Walk");
    assert_eq!(GUARD_BODY_RUNS.load(Ordering::SeqCst), 1);
}

#[test]
fn integer_valued_numbers_reach_an_integer_parameter() {
    // JSON Schema counts `2.0`, `2e0` and `-0` as integers, so the published schema accepts
    // them; the tool must get them.
    for count in [json!(2.0), json!(2e0), json!(2)] {
        let envelope = call("val_steps", json!({"count": count}));
        assert_eq!(envelope["data"]["result"], 2, "{count}: {envelope}");
    }
    let envelope = call("val_steps", json!({"count": -0.0}));
    assert_eq!(envelope["data"]["result"], 0, "{envelope}");
    // The largest `u32`, as a float too; one more is out of the published range.
    let envelope = call("val_steps", json!({"count": 4_294_967_295.0}));
    assert_eq!(envelope["data"]["result"], 4_294_967_295u64, "{envelope}");
    let envelope = call("val_steps", json!({"count": 4_294_967_296.0}));
    assert_eq!(
        message_at(&problems_in(&envelope), "/count"),
        "expected an integer from 0 to 4294967295, got the number 4294967296.0"
    );
}

#[test]
fn null_input_is_no_input() {
    // MCP sends an object or no `arguments` at all; `null` is taken as no input, `{}`.
    assert_eq!(
        call("val_guard_body", Value::Null),
        call("val_guard_body", json!({}))
    );
    let missing = problems_in(&call("val_guard_body", Value::Null));
    let paths: Vec<&str> = missing.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(paths, ["/count", "/mode", "/path"], "{missing:?}");
    assert!(
        missing
            .iter()
            .all(|(_, m)| m == "missing required property")
    );
}

#[test]
fn input_the_schema_allows_but_serde_rejects_is_a_validation_problem() {
    // `format: ip` is an annotation only; the parameter's own deserialization catches it.
    let before = PING_RUNS.load(Ordering::SeqCst);
    let envelope = call("val_ping", json!({"addr": "not-an-address"}));
    let problems = problems_in(&envelope);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "/addr");
    assert!(
        problems[0].1.contains("address"),
        "the message should say what was expected: {}",
        problems[0].1
    );
    assert_eq!(PING_RUNS.load(Ordering::SeqCst), before);
    assert_eq!(
        call("val_ping", json!({"addr": "127.0.0.1"})),
        json!({"ok": true, "data": {"result": "127.0.0.1"}})
    );
}

#[test]
fn a_tool_may_reject_input_itself_with_an_actionable_message() {
    let envelope = call("val_even", json!({"n": 3}));
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "validation",
            "error": "`n` must be even, got 3; pass 2 or 4"
        })
    );
    assert_eq!(
        call("val_even", json!({"n": 8})),
        json!({"ok": true, "data": {"result": 4}})
    );
}

#[test]
fn messages_are_worded_for_a_model() {
    let envelope = call(
        "val_move",
        json!({"path": 3, "count": 1, "mode": "walk", "additiv": true}),
    );
    let error = envelope["error"].as_str().unwrap();
    assert_eq!(
        error,
        "invalid input (2 problems): /path: expected a string, got the number 3; /additiv: \
         unknown property; did you mean `additive`? Known properties: path, count, mode, additive"
    );
    // No internal jargon from the schema library.
    for (_, message) in problems_in(&envelope) {
        assert!(!message.contains("is not of type"), "{message}");
        assert!(!message.contains("additionalProperties"), "{message}");
    }
}

#[test]
fn pointers_escape_slashes_and_tildes_in_names() {
    let envelope = call(
        "val_weights",
        json!({"weights": {"a/b": "heavy", "c~d": 1.0, "e": "light"}, "x/y": 1}),
    );
    let paths = problems_list_paths(&envelope);
    assert_eq!(
        paths,
        ["/weights/a~1b", "/weights/e", "/x~1y"],
        "{envelope:#}"
    );
    assert_eq!(
        message_at(&problems_in(&envelope), "/weights/a~1b"),
        "expected a number, got the string \"heavy\""
    );
    // Any value is fine where the schema allows anything, null included.
    for extra in [json!(null), json!([1, "two"]), json!({"k": {}}), json!("s")] {
        let envelope = call("val_weights", json!({"weights": {}, "extra": extra}));
        assert_eq!(envelope["ok"], true, "{envelope}");
    }
    let tool = buril::registry().get("val_weights").unwrap();
    let schema = tool.input_schema();
    assert_eq!(
        schema["properties"]["extra"]["description"],
        "Anything at all."
    );
    assert_eq!(schema["required"], json!(["weights"]));
}
