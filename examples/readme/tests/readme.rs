//! The README's first example: the same text as this crate's `main.rs`, and a binary that does
//! what the README says of it: list, describe, call and serve its tool.

use std::process::Command;

use buril_test_support::peer::Peer;
use serde_json::{Value, json};

const README: &str = include_str!("../../../README.md");
const MAIN: &str = include_str!("../src/main.rs");

/// The README's first Rust block.
fn first_rust_block(text: &str) -> &str {
    let start = text.find("```rust\n").expect("a Rust block") + "```rust\n".len();
    let end = start + text[start..].find("```").expect("the block's end");
    &text[start..end]
}

#[test]
fn the_example_is_the_readme_s() {
    assert_eq!(
        first_rust_block(README),
        MAIN,
        "examples/readme/src/main.rs must be the README's first Rust block, as it is"
    );
}

fn readme(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_readme"))
        .args(args)
        .output()
        .expect("the example runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn it_lists_describes_and_calls() {
    let (code, out, err) = readme(&["list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("scene_open"), "{out}");
    let (code, out, err) = readme(&["describe", "scene_open"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Opens the scene at `path`"), "{out}");
    // The console session the README shows.
    let (code, out, _) = readme(&["call", "scene_open", r#"{"path": 3, "additiv": true}"#]);
    assert_eq!(code, 1);
    let envelope: Value = serde_json::from_str(&out).expect("an envelope");
    assert_eq!(envelope["type"], "validation", "{envelope}");
    let error = envelope["error"].as_str().unwrap();
    assert!(
        error.starts_with("invalid input (2 problems): /path: expected a string, got the number 3"),
        "{error}"
    );
    assert!(error.contains("did you mean `additive`?"), "{error}");
    let (code, out, err) = readme(&[
        "call",
        "scene_open",
        r#"{"path": "Assets/Scenes/Main.scene"}"#,
    ]);
    assert_eq!(code, 0, "{err}");
    let envelope: Value = serde_json::from_str(&out).expect("an envelope");
    assert_eq!(
        envelope["data"],
        json!({"path": "Assets/Scenes/Main.scene", "objects": 5})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn it_serves_its_tool_over_mcp() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_readme"));
    command.arg("serve");
    let mut peer = Peer::spawn(command);
    peer.initialize(json!({})).await;
    let listed = peer.request("tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["scene_open"]);
    let called = peer
        .call(
            "scene_open",
            json!({"path": "Assets/Scenes/Main.scene", "additive": true}),
        )
        .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(called["result"]["structuredContent"]["objects"], 12);
}
