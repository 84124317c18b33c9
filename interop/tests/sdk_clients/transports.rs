//! The transports of the generated TypeScript (`httpTransport`, `mcpTransport`,
//! `stdioTransport`), against a real
//! `tools serve`: a node program compiled strictly by `tsc` calls example tools with typed
//! inputs and prints what happened, and this test checks it. Missing `node`, `tsc` or a server
//! that does not start fail the test.

#[allow(dead_code)]
#[path = "../codegen/every_tool.rs"]
mod every_tool;
#[cfg(unix)]
#[path = "../codegen/pipes.rs"]
mod pipes;
#[allow(dead_code)]
#[path = "../typescript/support.rs"]
mod support;
#[cfg(unix)]
use pipes::{project_with_pipes, text};

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use buril_test_support::bin;
use serde_json::{Value, json};

use crate::common::tools_server::HttpServer;
use support::{Folder, Module, generate, registry_sources};

/// The generated files and the node program, compiled with the settings of every TypeScript
/// test (see `support::compiler_options`) and Node's types to `out/`. The program imports the
/// official MCP SDK from `interop/node_modules` (linked into the folder as `node_modules`); the
/// generated files import nothing.
fn compiled_program() -> Folder {
    compiled_program_from(&registry_sources())
}

/// [`compiled_program`] with bindings generated from `sources`.
fn compiled_program_from(sources: &[buril_codegen::ToolSource]) -> Folder {
    let folder = Folder::with(&generate(sources));
    folder.write("transport.ts", include_str!("../typescript/transport.ts"));
    folder.write("every_tool.ts", include_str!("../typescript/every_tool.ts"));
    folder.write("stale.ts", include_str!("../typescript/stale.ts"));
    folder.write("cancel.ts", include_str!("../typescript/cancel.ts"));
    folder.write(
        "cancel_stdio.ts",
        include_str!("../typescript/cancel_stdio.ts"),
    );
    folder.write(
        "cancel_search.ts",
        include_str!("../typescript/cancel_search.ts"),
    );
    folder.write("tasks.ts", include_str!("../typescript/tasks.ts"));
    let modules = bin::workspace().join("interop/node_modules");
    assert!(
        modules.join("@modelcontextprotocol/sdk").exists(),
        "the MCP SDK is missing under {}: run `bash scripts/test.sh` (which runs `npm ci \
         --prefix interop`) to install it",
        modules.display()
    );
    link_dir(&modules, &folder.path().join("node_modules"));
    let mut options = support::compiler_options(Module::CommonJs);
    options["noEmit"] = json!(false);
    options["outDir"] = json!("out");
    options["rootDir"] = json!(".");
    options["types"] = json!(["node"]);
    options["typeRoots"] = json!([modules.join("@types")]);
    // The SDK's own declarations are not what is tested.
    options["skipLibCheck"] = json!(true);
    let config = json!({
        "compilerOptions": options,
        "include": ["transport.ts", "every_tool.ts", "stale.ts", "cancel.ts", "cancel_stdio.ts", "cancel_search.ts", "tasks.ts", "typescript/*.ts"],
    });
    folder.write(
        "tsconfig.json",
        &serde_json::to_string_pretty(&config).expect("JSON"),
    );
    let output = Command::new(support::tsc())
        .arg("-p")
        .arg(folder.path().join("tsconfig.json"))
        .current_dir(folder.path())
        .output()
        .expect("tsc runs (node must be on the PATH)");
    support::assert_success("tsc", &output);
    folder
}

#[cfg(unix)]
fn link_dir(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("a symbolic link");
}

#[cfg(windows)]
fn link_dir(target: &Path, link: &Path) {
    std::os::windows::fs::symlink_dir(target, link).expect("a symbolic link");
}

/// What every transport's run must show. `every_progress`: whether each progress report must
/// reach the callback (the server sends them all before the response; the SDK's client runs
/// notification handlers a microtask after response handlers, so it drops reports that arrive
/// with the response).
fn check(result: &Value, every_progress: bool) {
    let hash = buril::registry().metadata_hash();
    assert_eq!(result["metadataHash"], hash, "METADATA_HASH of tools.ts");
    assert_eq!(result["hashBeforeCalls"], Value::Null);
    assert_eq!(
        result["serverMetadataHash"], hash,
        "the server's hash, read back"
    );

    let scenes: Vec<&str> = result["listed"]["scenes"]
        .as_array()
        .expect("scenes")
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert!(scenes.contains(&"Assets/Scenes/Main.scene"), "{scenes:?}");
    assert_eq!(result["opened"]["scene"]["name"], "Main");
    assert!(
        result["console"]["total_count"].is_u64(),
        "{}",
        result["console"]
    );
    for (key, tool) in [
        ("listed", "scene_list"),
        ("opened", "scene_open"),
        ("console", "console_read"),
        ("searched", "asset_search"),
    ] {
        let tool = buril::registry().get(tool).expect("a tool");
        let schema = tool.output_schema();
        let validator = jsonschema::validator_for(schema).expect("a schema");
        assert!(validator.is_valid(&result[key]), "{key}: {}", result[key]);
    }
    assert_eq!(result["searched"]["query"], "Player");
    let progress = result["progress"].as_array().expect("progress");
    if every_progress {
        assert!(!progress.is_empty(), "no progress arrived");
        let last = progress.last().expect("a report");
        assert_eq!(
            last["progress"], last["total"],
            "the last report: {progress:?}"
        );
    }
    assert!(
        progress.iter().all(|p| p["progress"].is_number()),
        "{progress:?}"
    );

    let invalid = &result["invalid"];
    assert_eq!(invalid["isBurilToolError"], true, "{invalid}");
    assert_eq!(invalid["tool"], "scene_open");
    assert_eq!(invalid["type"], "validation");
    assert_eq!(invalid["problems"][0]["path"], "/path", "{invalid}");

    let unknown = &result["unknown"];
    assert_eq!(unknown["isBurilToolError"], true, "{unknown}");
    assert_eq!(unknown["type"], "not_found", "{unknown}");

    for key in ["abortedEarly", "abortedAfterStart"] {
        let aborted = &result[key];
        assert_eq!(aborted["isBurilToolError"], true, "{key}: {aborted}");
        assert_eq!(aborted["type"], "cancelled", "{key}: {aborted}");
    }
    assert_eq!(result["after"], result["listed"], "usable after an abort");

    let handed = result["warnings"].as_array().expect("warnings");
    assert_eq!(handed.len(), 1, "{handed:?}");
    assert_eq!(handed[0]["name"], "scene_get_hierarchy");
    assert!(
        handed[0]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("deprecated")),
        "{handed:?}"
    );

    let stale = &result["stale"];
    assert_eq!(stale["ok"], true, "{stale}");
    let warnings = stale["warnings"]
        .as_array()
        .expect("the stale call's warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("generated from tool metadata 0123456789abcdef"))),
        "{warnings:?}"
    );
}

#[test]
fn http_transport_calls_a_real_server() {
    let binary = bin::tools();
    let folder = compiled_program();
    let project = tempfile::tempdir().expect("a temporary folder");
    let server = HttpServer::start(&binary, &project.path().join("game"));
    let out = folder.node("out/transport.js", &["http", &server.url]);
    let result: Value = serde_json::from_str(&out).expect("the program prints JSON");
    check(&result, true);
    // Calls that can only end by their timeout or their signal: `timeout` and `cancelled`
    // errors, each request aborted and the server told.
    let stalled = &result["stalled"];
    assert_eq!(stalled["timedOut"]["isBurilToolError"], true, "{stalled}");
    assert_eq!(stalled["timedOut"]["type"], "timeout", "{stalled}");
    assert_eq!(
        stalled["abortedInFlight"]["isBurilToolError"], true,
        "{stalled}"
    );
    // A session the server does not know: a new one, and the call sent again.
    let lost = &result["sessionLost"];
    assert_eq!(lost["listed"], result["listed"], "{lost}");
    assert_eq!(lost["newSession"], true, "{lost}");
    assert_eq!(
        lost["sent"],
        json!([
            "initialize",
            "notifications/initialized",
            "tools/call",
            "tools/call (unknown session)",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ]),
        "{lost}"
    );
    assert_eq!(stalled["abortedInFlight"]["type"], "cancelled", "{stalled}");
    assert_eq!(stalled["requestsAborted"], 2, "{stalled}");
    assert_eq!(
        stalled["sent"],
        json!([
            "initialize",
            "notifications/initialized",
            "tools/call",
            "tools/call",
            "notifications/cancelled",
            "tools/call",
            "notifications/cancelled"
        ]),
        "{stalled}"
    );
}

/// Runs the program with `mode` (`sdk-stdio`, `stdio`) against `tools serve` over stdio.
fn over_stdio(mode: &str) -> Value {
    let binary = bin::tools();
    let folder = compiled_program();
    let project = tempfile::tempdir().expect("a temporary folder");
    let project = project.path().join("game");
    let out = folder.node(
        "out/transport.js",
        &[
            mode,
            binary.to_str().expect("a UTF-8 path"),
            project.to_str().expect("a UTF-8 path"),
        ],
    );
    serde_json::from_str(&out).expect("the program prints JSON")
}

#[test]
fn mcp_transport_calls_a_real_server_through_the_sdk_over_stdio() {
    check(&over_stdio("sdk-stdio"), false);
}

#[test]
fn stdio_transport_calls_a_real_server() {
    let result = over_stdio("stdio");
    check(&result, true);
    // A command that does not exist rejects the call with an `Error` naming it.
    let missing = &result["missingCommand"];
    assert_eq!(missing["isError"], true, "{missing}");
    assert_eq!(missing["isBurilToolError"], false, "{missing}");
    assert!(
        missing["message"]
            .as_str()
            .is_some_and(|m| m.contains("does-not-exist")),
        "{missing}"
    );
}

/// Runs `every_tool.js` with `args` after the calls file and checks its outcomes with
/// [`every_tool::check`].
fn check_every_tool(folder: &Folder, args: &[&str]) {
    let file = folder.path().join("calls.json");
    every_tool::write_calls(&file);
    let mut all = vec![file.to_str().expect("a UTF-8 path")];
    all.extend_from_slice(args);
    let out = folder.node("out/every_tool.js", &all);
    let result: Value = serde_json::from_str(&out).expect("the program prints JSON");
    every_tool::check(&result, buril::registry().metadata_hash());
}

#[test]
fn every_tool_over_http_transport() {
    let binary = bin::tools();
    let folder = compiled_program();
    let project = tempfile::tempdir().expect("a temporary folder");
    let server = HttpServer::start_with(
        &binary,
        &project.path().join("game"),
        &["--allow-dangerous"],
    );
    check_every_tool(&folder, &["http", &server.url]);
}

#[test]
fn every_tool_over_mcp_transport_over_http() {
    let binary = bin::tools();
    let folder = compiled_program();
    let project = tempfile::tempdir().expect("a temporary folder");
    let server = HttpServer::start_with(
        &binary,
        &project.path().join("game"),
        &["--allow-dangerous"],
    );
    check_every_tool(&folder, &["sdk-http", &server.url]);
}

/// Runs `every_tool.js` over a stdio transport (`sdk-stdio`, `stdio`).
fn every_tool_over_stdio(mode: &str) {
    let binary = bin::tools();
    let folder = compiled_program();
    let project = tempfile::tempdir().expect("a temporary folder");
    let project = project.path().join("game");
    check_every_tool(
        &folder,
        &[
            mode,
            binary.to_str().expect("a UTF-8 path"),
            project.to_str().expect("a UTF-8 path"),
        ],
    );
}

#[test]
fn every_tool_over_mcp_transport_over_stdio() {
    every_tool_over_stdio("sdk-stdio");
}

#[test]
fn every_tool_over_stdio_transport() {
    every_tool_over_stdio("stdio");
}

/// Bindings generated from the registry with one tool's input schema changed (`scene_list`
/// given an extra optional property), compiled and called over `httpTransport` against the
/// real server: the changed tool's call is warned that it changed, another tool's call that it
/// is unchanged but others changed, both warnings name both hashes, and the server's hash (the
/// real registry's) reaches the client and differs from the bindings' `METADATA_HASH`.
#[test]
fn stale_typescript_bindings_are_warned_by_the_server() {
    let mut sources = registry_sources();
    let changed = sources
        .iter_mut()
        .find(|s| s.meta.name == "scene_list")
        .expect("scene_list");
    changed.input_schema["properties"]["stale_probe"] =
        json!({"type": ["string", "null"], "description": "Not known to the server."});
    let binary = bin::tools();
    let folder = compiled_program_from(&sources);
    let project = tempfile::tempdir().expect("a temporary folder");
    let server = HttpServer::start(&binary, &project.path().join("game"));
    let out = folder.node("out/stale.js", &[&server.url]);
    let result: Value = serde_json::from_str(&out).expect("the program prints JSON");

    let ours = buril::registry().metadata_hash();
    let stale = result["metadataHash"].as_str().expect("METADATA_HASH");
    assert_ne!(stale, ours, "the changed schema changes the bindings' hash");
    assert_eq!(
        result["serverMetadataHash"], ours,
        "the server's hash, read back"
    );
    let start = format!(
        "these bindings were generated from tool metadata {stale}, and this server's is {ours}"
    );

    let changed = result["changed"].as_array().expect("warnings");
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["name"], "scene_list");
    let warning = changed[0]["warnings"][0].as_str().expect("a warning");
    assert!(warning.starts_with(&start), "{warning}");
    assert!(warning.contains("`scene_list` changed since"), "{warning}");
    assert!(warning.ends_with("regenerate the bindings"), "{warning}");

    let unchanged = result["unchanged"].as_array().expect("warnings");
    assert_eq!(unchanged.len(), 1, "{unchanged:?}");
    assert_eq!(unchanged[0]["name"], "console_read");
    let warning = unchanged[0]["warnings"][0].as_str().expect("a warning");
    assert!(warning.starts_with(&start), "{warning}");
    assert!(
        warning.contains("`console_read` is unchanged, other tools changed"),
        "{warning}"
    );

    // The calls still worked: the data came back.
    assert!(
        result["listed"]["scenes"].is_array(),
        "{}",
        result["listed"]
    );
    assert!(result["read"]["total_count"].is_u64(), "{}", result["read"]);
}

/// A call cancelled in flight over `httpTransport`, seen by the tool itself: `asset_search`
/// over a folder holding two named pipes, `a.fifo` and `b.fifo`. Reading `a.fifo` blocks the
/// tool (after its progress report naming it) until the program writes to it, so the call
/// cannot end on its own first. The client aborts on that report; `notifications/cancelled`
/// with the call's request id goes to the server, which ends that request's response stream
/// (read from a copy of it) without an answer while the tool is still blocked; the session
/// works afterwards. Then the program unblocks the pipe, and the tool, checking its context
/// before the next file, returns `cancelled` (the server logs what a tool returns after its call
/// ended): had its context not seen the cancellation, it would have gone on to `b.fifo` and
/// blocked there, and no such line would come.
#[cfg(unix)]
#[test]
fn a_cancelled_http_call_is_cancelled_on_the_server() {
    let binary = bin::tools();
    let folder = compiled_program();
    let project_dir = tempfile::tempdir().expect("a temporary folder");
    let project = project_dir.path().join("game");
    let fifo = project_with_pipes(&project);
    let server = HttpServer::start_logging(&binary, &project, "buril::dispatch=debug");
    let out = folder.node(
        "out/cancel.js",
        &[&server.url, fifo.to_str().expect("a UTF-8 path")],
    );
    let result: Value = serde_json::from_str(&out).expect("the program prints JSON");

    let id = result["callId"].as_u64().expect("the call's request id");
    assert_eq!(
        result["progress"],
        json!(["Assets/Blocking/a.fifo"]),
        "{result}"
    );
    assert_eq!(result["rejected"]["isBurilToolError"], true, "{result}");
    assert_eq!(result["rejected"]["type"], "cancelled", "{result}");
    let cancelled = result["cancelled"].as_array().expect("cancellations");
    assert_eq!(cancelled.len(), 1, "{result}");
    assert_eq!(cancelled[0]["requestId"], id, "{result}");

    // On the request's own response stream: the progress report, then the end of the stream
    // with no answer (a cancelled request is not answered), while the tool was still blocked
    // on the pipe: the server acted on the cancellation, the tool could not have finished.
    assert_eq!(
        result["onStream"],
        json!(["notifications/progress"]),
        "{result}"
    );
    assert_eq!(result["server"], Value::Null, "{result}");
    assert_eq!(result["streamEndedWhileBlocked"], true, "{result}");

    assert!(result["after"]["scenes"].is_array(), "{result}");
    // The tool saw the cancellation through its context and stopped before the next file.
    server.wait_for_log(
        &["tool=\"asset_search\"", "returned=\"cancelled\""],
        Duration::from_secs(60),
    );
}

/// A call cancelled in flight over `stdioTransport`, seen by the tool itself: `asset_search` over
/// a folder holding two named pipes, as over HTTP (see above). The program aborts the call on
/// the progress report naming `a.fifo` (the call rejects at once as `cancelled`), then unblocks
/// the pipe; the tool, checking its context before the next file, returns `cancelled`, which the
/// server logs (its standard error goes to a file): had its context not seen the cancellation,
/// it would have gone on to `b.fifo` and blocked there, and no such line would come. The
/// session works afterwards.
#[cfg(unix)]
#[test]
fn a_cancelled_stdio_call_is_seen_by_the_tool() {
    let binary = bin::tools();
    let folder = compiled_program();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let project = dir.path().join("game");
    let fifo = project_with_pipes(&project);
    let log = dir.path().join("server.log");
    std::fs::write(&log, "").expect("the log file");
    let out = folder.node(
        "out/cancel_stdio.js",
        &[&text(&binary), &text(&project), &text(&fifo), &text(&log)],
    );
    let result: Value = serde_json::from_str(&out).expect("the program prints JSON");
    assert_eq!(
        result["progress"],
        json!(["Assets/Blocking/a.fifo"]),
        "{result}"
    );
    assert_eq!(result["rejected"]["isBurilToolError"], true, "{result}");
    assert_eq!(result["rejected"]["type"], "cancelled", "{result}");
    let line = result["line"].as_str().unwrap_or_else(|| {
        panic!(
            "the server logged nothing about the tool within a minute; its log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    assert!(line.contains("returned=\"cancelled\""), "{line}");
    assert!(result["after"]["scenes"].is_array(), "{result}");
}

/// `startTask` over `mode` (`http`, `stdio`) against `tools serve` on a project whose
/// `Assets/Blocking` holds a named pipe (a search there blocks until cancelled).
#[cfg(unix)]
fn tasks_over(mode: &str) -> Value {
    let binary = bin::tools();
    let folder = compiled_program();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let project = dir.path().join("game");
    let _fifo = project_with_pipes(&project);
    let out = match mode {
        "http" => {
            let server = HttpServer::start(&binary, &project);
            folder.node("out/tasks.js", &["http", &server.url])
        }
        _ => folder.node("out/tasks.js", &["stdio", &text(&binary), &text(&project)]),
    };
    serde_json::from_str(&out).expect("the program prints JSON")
}

#[cfg(unix)]
fn check_tasks(result: &Value) {
    assert_eq!(result["declared"], "optional", "{result}");
    let completed = &result["completed"];
    assert_eq!(
        completed["taskId"], "task_",
        "a real task was made: {result}"
    );
    assert_eq!(completed["query"], "PlayerController");
    assert!(completed["matches"].as_u64().unwrap() > 0, "{result}");
    assert_eq!(completed["polled"], "completed");
    assert_eq!(
        completed["statuses"].as_array().unwrap().last(),
        Some(&json!("completed"))
    );
    let cancelled = &result["cancelled"];
    assert_eq!(cancelled["rejected"], "cancelled", "{result}");
    assert_eq!(cancelled["after"], "cancelled", "{result}");
    assert_eq!(cancelled["seen"][0], "working", "{result}");
    let timed_out = &result["timedOut"];
    assert_eq!(timed_out["timedOut"], "timeout", "{result}");
    assert_eq!(
        timed_out["stillRunning"], "working",
        "the task outlives the wait: {result}"
    );
    assert_eq!(timed_out["ended"], "cancelled", "{result}");
}

#[cfg(unix)]
#[test]
fn task_handles_over_http_run_poll_and_cancel_tasks() {
    check_tasks(&tasks_over("http"));
}

#[cfg(unix)]
#[test]
fn task_handles_over_stdio_run_poll_and_cancel_tasks() {
    check_tasks(&tasks_over("stdio"));
}
