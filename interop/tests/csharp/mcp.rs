//! The committed C# bindings (the Unity package's `bindings/unity/Editor/`, but for its
//! Unity-only `Buril.Unity.cs`) over the real MCP transports to the real
//! `tools` binary: `BurilProcessTransport` over `tools serve` and `BurilHttpTransport` over
//! `tools serve --http 127.0.0.1:0`; and `BurilHttpTransport` against a fake server for the
//! answers the real one does not give. The program (`tests/csharp/mcp/*.cs`) prints what it saw.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use buril_test_support::bin::{self, workspace};
use serde_json::{Value, json};

use crate::common::tools_server::HttpServer;
#[cfg(unix)]
use crate::pipes::{project_with_pipes, text};
use crate::support::{NEWTONSOFT, api_of, generate, mcs, registry_sources, run, write_generated};

/// The committed C# bindings and the metadata hash their header names.
fn committed_bindings() -> (Vec<PathBuf>, String) {
    let dir = workspace().join("bindings/unity/Editor");
    let mut sources: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("bindings/unity/Editor exists")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "cs"))
        .filter(|path| !path.ends_with("Buril.Unity.cs"))
        .collect();
    assert!(sources.len() >= 3, "the committed C# files: {sources:?}");
    sources.sort();
    let client = fs::read_to_string(dir.join("Buril.Client.cs")).expect("the client");
    let hash = client
        .lines()
        .find_map(|line| line.split("from tool metadata ").nth(1))
        .and_then(|rest| rest.strip_suffix('.'))
        .expect("the header names the metadata hash")
        .to_owned();
    (sources, hash)
}

/// `Mcp.exe` built from the committed bindings, in a temporary folder with Newtonsoft.Json.
fn build(dir: &Path) -> PathBuf {
    let (mut sources, _) = committed_bindings();
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp/mcp");
    for name in ["End.cs", "Fake.cs", "Mcp.cs"] {
        sources.push(programs.join(name));
    }
    let exe = dir.join("Mcp.exe");
    let defines = if http_transport_exists() {
        vec!["-define:BURIL_HTTP".to_owned()]
    } else {
        Vec::new()
    };
    mcs(&exe, "exe", &sources, &defines);
    fs::copy(NEWTONSOFT, dir.join("Newtonsoft.Json.dll")).expect("a copy");
    exe
}

/// Whether the committed runtime has the HTTP transport.
fn http_transport_exists() -> bool {
    fs::read_to_string(workspace().join("bindings/unity/Editor/Buril.Runtime.cs"))
        .expect("the runtime")
        .contains("class BurilHttpTransport")
}

/// Runs `Mcp.exe ARGS` with the project in `project`, and reads its JSON.
fn drive(exe: &Path, args: &[&str], project: &Path) -> Value {
    let mut all = vec![exe.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    let args = all;
    let output = run("mono", &args, &[("BURIL_PROJECT", project)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "mono {args:?} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|error| panic!("Mcp.exe printed no JSON ({error}):\n{stdout}\n{stderr}"))
}

/// What both transports must have done.
fn check_common(seen: &Value, hash: &str) {
    assert_eq!(seen["serverVersionBefore"], Value::Null, "{seen}");
    assert_eq!(seen["metadataHash"], json!(hash));
    assert_eq!(seen["serverVersion"], json!(hash), "{seen}");
    assert_eq!(
        seen["open"],
        json!({"scene": "Main", "objectCount": 5}),
        "{seen}"
    );
    assert_eq!(
        seen["roots"],
        json!(["Main Camera", "Directional Light", "Ground", "Player"])
    );
    assert_eq!(seen["log"], json!("hello"));
    let stale = seen["staleWarnings"].as_array().expect("warnings");
    assert_eq!(stale.len(), 1, "{seen}");
    assert!(
        stale[0].as_str().is_some_and(|w| w.starts_with(&format!(
            "these bindings were generated from tool metadata 0123456789abcdef, and this \
             server's is {hash}"
        ))),
        "{seen}"
    );
    assert_eq!(seen["currentWarnings"], json!([]));
    // A validation failure is a ToolValidationException with every problem.
    let invalid = &seen["invalid"];
    assert_eq!(invalid["class"], json!("ToolValidationException"), "{seen}");
    assert_eq!(invalid["type"], json!("validation"));
    assert_eq!(
        invalid["problems"],
        json!([{"path": "/name", "message": "expected a string, got the number 3"}])
    );
    assert_eq!(seen["missing"]["type"], json!("validation"), "{seen}");
    assert!(
        seen["missing"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("999")),
        "{seen}"
    );
    // An unknown tool is the server's JSON-RPC -32602: the `not_found` envelope, in the
    // server's own words, as `tools call` and the TypeScript transports answer it.
    let unknown = &seen["unknown"];
    assert_eq!(unknown["class"], json!("BurilToolException"), "{seen}");
    assert_eq!(unknown["type"], json!("not_found"), "{seen}");
    assert!(
        unknown["error"]
            .as_str()
            .is_some_and(|t| t.contains("no tool is named `scene_lst`") && t.contains("scene_list")),
        "{seen}"
    );
    // Progress reports arrive, in order, before the answer: the server sends at most one per
    // 50 ms of a call (the newest), and always the last, so between one and one per file plus
    // the final report.
    let progress = &seen["progress"];
    let scanned = progress["filesScanned"].as_u64().expect("a count");
    assert!(scanned > 0, "{seen}");
    let reports = progress["reports"].as_u64().expect("a count");
    assert!((1..=scanned + 1).contains(&reports), "{seen}");
    assert_eq!(progress["last"], json!("done"));
    assert_eq!(progress["lastTotal"], json!(scanned as f64));
    // Cancelled from a progress report, before the answer; an already cancelled token; a
    // timeout that has passed: the server is told, and the next call is answered.
    for key in ["cancelled", "preCancelled"] {
        assert!(
            seen[key]["class"]
                .as_str()
                .is_some_and(|c| c.ends_with("CanceledException")),
            "{key}: {seen}"
        );
    }
    assert_eq!(seen["timedOut"]["failure"], json!("Timeout"), "{seen}");
    assert_eq!(seen["afterCancel"], json!("still here"));
    // From a thread with a single-threaded synchronization context (Unity's main thread): the
    // blocking call does not deadlock, and an awaited call resumes there.
    assert_eq!(
        seen["mainThread"],
        json!({"blocking": "blocking", "awaited": "awaited", "resumedOnMainThread": true}),
        "{seen}"
    );
    // 8 threads x 200 calls, none lost or crossed.
    assert_eq!(
        seen["concurrent"],
        json!({"answered": 1600, "crossed": 0, "errors": []}),
        "{seen}"
    );
}

#[test]
fn the_process_transport_serves_the_bindings_over_stdio() {
    let tools = bin::tools();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build(dir.path());
    let (_, hash) = committed_bindings();
    let project = dir.path().join("project");
    let seen = drive(&exe, &["stdio", &tools.display().to_string()], &project);
    check_common(&seen, &hash);
    assert_eq!(seen["protocolVersion"], json!("2025-11-25"));
    // Killed, started again by the next call, which says so.
    assert_eq!(seen["afterRestart"], json!("again"), "{seen}");
    assert_eq!(seen["restarts"], json!(1));
    let reasons = seen["restartReasons"].as_array().expect("an array");
    assert_eq!(reasons.len(), 1, "{seen}");
    assert!(
        reasons[0]
            .as_str()
            .is_some_and(|r| r.starts_with("1: the server process") && r.contains("exited")),
        "{seen}"
    );
    assert_eq!(seen["newProcess"], json!(true));
    assert_eq!(
        seen["previous"],
        json!({"log": "old", "protocolVersion": "2025-06-18"})
    );
    // Dispose stopped it.
    assert_eq!(seen["afterDispose"], json!(0));
    for (key, words) in [
        ("cannotStart", "cannot start"),
        ("exitsAtOnce", "--no-such-option"),
    ] {
        let failure = &seen[key];
        assert_eq!(failure["class"], json!("BurilTransportException"), "{seen}");
        assert_eq!(failure["failure"], json!("Process"), "{key}: {seen}");
        assert!(
            failure["message"]
                .as_str()
                .is_some_and(|m| m.contains(words)),
            "{key}: {seen}"
        );
    }
}

#[test]
fn the_http_transport_serves_the_bindings_over_streamable_http() {
    assert!(
        http_transport_exists(),
        "the committed runtime has no BurilHttpTransport"
    );
    let tools = bin::tools();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build(dir.path());
    let (_, hash) = committed_bindings();
    let project = dir.path().join("project");
    let server = HttpServer::start(&tools, &project);
    // A port nothing listens on: bound, then closed.
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        format!("http://{}/mcp", listener.local_addr().expect("its address"))
    };
    let seen = drive(&exe, &["http", &server.url, &refused], &project);
    check_common(&seen, &hash);
    // One session, its id and protocol version on every request after `initialize`.
    assert_eq!(seen["protocolVersion"], json!("2025-11-25"), "{seen}");
    assert_eq!(seen["sessionLog"], json!("session"));
    assert_eq!(seen["hasSession"], json!(true));
    assert_eq!(seen["sessions"], json!(1));
    assert_eq!(
        seen["previous"],
        json!({"log": "old", "protocolVersion": "2025-06-18"})
    );
    // What failed, and the server's own words.
    let wrong = &seen["wrongPath"];
    assert_eq!(wrong["failure"], json!("HttpStatus"), "{seen}");
    assert_eq!(wrong["statusCode"], json!(404));
    assert_eq!(
        wrong["serverText"],
        json!("Not Found: the MCP endpoint is /mcp")
    );
    assert!(
        wrong["message"]
            .as_str()
            .is_some_and(|m| m.contains("answered HTTP 404")),
        "{seen}"
    );
    let refused_seen = &seen["refused"];
    assert_eq!(refused_seen["failure"], json!("Connection"), "{seen}");
    assert!(
        refused_seen["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(&format!("cannot reach {refused}"))
                && m.to_lowercase().contains("refused")),
        "{seen}"
    );
}

#[test]
fn the_http_transport_reads_every_answer_the_protocol_allows() {
    assert!(
        http_transport_exists(),
        "the committed runtime has no BurilHttpTransport"
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build(dir.path());
    let (_, hash) = committed_bindings();
    let seen = drive(&exe, &["fake"], dir.path());
    // A plain JSON answer without buril's envelope: rebuilt from `structuredContent`, with the
    // warnings and the server's hash from `_meta`.
    assert_eq!(seen["plain"], json!("plain"), "{seen}");
    assert_eq!(seen["serverVersion"], json!("feedfacefeedface"));
    assert_eq!(seen["warnings"], json!(["console_log: regenerate"]));
    assert_eq!(seen["protocolVersion"], json!("2025-06-18"));
    assert_eq!(
        seen["envelope"],
        json!({"ok": true, "data": {"time_ms": 1, "level": "info", "message": "plain"},
               "warnings": ["regenerate"]})
    );
    // Only text content: read as JSON. `isError` without an envelope: a runtime failure in the
    // server's words.
    assert_eq!(seen["textOnly"], json!({"answer": 42}));
    assert_eq!(
        seen["broken"],
        json!({"class": "BurilToolException", "type": "runtime",
               "message": "`broken` failed (runtime): it broke"})
    );
    // A session the server forgot (404) is started again once, and the call is answered.
    assert_eq!(seen["expire"], json!({"session": "s2"}));
    assert_eq!(seen["sessions"], json!(2));
    assert_eq!(seen["garbage"]["failure"], json!("Protocol"), "{seen}");
    assert!(
        seen["garbage"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("text/html") && m.ends_with("<html>nope</html>")),
        "{seen}"
    );
    // An event stream with a priming event, a comment, a progress report and an answer over
    // several data lines.
    assert_eq!(seen["events"], json!({"lines": "two"}));
    assert_eq!(seen["reports"], json!(["1/2 half"]));
    assert_eq!(seen["unknown"]["type"], json!("not_found"), "{seen}");
    // Structured data read from the answer's text (and, over several lines, from its tree)
    // comes back exactly: strings with brackets, quotes and escapes, nesting, a big integer.
    let tricky = json!({"s": "a \"}] \u{e9} \u{e9} \u{1f600} \\ [", "n": [1, {"x": []}],
                        "big": 12345678901234567890u64});
    assert_eq!(seen["tricky"], tricky, "{seen}");
    assert_eq!(seen["pretty"], tricky, "{seen}");
    assert_eq!(
        seen["trickyEnvelope"],
        json!({"ok": true, "data": tricky}),
        "{seen}"
    );
    // `initialize` bare; then the session and the agreed version on every request; the
    // session ended with DELETE.
    let s1 = "session=s1 version=2025-06-18";
    let s2 = "session=s2 version=2025-06-18";
    assert_eq!(
        seen["seen"],
        json!([
            "initialize session=- version=-",
            format!("notifications/initialized {s1}"),
            format!("console_log {s1}"),
            format!("console_log {s1}"),
            format!("text_only {s1}"),
            format!("broken {s1}"),
            format!("expire {s1}"),
            "initialize session=- version=-",
            format!("notifications/initialized {s2}"),
            format!("expire {s2}"),
            format!("garbage {s2}"),
            format!("events {s2}"),
            format!("nothing {s2}"),
            format!("tricky {s2}"),
            format!("tricky {s2}"),
            format!("pretty {s2}"),
            "DELETE session=s2",
        ])
    );
    // The typed method sent both hashes; the untyped transport call none.
    let console_log = buril::registry().get("console_log").expect("console_log");
    assert_eq!(
        seen["firstMeta"],
        json!({"buril/metadata": hash, "buril/tool-metadata": console_log.metadata_hash()})
    );
    assert_eq!(seen["secondMeta"], json!({}));
}

/// `PROGRAM.exe` (`tests/csharp/mcp/PROGRAM.cs` with the committed bindings) compiled into `dir`, with
/// Newtonsoft.Json beside it.
fn build_program(dir: &Path, program: &str) -> PathBuf {
    let (mut sources, _) = committed_bindings();
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp/mcp");
    sources.push(programs.join(format!("{program}.cs")));
    sources.push(programs.join("End.cs"));
    let exe = dir.join(format!("{program}.exe"));
    mcs(&exe, "exe", &sources, &[]);
    fs::copy(NEWTONSOFT, dir.join("Newtonsoft.Json.dll")).expect("a copy");
    exe
}

/// Runs `EveryTool.exe` over `transport` (`stdio TOOLS`, `http URL`) and checks that every
/// example tool was called through its typed `BurilClient` method (see
/// `every_tool::check`).
fn every_tool(dir: &Path, exe: &Path, transport: &[&str], project: &Path) {
    let calls = dir.join("calls.json");
    crate::every_tool::write_calls(&calls);
    let mut args = vec![calls.to_str().expect("a UTF-8 path")];
    args.extend_from_slice(transport);
    let seen = drive(exe, &args, project);
    let (_, hash) = committed_bindings();
    crate::every_tool::check(&seen, &hash);
    for outcome in seen["outcomes"].as_array().expect("outcomes") {
        let method = outcome["method"].as_str().expect("the method called");
        assert!(method.ends_with("Input)"), "{outcome}");
        if outcome["ok"] == true {
            assert!(
                outcome["outputType"]
                    .as_str()
                    .is_some_and(|t| t.ends_with("Output")),
                "{outcome}"
            );
        }
    }
}

#[test]
fn every_tool_through_the_typed_client_over_the_process_transport() {
    let tools = bin::tools();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "EveryTool");
    let project = dir.path().join("project");
    let tools = tools.to_str().expect("a UTF-8 path").to_owned();
    every_tool(dir.path(), &exe, &["stdio", &tools], &project);
}

#[test]
fn every_tool_through_the_typed_client_over_the_http_transport() {
    let tools = bin::tools();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "EveryTool");
    let project = dir.path().join("project");
    let server = HttpServer::start_with(&tools, &project, &["--allow-dangerous"]);
    every_tool(dir.path(), &exe, &["http", &server.url], &project);
}

/// C# bindings generated from the `tools` binary's tools (the registry but for the test-only
/// `zoo` family) with one tool's input schema changed (`scene_list` given an extra optional
/// property), compiled and called over `BurilHttpTransport` against the real server: the
/// changed tool's typed call raises the warning that it changed, another tool's that it is
/// unchanged but others changed, both naming both hashes, and the server's hash (the committed
/// bindings', the real tools') reaches `ServerVersion` and differs from the stale `MetadataHash`.
#[test]
fn stale_csharp_bindings_are_warned_by_the_server() {
    let mut sources: Vec<_> = registry_sources()
        .into_iter()
        .filter(|s| s.meta.family != "zoo")
        .collect();
    let changed = sources
        .iter_mut()
        .find(|s| s.meta.name == "scene_list")
        .expect("scene_list");
    changed.input_schema["properties"]["stale_probe"] =
        json!({"type": ["string", "null"], "description": "Not known to the server."});
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut files = write_generated(&dir.path().join("generated"), &generate(&api_of(&sources)));
    files.retain(|path| path.extension().is_some_and(|e| e == "cs"));
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp/mcp");
    files.extend([programs.join("Stale.cs"), programs.join("End.cs")]);
    let exe = dir.path().join("Stale.exe");
    mcs(&exe, "exe", &files, &[]);
    fs::copy(NEWTONSOFT, dir.path().join("Newtonsoft.Json.dll")).expect("a copy");

    let tools = bin::tools();
    let project = dir.path().join("project");
    let server = HttpServer::start(&tools, &project);
    let seen = drive(&exe, &[&server.url], &project);

    let (_, ours) = committed_bindings();
    let stale = seen["metadataHash"].as_str().expect("MetadataHash");
    assert_ne!(stale, ours, "the changed schema changes the bindings' hash");
    assert_eq!(seen["serverVersion"], json!(ours), "{seen}");
    let start = format!(
        "these bindings were generated from tool metadata {stale}, and this server's is {ours}"
    );
    let changed = seen["changed"].as_array().expect("warnings");
    assert_eq!(changed.len(), 1, "{seen}");
    assert_eq!(changed[0]["tool"], json!("scene_list"), "{seen}");
    let warning = changed[0]["warning"].as_str().expect("a warning");
    assert!(warning.starts_with(&start), "{warning}");
    assert!(warning.contains("`scene_list` changed since"), "{warning}");
    let unchanged = seen["unchanged"].as_array().expect("warnings");
    assert_eq!(unchanged.len(), 1, "{seen}");
    assert_eq!(unchanged[0]["tool"], json!("console_read"), "{seen}");
    let warning = unchanged[0]["warning"].as_str().expect("a warning");
    assert!(warning.starts_with(&start), "{warning}");
    assert!(
        warning.contains("`console_read` is unchanged, other tools changed"),
        "{warning}"
    );
    assert!(seen["scenes"].as_u64().is_some_and(|n| n > 0), "{seen}");
    assert!(seen["totalCount"].is_u64(), "{seen}");
}

/// A call cancelled in flight over `BurilHttpTransport`, seen by the tool itself: `asset_search`
/// over a folder holding two named pipes, `a.fifo` and `b.fifo`. Reading `a.fifo` blocks the
/// tool (after its progress report naming it) until the program writes to it, so the call
/// cannot end on its own first. The program cancels on that report; `notifications/cancelled`
/// with the call's request id goes to the server, which ends that request's response stream
/// (read by the program's own HTTP handler) without an answer while the tool is still blocked;
/// the session works afterwards. Once the server has logged the cancellation, the test unblocks
/// the pipe, and the tool, checking its context before the next file, returns `cancelled` (the
/// server logs what a tool returns after its call ended): had its context not seen the
/// cancellation, it would have gone on to `b.fifo` and blocked there, and no such line would
/// come.
#[cfg(unix)]
#[test]
fn a_cancelled_http_call_is_cancelled_on_the_server() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "Cancel");

    let project = dir.path().join("project");
    let fifo = project_with_pipes(&project);
    let tools = bin::tools();
    let server = HttpServer::start_logging(
        &tools,
        &project,
        "buril::dispatch=debug,buril::server=debug",
    );
    let seen = drive(&exe, &[&server.url], &project);

    let id = seen["callId"].as_i64().expect("the call's request id");
    assert!(id > 0, "{seen}");
    assert_eq!(
        seen["progress"],
        json!(["Assets/Blocking/a.fifo"]),
        "{seen}"
    );
    // The call itself ends as a cancelled token's task does.
    // An `OperationCanceledException` (the process transport's task is a cancelled task, whose
    // exception is its `TaskCanceledException`).
    assert_eq!(seen["rejected"]["cancellation"], json!(true), "{seen}");
    let cancelled = seen["cancelled"].as_array().expect("cancellations");
    assert_eq!(cancelled.len(), 1, "{seen}");
    assert_eq!(cancelled[0]["requestId"], json!(id), "{seen}");
    // The progress report, then the end of the stream with no answer, while the tool was
    // still blocked on the pipe.
    assert_eq!(
        seen["onStream"],
        json!(["notifications/progress"]),
        "{seen}"
    );
    assert!(seen["after"].as_u64().is_some_and(|n| n > 0), "{seen}");
    // Once the server's call task has cancelled the tool's context (it logs so), the tool's
    // read may end: unblocked before, it could read on before that task has run.
    server.wait_for_log(
        &["tool=\"asset_search\"", "cancelled the call"],
        Duration::from_secs(60),
    );
    fs::write(&fifo, "unblocked\n").expect("the named pipe, which the tool reads");
    // The tool saw the cancellation through its context and stopped before the next file.
    server.wait_for_log(
        &["tool=\"asset_search\"", "returned=\"cancelled\""],
        Duration::from_secs(60),
    );
}

/// A call cancelled in flight over `BurilProcessTransport`, seen by the tool itself:
/// `asset_search` over a folder holding two named pipes, as over HTTP (see above). The program
/// cancels the call on the progress report naming `a.fifo` (the task ends as a cancelled one),
/// then unblocks the pipe; the tool, checking its context before the next file, returns
/// `cancelled`, which the server logs (its standard error goes to a file): had its context not
/// seen the cancellation, it would have gone on to `b.fifo` and blocked there, and no such line
/// would come. The transport works afterwards.
#[cfg(unix)]
#[test]
fn a_cancelled_process_call_is_seen_by_the_tool() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "Cancel");

    let project = dir.path().join("project");
    let fifo = project_with_pipes(&project);
    let log = dir.path().join("server.log");
    fs::write(&log, "").expect("the log file");
    let tools = bin::tools();
    let seen = drive(
        &exe,
        &["stdio", &text(&tools), &text(&fifo), &text(&log)],
        &project,
    );

    assert_eq!(
        seen["progress"],
        json!(["Assets/Blocking/a.fifo"]),
        "{seen}"
    );
    // An `OperationCanceledException` (the process transport's task is a cancelled task, whose
    // exception is its `TaskCanceledException`).
    assert_eq!(seen["rejected"]["cancellation"], json!(true), "{seen}");
    let line = seen["line"].as_str().unwrap_or_else(|| {
        panic!(
            "the server logged nothing about the tool within a minute; its log:\n{}",
            fs::read_to_string(&log).unwrap_or_default()
        )
    });
    assert!(line.contains("returned=\"cancelled\""), "{line}");
    assert!(seen["after"].as_u64().is_some_and(|n| n > 0), "{seen}");
}

/// `Tasks.exe` over `transport` against `tools serve` on a project whose `Assets/Blocking`
/// holds a named pipe (a search there blocks until cancelled).
#[cfg(unix)]
fn tasks_over(http: bool) -> Value {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "Tasks");
    let project = dir.path().join("project");
    let _fifo = project_with_pipes(&project);
    let tools = bin::tools();
    if http {
        let server = HttpServer::start(&tools, &project);
        drive(&exe, &["http", &server.url], &project)
    } else {
        drive(&exe, &["stdio", &text(&tools)], &project)
    }
}

#[cfg(unix)]
fn check_tasks(seen: &Value) {
    let completed = &seen["completed"];
    assert_eq!(completed["taskId"], "task_", "a real task was made: {seen}");
    assert_eq!(completed["query"], "PlayerController");
    assert!(completed["matches"].as_u64().unwrap() > 0, "{seen}");
    assert_eq!(completed["polled"], "completed");
    assert_eq!(
        completed["statuses"].as_array().unwrap().last(),
        Some(&json!("completed"))
    );
    let cancelled = &seen["cancelled"];
    assert_eq!(
        cancelled["rejected"], "OperationCanceledException",
        "{seen}"
    );
    assert_eq!(cancelled["after"], "cancelled", "{seen}");
    assert_eq!(cancelled["seen"][0], "working", "{seen}");
    let timed_out = &seen["timedOut"];
    assert_eq!(timed_out["timedOut"], "timeout", "{seen}");
    assert_eq!(
        timed_out["stillRunning"], "working",
        "the task outlives the wait: {seen}"
    );
    assert_eq!(timed_out["ended"], "cancelled", "{seen}");
    assert_eq!(
        seen["invalid"], "validation",
        "refused before it was a task: {seen}"
    );
}

#[cfg(unix)]
#[test]
fn task_handles_over_the_http_transport_run_poll_and_cancel_tasks() {
    check_tasks(&tasks_over(true));
}

#[cfg(unix)]
#[test]
fn task_handles_over_the_process_transport_run_poll_and_cancel_tasks() {
    check_tasks(&tasks_over(false));
}

/// The transports read every message as Newtonsoft.Json's parser does: `Messages.exe` runs
/// hand-picked messages and 3,000 made at random (fixed seed) through `BurilMcp.ParseMessage`
/// (the transports' own reader, or Newtonsoft.Json's parser when it declines) and through
/// Newtonsoft.Json's parser alone, and compares the trees token type by token type, or the
/// refusals.
#[test]
fn the_transports_read_every_message_as_newtonsoft_json_does() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let exe = build_program(dir.path(), "Messages");
    let seen = drive(&exe, &["3000"], dir.path());
    assert_eq!(seen["mismatches"], json!([]), "{seen:#}");
    // The hand-picked messages went the way they were picked for: read by the transports' own
    // reader, or declined to Newtonsoft.Json.
    assert_eq!(seen["notRead"], json!([]), "{seen:#}");
    assert_eq!(seen["notDeclined"], json!([]), "{seen:#}");
    assert_eq!(seen["random"], json!(3000));
    // Most random messages are strict JSON the reader reads itself (a duplicate member name
    // among the random ones is declined).
    let random_read = seen["randomRead"].as_u64().expect("a count");
    assert!(random_read >= 2900, "{seen:#}");
    assert!(
        seen["declined"].as_u64().expect("a count") >= 40,
        "{seen:#}"
    );
}
