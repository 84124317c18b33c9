//! The MCP server in process: rules from options and a config file, reloading, paging, the
//! errors that stay protocol errors, timeouts and `notifications/tools/list_changed`, over an
//! in-memory stream of newline-delimited JSON-RPC. (tools/tests/mcp.rs drives the server with
//! real clients.) The servers serve a registry of this file's tools, whose exact set the tests
//! assert: the binary links other files' tools too.

use crate::common;

use std::time::Duration;

use buril::server::{Server, ServerError, ServerOptions};
use buril::{Dispatcher, DispatcherBuilder, Policy, Registry};
use common::peer::Peer;
use serde_json::{Value, json};
use tempfile::TempDir;

/// Reads a note.
#[buril::tool(off_thread, read_only)]
fn note_read(
    /// The note's number.
    id: u32,
) -> String {
    format!("note {id}")
}

/// Writes a note.
#[buril::tool(off_thread)]
fn note_write(
    /// The text.
    text: String,
) -> usize {
    text.len()
}

/// Deletes every note.
#[buril::tool(off_thread, dangerous, destructive)]
fn note_purge() -> u32 {
    0
}

/// Waits `ms` milliseconds, or until the call ends.
#[buril::tool(off_thread)]
async fn wait_for(
    /// How long.
    ms: u64,
    ctx: &buril::Context,
) -> Result<u64, buril::ToolError> {
    // The wait is the call's work: given longer than its timeout, it outlasts it.
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(ms),
        _ = ctx.cancelled() => Err(buril::ToolError::cancelled()),
    }
}

const ALL_BUT_DANGEROUS: [&str; 3] = ["note_read", "note_write", "wait_for"];

fn options() -> ServerOptions {
    ServerOptions::new().messages(|_| {})
}

/// This file's tools.
fn tools() -> &'static Registry {
    buril_test_support::scoped::tools_of(module_path!())
}

/// A dispatcher over this file's tools, to build.
fn dispatcher() -> DispatcherBuilder {
    Dispatcher::builder().registry(tools())
}

fn server(options: ServerOptions) -> Server {
    Server::new(dispatcher().build(), options).unwrap()
}

fn config_error(options: ServerOptions) -> String {
    match Server::new(dispatcher().build(), options) {
        Err(ServerError::Config(message)) => message,
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn dangerous_tools_are_off_until_enabled() {
    assert_eq!(server(options()).enabled_tools(), ALL_BUT_DANGEROUS);
    let all = server(options().allow_dangerous(true)).enabled_tools();
    assert_eq!(all, ["note_purge", "note_read", "note_write", "wait_for"]);
    let one = server(options().enable("note_purge")).enabled_tools();
    assert_eq!(one, all);
}

#[test]
fn rules_name_tools_globs_and_families() {
    let enabled = server(options().disable("note_*")).enabled_tools();
    assert_eq!(enabled, ["wait_for"]);
    let enabled = server(options().disable("family:note")).enabled_tools();
    assert_eq!(enabled, ["wait_for"]);
    // Disabling wins over enabling.
    let enabled = server(options().enable("note_purge").disable("note_purge")).enabled_tools();
    assert_eq!(enabled, ALL_BUT_DANGEROUS);
    let enabled = server(options().disable("*").enable("note_read")).enabled_tools();
    assert!(enabled.is_empty(), "{enabled:?}");
}

#[test]
fn rules_that_name_nothing_are_refused() {
    let message = config_error(options().enable("note_purg"));
    assert!(
        message.contains("a rule: no tool is named `note_purg`"),
        "{message}"
    );
    assert!(message.contains("did you mean `note_purge`?"), "{message}");
    let message = config_error(options().disable("family:notes"));
    assert!(
        message.contains("no tool family is named `notes`"),
        "{message}"
    );
    let message = config_error(options().disable("Note_*"));
    assert!(message.contains("not a tool pattern"), "{message}");
    let message = config_error(options().tool_timeout("nothing", Duration::from_secs(1)));
    assert!(message.contains("`nothing`"), "{message}");
}

#[test]
fn config_files_are_checked_when_the_server_is_built() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("missing.toml");
    let message = config_error(options().config_file(&missing));
    assert!(message.contains("does not exist"), "{message}");
    // An optional file may be missing.
    assert_eq!(
        server(options().optional_config_file(&missing)).enabled_tools(),
        ALL_BUT_DANGEROUS
    );
    let file = dir.path().join("server.toml");
    std::fs::write(&file, "enable = [\"note_purge\"]\ndisabled = []\n").unwrap();
    let message = config_error(options().config_file(&file));
    assert!(message.contains("unknown field `disabled`"), "{message}");
    std::fs::write(&file, "timeout = 0\n[timeouts]\nnote_raed = 5\n").unwrap();
    let message = config_error(options().config_file(&file));
    assert!(
        message.contains("`timeout` must be a positive number"),
        "{message}"
    );
    assert!(
        message.contains("`[timeouts]`: no tool is named `note_raed`; did you mean `note_read`?"),
        "{message}"
    );
}

#[tokio::test]
async fn reloading_applies_edits_and_keeps_the_settings_on_a_broken_file() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("server.toml");
    std::fs::write(&file, "enable = [\"family:note\"]\n").unwrap();
    let server = server(options().config_file(&file));
    assert_eq!(server.enabled_tools().len(), 4);
    assert!(!server.reload().await.unwrap(), "nothing changed");
    std::fs::write(&file, "disable = [\"wait_for\"]\n").unwrap();
    assert!(server.reload().await.unwrap());
    assert_eq!(server.enabled_tools(), ["note_read", "note_write"]);
    std::fs::write(&file, "disable = [\"wait_fo\"]\n").unwrap();
    assert!(server.reload().await.is_err());
    assert_eq!(server.enabled_tools(), ["note_read", "note_write"]);
    // A deleted file is an empty one: the defaults again.
    std::fs::remove_file(&file).unwrap();
    assert!(server.reload().await.unwrap());
    assert_eq!(server.enabled_tools(), ALL_BUT_DANGEROUS);
}

#[test]
fn the_server_owns_the_dispatcher_policy() {
    let dispatcher = dispatcher()
        .policy(Policy::new().disable("note_write".parse().unwrap()))
        .build();
    let server = Server::new(dispatcher.clone(), options().enable("note_purge")).unwrap();
    assert_eq!(
        server.enabled_tools(),
        ["note_purge", "note_read", "wait_for"]
    );
    let envelope = dispatcher
        .invoke("note_purge", json!({}), buril::CallOptions::default())
        .into_envelope();
    assert_eq!(envelope["ok"], true, "{envelope}");
}

fn names(page: &Value) -> Vec<&str> {
    page["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// Each listed definition is the `mcp` profile's rendering of its tool, field for field (the
/// server builds them at start, moving the schemas in rather than reading them through serde).
#[tokio::test]
async fn listed_definitions_are_the_mcp_profile_of_their_tools() {
    let mut peer = Peer::connect(server(options().enable("note_purge"))).await;
    let list = peer.request("tools/list", json!({})).await;
    let listed_tools = list["result"]["tools"].as_array().expect("tools");
    assert_eq!(listed_tools.len(), 4, "{list}");
    for listed in listed_tools {
        let name = listed["name"].as_str().unwrap();
        let tool = tools().get(name).unwrap();
        let profiled = buril::profile::render(buril::profile::Profile::Mcp, &tool)
            .map(|rendered| rendered.value)
            .unwrap();
        assert_eq!(listed, &profiled, "{name}");
        assert_eq!(listed["outputSchema"]["type"], "object", "{name}");
    }
}

#[tokio::test]
async fn pages_follow_the_cursor_and_refuse_a_made_up_one() {
    let mut peer = Peer::connect(server(options().page_size(2))).await;
    let first = peer.request("tools/list", json!({})).await;
    assert_eq!(names(&first), ["note_read", "note_write"]);
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    let second = peer.request("tools/list", json!({"cursor": cursor})).await;
    assert_eq!(names(&second), ["wait_for"]);
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let bad = peer
        .request("tools/list", json!({"cursor": "not-a-cursor"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[tokio::test]
async fn results_carry_the_servers_metadata_hash_and_old_bindings_are_told() {
    let mut peer = Peer::connect(server(options())).await;
    let ours = tools().metadata_hash().to_owned();
    assert_eq!(
        peer.initialized["_meta"]["buril/metadata"], ours,
        "{}",
        peer.initialized
    );
    let tool_hash = tools().get("note_read").unwrap().metadata_hash().to_owned();
    let list = peer.request("tools/list", json!({})).await;
    assert_eq!(list["result"]["_meta"]["buril/metadata"], ours, "{list}");

    // No hash, or the server's own: nothing is said.
    for meta in [
        json!({}),
        json!({"buril/metadata": ours, "buril/tool-metadata": tool_hash}),
    ] {
        let params = json!({"name": "note_read", "arguments": {"id": 1}, "_meta": meta});
        let answer = peer.request("tools/call", params).await;
        let result = &answer["result"];
        assert_eq!(result["_meta"]["buril/metadata"], ours, "{answer}");
        assert!(result["_meta"].get("buril/warnings").is_none(), "{answer}");
    }

    // Bindings of other metadata in which this tool is unchanged, then changed.
    let old = "0123456789abcdef";
    let cases = [
        (
            tool_hash.as_str(),
            "`note_read` is unchanged, other tools changed",
        ),
        ("fedcba9876543210", "`note_read` changed since"),
    ];
    for (theirs, said) in cases {
        let meta = json!({"buril/metadata": old, "buril/tool-metadata": theirs});
        let params = json!({"name": "note_read", "arguments": {"id": 1}, "_meta": meta});
        let answer = peer.request("tools/call", params).await;
        let result = &answer["result"];
        let warnings = result["_meta"]["buril/warnings"]
            .as_array()
            .unwrap_or_else(|| panic!("no warnings: {answer}"));
        let warning = warnings[0].as_str().unwrap();
        let start = format!(
            "these bindings were generated from tool metadata {old}, and this server's is {ours}"
        );
        assert!(warning.starts_with(&start), "{warning}");
        assert!(warning.contains(said), "{warning}");
        // Also as text after the data, for clients that show only text.
        let texts: Vec<&str> = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect();
        assert!(texts.contains(&warning), "{answer}");
    }
    // A failed call from old bindings: the warning is in the envelope.
    let params = json!({"name": "note_read", "arguments": {"id": "seven"}, "_meta": {"buril/metadata": old}});
    let answer = peer.request("tools/call", params).await;
    let envelope = &answer["result"]["_meta"]["buril/envelope"];
    assert_eq!(envelope["type"], "validation", "{answer}");
    let warning = envelope["warnings"][0].as_str().unwrap();
    assert!(warning.ends_with("regenerate the bindings"), "{answer}");
    assert_eq!(answer["result"]["_meta"]["buril/metadata"], ours);
}

#[tokio::test]
async fn unknown_and_disabled_tools_are_invalid_params_and_bad_input_is_a_tool_error() {
    let mut peer = Peer::connect(server(options().disable("note_write"))).await;
    for name in ["note_nothing", "note_write", "note_purge"] {
        let answer = peer.call(name, json!({"text": "x"})).await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("no tool is named `{name}`")),
            "{message}"
        );
        assert!(
            !message.contains("note_write`?"),
            "no hint of a disabled tool: {message}"
        );
    }
    let answer = peer.call("note_read", json!({"id": "one"})).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer["result"].get("structuredContent").is_none());
    assert_eq!(
        answer["result"]["_meta"]["buril/envelope"]["type"],
        "validation"
    );
    let answer = peer.call("note_read", json!({"id": 4})).await;
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": "note 4"})
    );
    // A tool returning text: the text block is the text itself.
    assert_eq!(answer["result"]["content"][0]["text"], "note 4");
}

#[tokio::test]
async fn per_tool_timeouts_of_the_config_file_win() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("server.toml");
    std::fs::write(&file, "timeout = 30\n[timeouts]\nwait_for = 0.2\n").unwrap();
    let options = options()
        .config_file(&file)
        .timeout(Duration::from_secs(20))
        .tool_timeout("wait_for", Duration::from_secs(10));
    let mut peer = Peer::connect(server(options)).await;
    let answer = peer.call("wait_for", json!({"ms": 5000})).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("did not finish within 200 ms"), "{text}");
}

#[tokio::test]
async fn config_edits_send_list_changed() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("server.toml");
    std::fs::write(&file, "").unwrap();
    let options = options()
        .config_file(&file)
        .config_poll_interval(Duration::from_millis(20));
    let mut peer = Peer::connect(server(options)).await;
    assert_eq!(
        names(&peer.request("tools/list", json!({})).await),
        ALL_BUT_DANGEROUS
    );
    std::fs::write(&file, "allow_dangerous = true\n").unwrap();
    peer.notification("notifications/tools/list_changed").await;
    let list = peer.request("tools/list", json!({})).await;
    assert_eq!(names(&list)[0], "note_purge");
    let answer = peer.call("note_purge", json!({})).await;
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 0}));
}

#[tokio::test]
async fn large_results_go_to_a_file() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("out");
    // A result written long ago, one written a minute ago, and a file of the user's.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    let old = out.join("note_read-1000-0.json");
    let recent = out.join(format!("note_read-{}-7.json", now - 60_000));
    let users = out.join("notes-1000.json");
    std::fs::create_dir_all(&out).unwrap();
    for file in [&old, &recent, &users] {
        std::fs::write(file, "{}\n").unwrap();
    }
    let options = options().max_result_bytes(10).output_dir(&out);
    let mut peer = Peer::connect(server(options)).await;
    let answer = peer.call("note_read", json!({"id": 123456})).await;
    // Writing a result removed the results older than a day, and nothing else.
    assert!(!old.exists(), "a day-old result was kept");
    assert!(recent.exists() && users.exists());
    let result = &answer["result"];
    assert_eq!(
        result["structuredContent"],
        json!({"result": "note 123456"})
    );
    let note = result["content"][0]["text"].as_str().unwrap();
    assert!(
        note.contains("more than this server sends in a reply (10 bytes)"),
        "{note}"
    );
    let uri = result["content"][1]["uri"].as_str().unwrap();
    let path = uri.strip_prefix("file://").unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(written, result["structuredContent"]);
    // Kept forever when asked.
    std::fs::write(&old, "{}\n").unwrap();
    let forever = self::options()
        .max_result_bytes(10)
        .output_dir(&out)
        .keep_results(None);
    let mut peer = Peer::connect(server(forever)).await;
    let answer = peer.call("note_read", json!({"id": 1234567})).await;
    assert!(
        answer["result"]["content"][1]["uri"].is_string(),
        "{answer}"
    );
    assert!(old.exists());
    // 0 never spills.
    let mut peer = Peer::connect(server(self::options().max_result_bytes(0))).await;
    let answer = peer.call("note_read", json!({"id": 123456})).await;
    assert_eq!(answer["result"]["content"].as_array().unwrap().len(), 1);
}

/// An address other machines can reach is refused while nobody is authorized, unless the host
/// says to serve anyway, which the server then warns about.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serving_beyond_loopback_without_authorization_needs_saying_so() {
    let every: std::net::SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = server(options()).bind_http(every).await.unwrap_err();
    let ServerError::Config(message) = refused else {
        panic!("expected a config error, got {refused:?}");
    };
    assert!(message.contains("authorizes nobody"), "{message}");
    assert!(message.contains("--no-auth"), "{message}");
    let said = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let heard = std::sync::Arc::clone(&said);
    let anyway = ServerOptions::new()
        .messages(move |text| heard.lock().unwrap().push(text.to_owned()))
        .serve_without_authorization(true);
    let bound = server(anyway)
        .bind_http(every)
        .await
        .expect("served anyway");
    assert!(bound.local_addr().ip().is_unspecified());
    let warned = said
        .lock()
        .unwrap()
        .iter()
        .any(|text| text.contains("without authorization"));
    assert!(warned, "{:?}", said.lock().unwrap());
    // Loopback needs nothing.
    let loopback: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
    server(options())
        .bind_http(loopback)
        .await
        .expect("loopback");
}

/// Runs `settings ARGS…` of the command line; its exit code, output and errors.
#[cfg(feature = "cli")]
fn settings(args: &[&str]) -> (u8, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = buril::cli::Cli::new().registry(tools()).run_with(
        ["tools", "settings"].iter().chain(args),
        &mut out,
        &mut err,
    );
    let code = if code == std::process::ExitCode::SUCCESS {
        0
    } else if code == std::process::ExitCode::from(2) {
        2
    } else {
        1
    };
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[cfg(feature = "cli")]
#[tokio::test]
async fn the_settings_command_changes_what_a_running_server_serves() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("server.toml");
    let path = file.to_str().unwrap();
    std::fs::write(&file, "# kept\ndisable = [\"note_write\"] # kept too\n").unwrap();
    let server = server(options().config_file(&file));
    assert_eq!(server.enabled_tools(), ["note_read", "wait_for"]);

    let (code, out, err) = settings(&[
        "--config",
        path,
        "--enable",
        "note_purge",
        "--reset",
        "note_write",
        "--tool-timeout",
        "wait_for=0.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("dangerous tools on: note_purge"), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# kept\n"), "{text}");
    assert!(text.contains("disable = [] # kept too\n"), "{text}");
    assert!(server.reload().await.unwrap());
    assert_eq!(
        server.enabled_tools(),
        ["note_purge", "note_read", "note_write", "wait_for"]
    );

    // A rule the server would refuse: nothing written, the reason and a suggestion said.
    let (code, _, err) = settings(&["--config", path, "--disable", "note_raed"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `note_read`?"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let (code, _, err) = settings(&["--config", path, "--tool-timeout", "wait_for=-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("positive number of seconds"), "{err}");
    let (code, _, err) = settings(&["--config", path, "--external-tools", "nobody=on"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no `[[external]]` server named `nobody`"),
        "{err}"
    );

    // JSON, for a settings page; `--allow-dangerous` alone means true.
    let (code, out, err) = settings(&[
        "--config",
        path,
        "--json",
        "--allow-dangerous",
        "--disable",
        "note_purge",
        "--timeout",
        "default",
    ]);
    assert_eq!(code, 0, "{err}");
    let view: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(view["allow_dangerous"], true);
    assert_eq!(view["enable"], json!([]), "{view}");
    assert_eq!(view["disable"], json!(["note_purge"]));
    assert_eq!(view["timeouts"], json!({"wait_for": 0.5}));
    let purge = view["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "note_purge")
        .unwrap();
    assert_eq!(purge["dangerous"], true);
    assert_eq!(purge["enabled"], false);
    assert!(
        purge["reason"]
            .as_str()
            .unwrap()
            .contains("rule `note_purge`"),
        "{purge}"
    );
    assert!(server.reload().await.unwrap());
    assert_eq!(server.enabled_tools(), ALL_BUT_DANGEROUS);

    // A missing file is the defaults, and is created by a change, folder and all.
    let fresh = dir.path().join("new/server.toml");
    let (code, out, _) = settings(&["--config", fresh.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("(missing: the defaults)"), "{out}");
    assert!(!fresh.exists());
    let (code, _, err) = settings(&[
        "--config",
        fresh.to_str().unwrap(),
        "--enable",
        "note_purge",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&fresh).unwrap(),
        "enable = [\"note_purge\"]\n"
    );
}
