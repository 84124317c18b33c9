//! A handoff as a task that outlives its process: `tools call agent_team_handoff --detach` in
//! one process, `tools tasks get|wait` in others (and its former name, `jobs`), the run itself in the detached process, with
//! its model a small OpenAI-compatible server in this test (a tool call, then a report).

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use buril_test_support::model::{calls_then_reports, model_server};

fn tools(dir: &Path, model: &str, args: &[&str]) -> (Value, i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(args)
        .arg("--tasks-dir")
        .arg(dir.join("tasks"))
        .env("BURIL_PROJECT", dir.join("game"))
        .env("BURIL_TEAM_BASE_URL", model)
        .env("BURIL_TEAM_MODEL", "scripted")
        .current_dir(dir)
        .output()
        .expect("tools runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{args:?}: not JSON ({error}): {text}{stderr}"));
    (value, output.status.code().unwrap_or(-1), stderr)
}

#[test]
fn a_detached_handoff_is_followed_and_finished_from_other_processes() {
    let dir = tempfile::tempdir().unwrap();
    let (model, received) = model_server(calls_then_reports(
        "console_read",
        "The console holds no errors.",
    ));
    let handoff = r#"{"specialist": "console-reader", "brief": "Read the console."}"#;
    let started = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args([
            "call",
            "agent_team_handoff",
            handoff,
            "--detach",
            "--tasks-dir",
        ])
        .arg(dir.path().join("tasks"))
        .env("BURIL_PROJECT", dir.path().join("game"))
        .env("BURIL_TEAM_BASE_URL", &model)
        .env("BURIL_TEAM_MODEL", "scripted")
        .current_dir(dir.path())
        .output()
        .expect("tools runs");
    // The handle alone on its line, to pass on as it is.
    let printed = String::from_utf8_lossy(&started.stdout).into_owned();
    assert_eq!(started.status.code(), Some(0), "{printed}");
    let handle = printed.trim_end_matches('\n').to_owned();
    assert!(
        handle.starts_with("task_") && handle.len() == 37,
        "{printed:?}"
    );

    // Another process waits for it: the run ended in the detached process, with its report.
    let (envelope, code, stderr) = tools(
        dir.path(),
        &model,
        &["tasks", "wait", &handle, "--timeout", "60"],
    );
    assert_eq!(code, 0, "{envelope}{stderr}");
    let data = &envelope["data"];
    assert_eq!(data["status"], "done", "{envelope}");
    assert_eq!(data["specialist"], "console-reader");
    assert_eq!(data["report"], "The console holds no errors.");
    assert_eq!(data["tools"], json!(["console_read"]));

    // And a third reads it, as any later process can until its TTL passes.
    let (task, _, _) = tools(dir.path(), &model, &["tasks", "get", &handle]);
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["tool"], "agent_team_handoff");
    assert_eq!(task["envelope"], envelope);
    // The model saw the specialist's view: the one tool, and its result on the second turn.
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 2, "{received:?}");
    let offered: Vec<&str> = received[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    assert_eq!(offered, ["console_read"]);
}

#[test]
fn a_plain_handoff_still_answers_at_once_with_its_run_handle() {
    let dir = tempfile::tempdir().unwrap();
    // No model answers (a closed port): the run errors, but the call answers first.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let model = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let output = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args([
            "call",
            "agent_team_handoff",
            r#"{"specialist": "console-reader", "brief": "Read the console."}"#,
        ])
        .env("BURIL_PROJECT", dir.path().join("game"))
        .env("BURIL_TEAM_BASE_URL", &model)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert!(
        envelope["data"]["handle"]
            .as_str()
            .unwrap()
            .starts_with("task_"),
        "{envelope}"
    );
    assert_eq!(envelope["data"]["status"], "running");
    assert!(
        !dir.path().join(".buril/tasks").exists(),
        "a plain call stores no task"
    );
}
