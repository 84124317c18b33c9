//! The one envelope every call answers with, for every kind of outcome.

use buril::policy::ToolPattern;
use buril::{Dispatcher, ErrorKind, Outcome, Policy, Problem, ToolError};
use buril_test_support::call;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// A greeting.
#[derive(Serialize, JsonSchema)]
struct Greeting {
    message: String,
}

/// Greets someone.
#[buril::tool(off_thread)]
fn env_greet(
    /// Who to greet.
    name: String,
) -> Greeting {
    Greeting {
        message: format!("hello, {name}"),
    }
}

/// Always fails at run time.
#[buril::tool(off_thread, aliases = ["env_crash"])]
fn env_fail() -> Result<u8, ToolError> {
    Err(ToolError::runtime(
        "the disk is full; free some space and retry",
    ))
}

/// Reads a file.
#[buril::tool(off_thread)]
fn env_read(
    /// The file to read.
    path: String,
) -> Result<String, ToolError> {
    Ok(std::fs::read_to_string(path)?)
}

/// Renames something; once called `env_retitle`.
#[buril::tool(off_thread, aliases = ["env_retitle"])]
fn env_rename(
    /// The new name.
    to: String,
) -> String {
    to
}

/// Does nothing.
#[buril::tool]
fn env_noop() {}

/// Returns an empty list.
#[buril::tool]
fn env_none() -> Vec<u8> {
    Vec::new()
}

/// Returns a JSON null.
#[buril::tool]
fn env_null() -> Value {
    Value::Null
}

/// Wipes everything.
#[buril::tool(off_thread, dangerous, aliases = ["x_erase"])]
fn x_wipe() -> &'static str {
    "wiped"
}

/// Drops the tables.
#[buril::tool(off_thread, dangerous)]
fn x_drop() -> &'static str {
    "dropped"
}

/// An output whose serialization always fails.
#[derive(JsonSchema)]
struct Unserializable {
    value: u8,
}

impl Serialize for Unserializable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(format!(
            "value {} cannot be written",
            self.value
        )))
    }
}

/// Returns something that cannot be serialized.
#[buril::tool(off_thread)]
fn env_unserializable() -> Unserializable {
    Unserializable { value: 3 }
}

/// An error with a cause.
#[derive(Debug)]
struct ConfigError {
    source: std::io::Error,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the config could not be loaded")
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Fails with an error that has a cause.
#[buril::tool(off_thread)]
fn env_config() -> Result<u8, ConfigError> {
    Err(ConfigError {
        source: std::io::Error::other("permission denied"),
    })
}

fn pattern(text: &str) -> ToolPattern {
    text.parse().unwrap()
}

fn dispatcher(policy: Policy) -> Dispatcher {
    Dispatcher::builder().policy(policy).build()
}

#[test]
fn success_is_ok_and_data_only() {
    let envelope = call("env_greet", json!({"name": "Ada"}));
    assert_eq!(
        envelope,
        json!({"ok": true, "data": {"message": "hello, Ada"}})
    );
    let outcome = Dispatcher::new().invoke(
        "env_greet",
        json!({"name": "Ada"}),
        buril::CallOptions::default(),
    );
    assert!(outcome.is_ok());
    assert_eq!(outcome.data(), Some(&json!({"message": "hello, Ada"})));
    assert!(outcome.error().is_none() && outcome.error_kind().is_none());
    assert!(outcome.warnings().is_empty());
}

#[test]
fn validation_failure_carries_problems() {
    let envelope = call("env_greet", json!({"name": 1, "nme": "x"}));
    let object = envelope.as_object().unwrap();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["error", "ok", "problems", "type"]);
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "validation");
    assert_eq!(
        envelope["problems"],
        json!([
            {"path": "/name", "message": "expected a string, got the number 1"},
            {"path": "/nme", "message": "unknown property; did you mean `name`? Known properties: name"}
        ])
    );
}

#[test]
fn runtime_failure_has_the_tools_message() {
    assert_eq!(
        call("env_fail", json!({})),
        json!({
            "ok": false,
            "type": "runtime",
            "error": "the disk is full; free some space and retry"
        })
    );
}

#[test]
fn question_mark_on_an_io_error_is_a_runtime_failure_with_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let expected = std::fs::read_to_string(&missing).unwrap_err().to_string();
    let envelope = call("env_read", json!({"path": missing}));
    assert_eq!(
        envelope,
        json!({"ok": false, "type": "runtime", "error": expected})
    );

    let present = dir.path().join("present.txt");
    std::fs::write(&present, "contents").unwrap();
    assert_eq!(
        call("env_read", json!({"path": present})),
        json!({"ok": true, "data": {"result": "contents"}})
    );
}

#[test]
fn not_found_suggests_close_names() {
    let envelope = call("env_gret", json!({}));
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "not_found",
            "error": "no tool is named `env_gret`; did you mean `env_greet`?",
            "suggestions": ["env_greet"]
        })
    );

    let envelope = call("qqqq_zzzz", json!({}));
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "not_found",
            "error": "no tool is named `qqqq_zzzz`; list the tools to see what exists"
        })
    );

    let envelope = call("env_", json!({}));
    let suggestions = envelope["suggestions"].as_array().unwrap();
    assert!(
        (2..=3).contains(&suggestions.len()),
        "at most three suggestions: {envelope}"
    );
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("did you mean one of `env_"),
        "{envelope}"
    );
}

#[test]
fn dangerous_tools_are_disabled_by_default() {
    let envelope = call("x_wipe", json!({}));
    assert_eq!(
        envelope,
        json!({
            "ok": false,
            "type": "disabled",
            "error": "the tool `x_wipe` is marked dangerous and stays off until the host enables \
                      it (for example `--enable x_wipe`)"
        })
    );
    // Also by its alias, which answers with the same refusal.
    let envelope = call("x_erase", json!({}));
    assert_eq!(envelope["type"], "disabled");
    assert!(
        envelope["error"].as_str().unwrap().contains("`x_wipe`"),
        "{envelope}"
    );
}

#[test]
fn dangerous_tools_run_once_allowed() {
    let d = dispatcher(Policy::new().allow_dangerous(true));
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope(),
        json!({"ok": true, "data": {"result": "wiped"}})
    );
    assert_eq!(
        d.invoke("x_drop", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );

    // An enable pattern turns on the tools it matches, and only those.
    let d = dispatcher(Policy::new().enable(pattern("x_*")));
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );
    assert_eq!(
        d.invoke("x_drop", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );
    let d = dispatcher(Policy::new().enable(pattern("x_wipe")));
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );
    assert_eq!(
        d.invoke("x_drop", json!({}), buril::CallOptions::default())
            .into_envelope()["type"],
        "disabled"
    );

    // Rules apply to the tool's own name: enabling an alias does not enable the tool.
    let d = dispatcher(Policy::new().enable(pattern("x_erase")));
    assert_eq!(
        d.invoke("x_erase", json!({}), buril::CallOptions::default())
            .into_envelope()["type"],
        "disabled"
    );
    assert!(!d.policy().allows(&buril::registry().get("x_wipe").unwrap()));
}

#[test]
fn a_disable_pattern_wins() {
    let d = dispatcher(
        Policy::new()
            .allow_dangerous(true)
            .enable(pattern("x_*"))
            .disable(pattern("x_wipe")),
    );
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope(),
        json!({
            "ok": false,
            "type": "disabled",
            "error": "the tool `x_wipe` is disabled by the host (rule `x_wipe`)"
        })
    );
    assert_eq!(
        d.invoke("x_drop", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );

    // Safe tools can be disabled too, and an alias does not escape the rule.
    let d = dispatcher(Policy::new().disable(pattern("env_*")));
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope()["type"],
        "disabled"
    );
    let envelope = d
        .invoke(
            "env_retitle",
            json!({"to": "b"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(envelope["type"], "disabled");
    assert!(
        envelope["error"]
            .as_str()
            .unwrap()
            .contains("(rule `env_*`)"),
        "{envelope}"
    );
    let d = dispatcher(Policy::new().disable(pattern("*")));
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope()["type"],
        "disabled"
    );
}

#[test]
fn a_replaced_policy_applies_to_the_next_call() {
    let d = dispatcher(Policy::new());
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope()["ok"],
        true
    );
    // From a policy that disables nothing to one that disables the tool, and back.
    let previous = d.set_policy(Policy::new().disable(pattern("env_*")));
    assert_eq!(*previous, Policy::new());
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope()["type"],
        "disabled"
    );
    let clone = d.clone();
    assert_eq!(
        clone
            .invoke(
                "env_greet",
                json!({"name": "a"}),
                buril::CallOptions::default()
            )
            .into_envelope()["type"],
        "disabled"
    );
    d.set_policy(Policy::new());
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": "a"}),
            buril::CallOptions::default()
        )
        .into_envelope()["ok"],
        true
    );
    assert_eq!(
        clone
            .invoke(
                "env_greet",
                json!({"name": "a"}),
                buril::CallOptions::default()
            )
            .into_envelope()["ok"],
        true
    );
    // Dangerous tools stay off under a policy that disables nothing.
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope()["type"],
        "disabled"
    );
    d.set_policy(Policy::new().allow_dangerous(true));
    assert_eq!(
        d.invoke("x_wipe", json!({}), buril::CallOptions::default())
            .into_envelope()["ok"],
        true
    );
}

#[test]
fn the_policy_is_checked_before_the_input() {
    let d = dispatcher(Policy::new().disable(pattern("env_greet")));
    assert_eq!(
        d.invoke(
            "env_greet",
            json!({"name": 3}),
            buril::CallOptions::default()
        )
        .into_envelope()["type"],
        "disabled"
    );
}

#[test]
fn an_alias_call_succeeds_with_a_warning() {
    let envelope = call("env_retitle", json!({"to": "new"}));
    assert_eq!(
        envelope,
        json!({
            "ok": true,
            "data": {"result": "new"},
            "warnings": [
                "`env_retitle` is a deprecated name of `env_rename`; call `env_rename` instead"
            ]
        })
    );
    // The canonical name has no warning.
    let envelope = call("env_rename", json!({"to": "new"}));
    assert!(envelope.get("warnings").is_none());
    // A failure of the tool itself keeps the warning.
    assert_eq!(
        call("env_crash", json!({})),
        json!({
            "ok": false,
            "type": "runtime",
            "error": "the disk is full; free some space and retry",
            "warnings": ["`env_crash` is a deprecated name of `env_fail`; call `env_fail` instead"]
        })
    );
}

#[test]

fn an_alias_call_that_fails_validation_keeps_the_warning() {
    let envelope = call("env_retitle", json!({}));
    assert_eq!(envelope["type"], "validation");
    assert_eq!(
        envelope["warnings"],
        json!(["`env_retitle` is a deprecated name of `env_rename`; call `env_rename` instead"]),
        "{envelope:#}"
    );
}

#[test]
fn no_envelope_has_null_data() {
    let calls = [
        ("env_greet", json!({"name": "a"})),
        ("env_read", json!({"path": "/definitely/not/here"})),
        ("env_rename", json!({"to": "x"})),
        ("env_retitle", json!({"to": "x"})),
        ("env_noop", json!({})),
        ("env_noop", Value::Null),
        ("env_none", json!({})),
        ("env_null", json!({})),
        ("env_fail", json!({})),
        ("env_crash", json!({})),
        ("x_wipe", json!({})),
        ("nothing_here", json!({})),
    ];
    for (name, input) in calls {
        let envelope = call(name, input);
        let object = envelope.as_object().unwrap();
        match object["ok"] {
            Value::Bool(true) => {
                assert!(
                    object["data"].is_object(),
                    "{name}: data must be an object: {envelope}"
                );
                assert!(!object.contains_key("error") && !object.contains_key("type"));
            }
            Value::Bool(false) => {
                assert!(!object.contains_key("data"), "{name}: {envelope}");
                assert!(object["type"].is_string() && object["error"].is_string());
            }
            _ => panic!("`ok` must be a boolean: {envelope}"),
        }
    }
    assert_eq!(call("env_noop", json!({})), json!({"ok": true, "data": {}}));
    assert_eq!(
        call("env_none", json!({})),
        json!({"ok": true, "data": {"result": []}})
    );
    assert_eq!(
        call("env_null", json!({})),
        json!({"ok": true, "data": {"result": null}})
    );
}

#[test]
fn outcome_serializes_with_ok_first() {
    let ok = Outcome::ok(json!({"b": 1, "a": 2}));
    assert_eq!(
        serde_json::to_string(&ok).unwrap(),
        r#"{"ok":true,"data":{"b":1,"a":2}}"#
    );
    let failed = Outcome::err(ToolError::runtime("boom"));
    assert_eq!(
        serde_json::to_string(&failed).unwrap(),
        r#"{"ok":false,"type":"runtime","error":"boom"}"#
    );
    let warned = Outcome::ok(json!({})).with_warning("careful");
    assert_eq!(
        serde_json::to_string(&warned).unwrap(),
        r#"{"ok":true,"data":{},"warnings":["careful"]}"#
    );

    // A real call, with problems and with suggestions.
    let d = Dispatcher::new();
    let outcome = d.invoke("env_greet", json!({}), buril::CallOptions::default());
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(
        text.starts_with(r#"{"ok":false,"type":"validation","error":"#),
        "{text}"
    );
    assert!(
        text.ends_with(r#","problems":[{"path":"/name","message":"missing required property"}]}"#)
    );
    let outcome = d.invoke("env_gret", json!({}), buril::CallOptions::default());
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(
        text.starts_with(r#"{"ok":false,"type":"not_found","#),
        "{text}"
    );
    assert!(text.ends_with(r#","suggestions":["env_greet"]}"#), "{text}");
    let outcome = d.invoke(
        "env_retitle",
        json!({"to": "t"}),
        buril::CallOptions::default(),
    );
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(text.starts_with(r#"{"ok":true,"data":{"result":"t"},"warnings":["#));
}

#[test]
fn the_wire_forms_agree() {
    let d = Dispatcher::new();
    let inputs = [
        ("env_greet", json!({"name": "a"})),
        ("env_greet", json!({"name": 1})),
        ("env_gret", json!({})),
        ("env_retitle", json!({"to": "t"})),
        ("env_fail", json!({})),
    ];
    for (name, input) in inputs {
        let outcome = d.invoke(name, input.clone(), buril::CallOptions::default());
        let by_serde = serde_json::to_value(&outcome).unwrap();
        assert_eq!(outcome.to_envelope(), by_serde, "{name}");
        assert_eq!(outcome.clone().into_envelope(), by_serde, "{name}");
        assert_eq!(
            d.invoke(name, input.clone(), buril::CallOptions::default())
                .into_envelope(),
            by_serde,
            "{name}"
        );
        // The same entries in the same order (`Value`'s equality does not see the order).
        let text = serde_json::to_string(&outcome).unwrap();
        let text_of = |envelope: Value| serde_json::to_string(&envelope).unwrap();
        assert_eq!(text_of(outcome.to_envelope()), text, "{name}");
        assert_eq!(text_of(outcome.clone().into_envelope()), text, "{name}");
        assert_eq!(
            text_of(
                d.invoke(name, input, buril::CallOptions::default())
                    .into_envelope()
            ),
            text,
            "{name}"
        );
    }
    // Problems and suggestions both, and warnings: every entry the envelope can have.
    let problems = vec![Problem::new("/a", "expected a string, got 1")];
    let error = ToolError::from_problems(problems).with_suggestions(vec!["env_greet".into()]);
    let outcome = Outcome::err(error).with_warning("careful");
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(
        text.starts_with(r#"{"ok":false,"type":"validation","error":"#),
        "{text}"
    );
    assert!(
        text.ends_with(
            r#""problems":[{"path":"/a","message":"expected a string, got 1"}],"suggestions":["env_greet"],"warnings":["careful"]}"#
        ),
        "{text}"
    );
    let envelope = outcome.to_envelope();
    assert_eq!(serde_json::to_string(&envelope).unwrap(), text);
    assert_eq!(
        serde_json::to_string(&outcome.into_envelope()).unwrap(),
        text
    );
    // Looked up by key, as a caller reads it.
    assert_eq!(envelope["problems"][0]["path"], "/a");
    assert_eq!(envelope["suggestions"][0], "env_greet");
    assert_eq!(envelope["warnings"][0], "careful");
}

#[test]
fn outcome_accessors_report_the_failure() {
    let d = Dispatcher::new();
    let outcome = d.invoke("env_fail", json!({}), buril::CallOptions::default());
    assert!(!outcome.is_ok());
    assert_eq!(outcome.error_kind(), Some(ErrorKind::Runtime));
    assert!(outcome.data().is_none());
    let error = outcome.into_result().unwrap_err();
    assert_eq!(
        error.message(),
        "the disk is full; free some space and retry"
    );
    assert_eq!(
        error.to_string(),
        "runtime: the disk is full; free some space and retry"
    );

    let outcome = d.invoke(
        "env_retitle",
        json!({"to": "t"}),
        buril::CallOptions::default(),
    );
    assert_eq!(outcome.warnings().len(), 1);
    let kinds = [
        (ErrorKind::Validation, "validation"),
        (ErrorKind::Runtime, "runtime"),
        (ErrorKind::Panic, "panic"),
        (ErrorKind::NotFound, "not_found"),
        (ErrorKind::Disabled, "disabled"),
        (ErrorKind::Timeout, "timeout"),
        (ErrorKind::Cancelled, "cancelled"),
    ];
    for (kind, wire) in kinds {
        assert_eq!(kind.as_str(), wire);
        assert_eq!(serde_json::to_value(kind).unwrap(), wire);
    }
}

#[test]
fn an_output_that_cannot_be_serialized_is_a_runtime_failure() {
    assert_eq!(
        call("env_unserializable", json!({})),
        json!({
            "ok": false,
            "type": "runtime",
            "error": "the tool's output could not be serialized: value 3 cannot be written"
        })
    );
}

#[test]
fn an_error_reports_its_causes() {
    assert_eq!(
        call("env_config", json!({})),
        json!({
            "ok": false,
            "type": "runtime",
            "error": "the config could not be loaded: permission denied"
        })
    );
}
