//! A server whose result files cannot be written whole (a full disk, here a file size limit:
//! `RLIMIT_FSIZE`, with `SIGXFSZ` ignored so that a write past it fails instead of ending the
//! process): the call answers with its data in full and says why it was not written, no file
//! cut short is left behind, and the server goes on serving.

#[path = "mcp/harness.rs"]
mod harness;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use harness::{Workspace, tools_binary};
use serde_json::{Value, json};

#[test]
fn result_files_that_cannot_be_written_leave_nothing_behind() {
    let workspace = Workspace::new();
    // The sample project, made before the limit.
    let made = Command::new(tools_binary())
        .args(["call", "asset_list", "{}"])
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    // 512-byte blocks: a result file larger than 1 KiB cannot be written.
    let mut child = Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"",
            tools_binary().to_str().unwrap(),
            "serve",
            "--max-result-bytes",
            "200",
        ])
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut answer = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "full", "version": "1"}}}),
    );
    assert_eq!(answer()["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let outputs = workspace.path().join(".buril/outputs");
    for id in 2..5 {
        send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "asset_list", "arguments": {}}}),
        );
        let reply = answer();
        let result = &reply["result"];
        assert_eq!(result["isError"], false, "{reply}");
        let texts: Vec<&str> = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect();
        // The data in full, and why it is not in a file.
        let data: Value = serde_json::from_str(texts[0]).unwrap();
        assert_eq!(data, result["structuredContent"], "{reply}");
        assert_eq!(data["total_count"], 12, "{reply}");
        assert!(
            texts[1].contains("could not be written to a file") && texts[1].contains("large"),
            "{reply}"
        );
        // Nothing cut short left behind.
        let left: Vec<_> = std::fs::read_dir(&outputs)
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{left:?}");
    }
    // A small result is answered as ever.
    send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "console_clear", "arguments": {}}}),
    );
    assert_eq!(answer()["result"]["isError"], false);
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
