//! `serve --audit`: an audit line per call on standard error, never the call's input; as one
//! JSON object per line with `--log-format json`, as text without, whether `BURIL_LOG` is set
//! or not.

use std::process::{Command, Stdio};

use buril_test_support::peer::BlockingPeer;
use buril_test_support::workspace::Workspace;

use crate::harness::tools_binary;
use serde_json::{Value, json};

/// Serves `args` over stdio for two calls of `scene_open` (one fails), and answers what it
/// wrote to standard error.
fn two_calls(args: &[&str]) -> String {
    let workspace = Workspace::new();
    let mut command = Command::new(tools_binary());
    command
        .args(args)
        .env_remove("BURIL_LOG")
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.project())
        .stderr(Stdio::piped());
    let mut client = BlockingPeer::spawn(command);
    client.initialize();
    let opened = client.call("scene_open", json!({"path": "Assets/Scenes/Main.scene"}));
    assert_eq!(opened["result"]["isError"], false, "{opened}");
    let missing = client.call("scene_open", json!({"path": "no-such-secret-path.scene"}));
    assert_eq!(missing["result"]["isError"], true, "{missing}");
    client.end_input();
    let stderr = client.stderr_to_end();
    assert!(
        client
            .wait_for_exit("the server to end with its input")
            .success()
    );
    stderr
}

#[test]
fn audit_lines_come_as_text_without_any_log_setting() {
    let stderr = two_calls(&["serve", "--audit"]);
    let audit: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("buril::audit"))
        .collect();
    assert_eq!(audit.len(), 2, "{stderr}");
    assert!(audit[0].contains("INFO"), "{stderr}");
    assert!(
        audit[0].contains("tool=\"scene_open\"") || audit[0].contains("tool=scene_open"),
        "{stderr}"
    );
    assert!(
        audit[0].contains("outcome=\"ok\"") || audit[0].contains("outcome=ok"),
        "{stderr}"
    );
    assert!(!stderr.contains("no-such-secret-path"), "{stderr}");
}

#[test]
fn audit_lines_come_as_json_objects() {
    let stderr = two_calls(&["serve", "--audit", "--log-format", "json"]);
    let lines: Vec<Value> = stderr
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let audit: Vec<&Value> = lines
        .iter()
        .filter(|line| line["target"] == "buril::audit")
        .collect();
    assert_eq!(audit.len(), 2, "{stderr}");
    assert_eq!(audit[0]["level"], "INFO");
    let fields = &audit[0]["fields"];
    assert_eq!(fields["tool"], "scene_open");
    assert_eq!(fields["family"], "scene");
    assert_eq!(fields["outcome"], "ok");
    assert_eq!(fields["principal"], "-");
    assert_eq!(
        fields["input_bytes"],
        json!(r#"{"path":"Assets/Scenes/Main.scene"}"#.len())
    );
    assert!(fields["duration_ms"].as_f64().is_some());
    assert_ne!(audit[1]["fields"]["outcome"], "ok");
    // The span of the call is the line's, and the input is nowhere.
    assert_eq!(
        audit[0]["span"]["gen_ai.tool.name"], "scene_open",
        "{}",
        audit[0]
    );
    assert!(!stderr.contains("no-such-secret-path"), "{stderr}");
}
