//! A server whose result files cannot be written whole (a full disk, here a file size limit:
//! `RLIMIT_FSIZE`, with `SIGXFSZ` ignored so that a write past it fails instead of ending the
//! process): the call answers with its data in full and says why it was not written, no file
//! cut short is left behind, and the server goes on serving.

use std::process::{Command, Stdio};

use buril_test_support::peer::BlockingPeer;
use buril_test_support::workspace::Workspace;

use crate::harness::tools_binary;
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
    let mut command = Command::new("sh");
    command.args([
        "-c",
        "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"",
        tools_binary().to_str().unwrap(),
        "serve",
        "--max-result-bytes",
        "200",
    ]);
    command
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.project());
    let mut client = BlockingPeer::spawn(command);
    client.initialize();
    let outputs = workspace.path().join(".buril/outputs");
    for _ in 2..5 {
        let reply = client.call("asset_list", json!({}));
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
    let cleared = client.call("console_clear", json!({}));
    assert_eq!(cleared["result"]["isError"], false, "{cleared}");
    client.end_input();
    assert!(
        client
            .wait_for_exit("the server to end with its input")
            .success()
    );
}
