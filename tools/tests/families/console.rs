//! The `console_` tools on a fresh sample project.

use crate::common::Fixture;
use serde_json::{Value, json};

const LOG: &str = "Library/console.jsonl";

fn log_lines(fx: &Fixture) -> Vec<Value> {
    fx.read(LOG)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn messages(read: &Value) -> Vec<String> {
    read["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_owned())
        .collect()
}

fn seed(fx: &Fixture) {
    fx.ok("console_log", json!({"message": "Game started"}));
    fx.ok(
        "console_log",
        json!({"message": "Low health", "level": "warning"}),
    );
    fx.ok(
        "console_log",
        json!({
            "message": "NullReferenceException: body is null",
            "level": "error",
            "stack_trace": "PlayerController.Update () (at Assets/Scripts/PlayerController.cs:20)"
        }),
    );
    fx.ok("console_log", json!({"message": "Enemy spawned"}));
}

#[test]
fn log_appends_a_line_to_the_log_file() {
    let fx = Fixture::new();
    let entry = fx.ok(
        "console_log",
        json!({"message": "Shader compiled", "level": "warning"}),
    );
    assert_eq!(entry["level"], "warning");
    assert!(entry["time_ms"].as_u64().unwrap() > 1_600_000_000_000);
    let lines = log_lines(&fx);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0], entry);

    fx.ok("console_log", json!({"message": "Second"}));
    let lines = log_lines(&fx);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["level"], "info");
    assert_eq!(lines[1]["message"], "Second");

    let message = fx.error("console_log", json!({"message": "  "}), "validation");
    assert!(message.contains("blank"), "{message}");
    let envelope = fx.fails(
        "console_log",
        json!({"message": "x", "level": "fatal"}),
        "validation",
    );
    assert_eq!(envelope["problems"][0]["path"], "/level");
    assert_eq!(log_lines(&fx).len(), 2);
}

#[test]
fn read_filters_by_level_text_and_count() {
    let fx = Fixture::new();
    seed(&fx);
    let all = fx.ok("console_read", json!({}));
    assert_eq!(all["total_count"], 4);
    assert_eq!(all["counts"], json!({"info": 2, "warning": 1, "error": 1}));
    assert_eq!(
        messages(&all),
        [
            "Game started",
            "Low health",
            "NullReferenceException: body is null",
            "Enemy spawned"
        ]
    );
    assert_eq!(
        all["entries"][2].get("stack_trace"),
        None,
        "traces are opt-in"
    );

    let problems = fx.ok("console_read", json!({"levels": ["warning", "error"]}));
    assert_eq!(problems["matched_count"], 2);
    assert_eq!(
        messages(&problems),
        ["Low health", "NullReferenceException: body is null"]
    );

    let text = fx.ok("console_read", json!({"text": "ENEMY"}));
    assert_eq!(messages(&text), ["Enemy spawned"]);

    let newest = fx.ok("console_read", json!({"max_count": 2}));
    assert_eq!(
        messages(&newest),
        ["NullReferenceException: body is null", "Enemy spawned"]
    );
    assert_eq!(newest["truncated"], true);
    assert_eq!(newest["matched_count"], 4);

    let in_traces = fx.ok(
        "console_read",
        json!({"text": "PlayerController.cs", "include_stack_traces": true}),
    );
    assert_eq!(in_traces["matched_count"], 1);
    assert!(
        in_traces["entries"][0]["stack_trace"]
            .as_str()
            .unwrap()
            .contains(":20")
    );
    let without = fx.ok("console_read", json!({"text": "PlayerController.cs"}));
    assert_eq!(without["matched_count"], 0);
}

#[test]
fn read_answers_to_its_former_name() {
    let fx = Fixture::new();
    seed(&fx);
    let envelope = fx.call("console_get_logs", json!({"levels": ["error"]}));
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert_eq!(envelope["data"]["matched_count"], 1);
    assert!(
        envelope["warnings"][0]
            .as_str()
            .unwrap()
            .contains("console_read")
    );
}

#[test]
fn read_counts_lines_it_cannot_understand() {
    let fx = Fixture::new();
    seed(&fx);
    let mut text = fx.read(LOG);
    text.push_str("not json\n{\"half\":\n");
    fx.write(LOG, &text);
    let read = fx.ok("console_read", json!({}));
    assert_eq!(read["total_count"], 4);
    assert_eq!(read["unreadable_lines"], 2);
}

#[test]
fn clear_empties_the_log() {
    let fx = Fixture::new();
    seed(&fx);
    let cleared = fx.ok("console_clear", json!({}));
    assert_eq!(cleared["cleared_count"], 4);
    assert_eq!(
        cleared["cleared"],
        json!({"info": 2, "warning": 1, "error": 1})
    );
    assert_eq!(fx.read(LOG), "");
    assert_eq!(fx.ok("console_read", json!({}))["total_count"], 0);
    let again = fx.ok("console_clear", json!({}));
    assert_eq!(again["cleared_count"], 0);
}
