//! `serve`: the MCP server, driven by clients nobody here wrote: the Python `mcp` SDK (which
//! speaks the 2026-07-28 protocol) and the TypeScript SDK (2025-11-25), over stdio and
//! Streamable HTTP. The servers are the `tools` binary and the `mcp_fixture` example, whose
//! tools panic, sleep past their timeout and answer megabytes on purpose.
//!
//! The clients' scripts (interop/mcp/) only record what they see; every expectation is here.
//! A missing client fails the tests: `bash scripts/test.sh` installs both.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use buril_test_support::bin;
use serde_json::{Value, json};

use crate::common::sdk::{Client, Workspace, fixture_binary, with};

/// The fixture's tools, as every client should list them (`fixture_wipe` is dangerous: off).
const FIXTURE_TOOLS: [&str; 7] = [
    "fixture_big",
    "fixture_echo",
    "fixture_panic",
    "fixture_progress",
    "fixture_sleep",
    "fixture_stats",
    "fixture_survey",
];

/// The calls of the `basics` scenario: (key, tool, arguments).
fn basic_calls() -> Value {
    json!([
        ["valid", "fixture_echo", {"n": 7}],
        ["invalid", "fixture_echo", {"n": "seven", "extra": true}],
        ["unknown", "fixture_nonexistent", {}],
        ["panic", "fixture_panic", {"message": "boom"}],
        ["timeout", "fixture_sleep", {"ms": 5000}],
        ["quick", "fixture_sleep", {"ms": 10}],
        ["large", "fixture_big", {"bytes": 50000}],
        ["dangerous", "fixture_wipe", {}],
        ["after", "fixture_echo", {"n": 8, "text": "still serving"}]
    ])
}

/// Serves the fixture with a config file that gives `fixture_sleep` a 0.5 s timeout (over the
/// 30 s of `--timeout`), results past 10 000 bytes spilled to files, and pages of 4 tools.
fn fixture_args(config: &Path) -> Vec<String> {
    [
        "--config",
        &config.display().to_string(),
        "--timeout",
        "30",
        "--max-result-bytes",
        "10000",
        "--page-size",
        "4",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

const FIXTURE_CONFIG: &str = "# tests\n[timeouts]\nfixture_sleep = 0.5\n";

fn args(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn result<'a>(report: &'a Value, key: &str) -> &'a Value {
    let call = &report["calls"][key];
    assert!(call.get("result").is_some(), "`{key}` raised {call}");
    &call["result"]
}

fn text(result: &Value, index: usize) -> &str {
    result["content"][index]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block {index} in {result}"))
}

fn is_error(result: &Value) -> bool {
    result["isError"].as_bool().unwrap_or(false)
}

fn envelope_type(result: &Value) -> &str {
    result["_meta"]["buril/envelope"]["type"]
        .as_str()
        .unwrap_or_else(|| panic!("no envelope in the error result {result}"))
}

/// What every client must see of the fixture, whatever its protocol version.
fn check_basics(report: &Value, workspace: &Workspace) {
    // tools/list: enabled tools only, sorted, in pages of 4, each a full definition.
    let names: Vec<&str> = report["list"]["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names, FIXTURE_TOOLS);
    let pages: Vec<usize> = report["list"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_array().unwrap().len())
        .collect();
    assert_eq!(pages, [4, 3]);
    let echo = &report["list"]["pages"][0][1];
    assert_eq!(echo["name"], "fixture_echo");
    assert_eq!(echo["title"], "Echo");
    assert!(
        echo["description"]
            .as_str()
            .unwrap()
            .starts_with("Answers with its input")
    );
    assert_eq!(echo["inputSchema"]["type"], "object");
    assert_eq!(echo["inputSchema"]["required"], json!(["n"]));
    assert_eq!(echo["outputSchema"]["type"], "object");
    assert_eq!(
        echo["annotations"],
        json!({"title": "Echo", "readOnlyHint": true, "idempotentHint": true})
    );

    // A valid call: structured content and a text copy of it.
    let valid = result(report, "valid");
    assert!(!is_error(valid), "{valid}");
    assert_eq!(valid["structuredContent"], json!({"n": 7, "text": null}));
    let copy: Value = serde_json::from_str(text(valid, 0)).unwrap();
    assert_eq!(copy, valid["structuredContent"]);

    // Invalid input is a tool error the model can read, never a protocol error.
    let invalid = result(report, "invalid");
    assert!(is_error(invalid), "{invalid}");
    assert!(invalid.get("structuredContent").is_none(), "{invalid}");
    let message = text(invalid, 0);
    assert!(message.contains("/n: expected an integer"), "{message}");
    assert!(message.contains("/extra: unknown property"), "{message}");
    assert_eq!(envelope_type(invalid), "validation");

    // An unknown tool, and a dangerous one that is off, are JSON-RPC -32602.
    for key in ["unknown", "dangerous"] {
        let error = &report["calls"][key]["error"];
        assert_eq!(error["code"], -32602, "{key}: {}", report["calls"][key]);
    }
    let message = report["calls"]["dangerous"]["error"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("no tool is named `fixture_wipe`"),
        "{message}"
    );

    // A panic and a timeout are tool errors; the server goes on.
    let panic = result(report, "panic");
    assert!(is_error(panic));
    assert!(text(panic, 0).contains("panicked: boom"), "{panic}");
    assert_eq!(envelope_type(panic), "panic");
    let timeout = result(report, "timeout");
    assert!(is_error(timeout));
    assert!(
        text(timeout, 0).contains("did not finish within 500 ms"),
        "{timeout}"
    );
    assert_eq!(envelope_type(timeout), "timeout");
    assert_eq!(
        result(report, "quick")["structuredContent"],
        json!({"ms": 10})
    );
    assert_eq!(
        result(report, "after")["structuredContent"],
        json!({"n": 8, "text": "still serving"})
    );

    check_large(
        result(report, "large"),
        &workspace.path().join(".buril/outputs"),
    );
}

/// A large result: the data in `structuredContent`, the text a note with the file's path and
/// size, a `resource_link` to the file, and the file holding the same data.
fn check_large(large: &Value, folder: &Path) {
    assert!(!is_error(large), "{large}");
    let note = text(large, 0);
    assert!(note.contains("was written to the file"), "{note}");
    assert!(note.len() < 1000, "the note is short: {note}");
    let link = &large["content"][1];
    assert_eq!(link["type"], "resource_link", "{large}");
    assert_eq!(link["mimeType"], "application/json");
    let uri = link["uri"].as_str().unwrap();
    let path = Path::new(uri.strip_prefix("file://").expect("a file URI"));
    assert!(note.contains(&path.display().to_string()), "{note}");
    let folder = folder.canonicalize().unwrap();
    assert_eq!(path.parent().unwrap().canonicalize().unwrap(), folder);
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(link["size"], bytes.len());
    assert!(note.contains(&format!("({} bytes)", bytes.len())), "{note}");
    let written: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(written, large["structuredContent"]);
}

#[test]
fn python_client_lists_and_calls_over_stdio() {
    let workspace = Workspace::new();
    let config = workspace.config(FIXTURE_CONFIG);
    let spec = workspace.stdio(&fixture_binary(), &args(&fixture_args(&config)));
    let spec = with(
        spec,
        json!({"calls": basic_calls(), "progress": progress_call()}),
    );
    let report = Client::Python.run("basics", &with(spec, json!({"progress_reports": 3})));
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    assert_eq!(report["server_info"]["name"], "mcp_fixture");
    assert_eq!(report["capabilities"]["tools"]["listChanged"], true);
    check_basics(&report, &workspace);
    // Progress reaches a client that asked for it, every report, in order.
    let progress = &report["progress"];
    assert_eq!(
        progress["result"]["structuredContent"],
        json!({"result": 3})
    );
    check_progress(&progress["reports"], 3);
}

/// A call of `fixture_progress`, which reports 3 steps 50 ms apart.
fn progress_call() -> Value {
    json!(["fixture_progress", {"steps": 3}])
}

/// `reports` are steps 1 to `count` of 3, in order (numbers compared as numbers: Python
/// reports floats).
fn check_progress(reports: &Value, count: usize) {
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), count, "{reports:?}");
    for (i, report) in reports.iter().enumerate() {
        let step = i + 1;
        assert_eq!(report["progress"].as_f64(), Some(step as f64), "{report}");
        assert_eq!(report["total"].as_f64(), Some(3.0), "{report}");
        assert_eq!(report["message"], format!("step {step} of 3"), "{report}");
    }
}

#[test]
fn typescript_client_lists_and_calls_over_stdio() {
    let workspace = Workspace::new();
    let config = workspace.config(FIXTURE_CONFIG);
    let spec = workspace.stdio(&fixture_binary(), &args(&fixture_args(&config)));
    let spec = with(
        spec,
        json!({"calls": basic_calls(), "progress": progress_call()}),
    );
    let report = Client::TypeScript.run("basics", &spec);
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(report["serverVersion"]["name"], "mcp_fixture");
    check_basics(&report, &workspace);
    // Progress reaches a client that asked for it, in order. This SDK runs notification
    // handlers a microtask later than response handlers, so a report that arrives together
    // with the response (the last one, when the client is busy) finds its handler gone;
    // the server sends every report before the response.
    let progress = &report["progress"];
    assert_eq!(
        progress["result"]["result"]["structuredContent"],
        json!({"result": 3})
    );
    let received = progress["reports"].as_array().unwrap().len();
    assert!(received >= 1, "{progress}");
    check_progress(&progress["reports"], received);
}

/// Edits of the config file: the first disables `fixture_big` (then called: -32602), the
/// second enables the dangerous `fixture_wipe` (then called: it runs).
fn edits() -> Value {
    json!([
        {"config": "disable = [\"fixture_big\"]\n", "call": ["fixture_big", {"bytes": 10}]},
        {"config": "enable = [\"fixture_wipe\"]\n", "call": ["fixture_wipe", {}]}
    ])
}

fn check_list_changed(report: &Value) {
    let steps: Vec<&Value> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step.get("names").is_some())
        .collect();
    assert_eq!(steps.len(), 2, "{report}");
    let without_big: Vec<&str> = FIXTURE_TOOLS[1..].to_vec();
    assert_eq!(steps[0]["names"], json!(without_big));
    assert_eq!(steps[0]["call"]["error"]["code"], -32602, "{report}");
    let mut with_wipe = FIXTURE_TOOLS.to_vec();
    with_wipe.push("fixture_wipe");
    assert_eq!(steps[1]["names"], json!(with_wipe));
    assert_eq!(
        steps[1]["call"]["result"]["structuredContent"],
        json!({"result": "wiped"})
    );
}

#[test]
fn python_client_hears_the_tool_list_change_over_stdio() {
    let workspace = Workspace::new();
    let config = workspace.config("");
    let spec = workspace.stdio(&fixture_binary(), &["--config", config.to_str().unwrap()]);
    let spec = with(spec, json!({"config": config, "edits": edits()}));
    let report = Client::Python.run("list_changed", &spec);
    assert_eq!(
        report["steps"][0]["honored"],
        json!({"toolsListChanged": true})
    );
    for step in &report["steps"].as_array().unwrap()[1..] {
        assert_eq!(step["event"], "ToolsListChanged", "{report}");
    }
    check_list_changed(&report);
}

#[test]
fn typescript_client_hears_the_tool_list_change_over_stdio() {
    let workspace = Workspace::new();
    let config = workspace.config("");
    let spec = workspace.stdio(&fixture_binary(), &["--config", config.to_str().unwrap()]);
    let spec = with(spec, json!({"config": config, "edits": edits()}));
    let report = Client::TypeScript.run("list_changed", &spec);
    check_list_changed(&report);
    assert_eq!(report["notifications"], 2, "{report}");
}

fn check_concurrent(report: &Value, count: u64) {
    let answers = report["answers"].as_object().unwrap();
    assert_eq!(answers.len() as u64, count, "{report}");
    for n in 0..count {
        let answer = &answers[&n.to_string()];
        assert_eq!(answer["is_error"], false, "{n}: {answer}");
        assert_eq!(
            answer["structured"],
            json!({"n": n, "text": format!("call {n}")})
        );
    }
}

#[test]
fn python_client_makes_100_concurrent_calls_over_stdio() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(&fixture_binary(), &[]);
    let report = Client::Python.run("concurrent", &with(spec, json!({"count": 100})));
    check_concurrent(&report, 100);
}

#[test]
fn typescript_client_makes_100_concurrent_calls_over_stdio() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(&fixture_binary(), &[]);
    let report = Client::TypeScript.run("concurrent", &with(spec, json!({"count": 100})));
    check_concurrent(&report, 100);
}

/// The client gives up on a 30 s call after 0.3 s; `notifications/cancelled` reaches the
/// tool, which sees its context cancelled before its deadline (the fixture counts only those,
/// so the count shows the call was cancelled, not that it ran its 30 s).
fn check_cancel(report: &Value) {
    assert_eq!(report["gave_up"], true, "{report}");
    assert_eq!(report["stats"]["sleeps_cancelled"], 1, "{report}");
}

#[test]
fn python_client_cancels_a_call_over_stdio() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(&fixture_binary(), &[]);
    check_cancel(&Client::Python.run("cancel", &with(spec, json!({"after": 0.3}))));
}

#[test]
fn typescript_client_cancels_a_call_over_stdio() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(&fixture_binary(), &[]);
    check_cancel(&Client::TypeScript.run("cancel", &with(spec, json!({"after": 0.3}))));
}

/// Every scenario over Streamable HTTP against one server, with `client`.
fn over_http(client: Client) {
    let workspace = Workspace::new();
    let config = workspace.config(FIXTURE_CONFIG);
    let server = workspace.http(&fixture_binary(), &args(&fixture_args(&config)));
    let report = client.run(
        "basics",
        &with(server.spec(), json!({"calls": basic_calls()})),
    );
    check_basics(&report, &workspace);
    // The edits also drop the config's 0.5 s timeout of `fixture_sleep`, which the
    // cancellation below must not hit.
    let report = client.run(
        "list_changed",
        &with(server.spec(), json!({"config": config, "edits": edits()})),
    );
    check_list_changed(&report);
    let report = client.run("concurrent", &with(server.spec(), json!({"count": 100})));
    check_concurrent(&report, 100);
    let report = client.run("cancel", &with(server.spec(), json!({"after": 0.3})));
    check_cancel(&report);
}

#[test]
fn python_client_over_http() {
    over_http(Client::Python);
}

#[test]
fn typescript_client_over_http() {
    over_http(Client::TypeScript);
}

/// One raw HTTP/1.1 request; answers the status code.
fn status(authority: &str, host: &str, path: &str, origin: Option<&str>) -> u16 {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let origin = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{origin}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    let line = String::from_utf8_lossy(&head).into_owned();
    line[9..12]
        .parse()
        .unwrap_or_else(|_| panic!("not an HTTP status line: {line:?}"))
}

#[test]
fn http_accepts_loopback_origins_and_hosts_only() {
    let workspace = Workspace::new();
    let server = workspace.http(
        &fixture_binary(),
        &["--allowed-origin", "https://app.example:8443"],
    );
    let here = server.authority();
    assert!(here.starts_with("127.0.0.1:"), "bound to loopback: {here}");
    // Clients that are not browsers send no Origin.
    assert_eq!(status(here, here, "/mcp", None), 200);
    assert_eq!(
        status(here, here, "/mcp", Some("http://localhost:5173")),
        200
    );
    assert_eq!(status(here, here, "/mcp", Some("http://127.0.0.1:1")), 200);
    assert_eq!(
        status(here, here, "/mcp", Some("https://app.example:8443")),
        200
    );
    assert_eq!(
        status(here, here, "/mcp", Some("https://evil.example")),
        403
    );
    assert_eq!(
        status(here, here, "/mcp", Some("http://localhost.evil.example")),
        403
    );
    // DNS rebinding: a foreign Host is refused.
    assert_eq!(status(here, "evil.example", "/mcp", None), 403);
    assert_eq!(status(here, here, "/elsewhere", None), 404);
}

/// The `tools` binary's tools that are on by default (all but the dangerous ones), sorted.
fn example_tools() -> Vec<String> {
    buril::registry()
        .iter()
        .filter(|tool| !tool.is_dangerous())
        .map(|tool| tool.name().to_owned())
        .collect()
}

#[test]
fn the_tools_binary_serves_its_project() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(
        &bin::tools(),
        &[
            "--page-size",
            "10",
            "--max-result-bytes",
            "300",
            "--output-dir",
            "results",
        ],
    );
    let calls = json!([
        ["open", "scene_open", {"path": "Assets/Scenes/Main.scene"}],
        ["invalid", "scene_open", {"path": 3}],
        ["delete", "asset_delete", {"path": "Assets/Scenes/Main.scene"}],
        ["assets", "asset_list", {}]
    ]);
    let report = Client::TypeScript.run("basics", &with(spec, json!({"calls": calls})));
    let names: Vec<String> = serde_json::from_value(report["list"]["names"].clone()).unwrap();
    let expected = example_tools();
    assert!(expected.len() > 30, "{expected:?}");
    assert!(
        !names.contains(&"asset_delete".to_owned()),
        "dangerous: off"
    );
    assert_eq!(names, expected);
    let pages: Vec<usize> = report["list"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_array().unwrap().len())
        .collect();
    let sizes: Vec<usize> = expected.chunks(10).map(<[String]>::len).collect();
    assert_eq!(pages, sizes);
    let open = result(&report, "open");
    assert!(!is_error(open), "{open}");
    assert_eq!(open["structuredContent"]["scene"]["name"], "Main", "{open}");
    let invalid = result(&report, "invalid");
    assert!(is_error(invalid));
    assert!(text(invalid, 0).contains("/path"), "{invalid}");
    assert_eq!(report["calls"]["delete"]["error"]["code"], -32602);
    check_large(result(&report, "assets"), &workspace.path().join("results"));
    assert!(
        workspace
            .path()
            .join("game/Assets/Scenes/Main.scene")
            .is_file()
    );
}

/// A tool that asks the client (a form, a completion, the roots) over both SDK clients, each
/// answering from its handlers: the Python client under 2026-07-28, where each question ends
/// the call with an `input_required` result and the SDK calls again with the answer, the
/// TypeScript client under 2025-11-25, where the server sends the requests mid-call. The
/// answers reach the tool, and the requests are as MCP defines them. A client that declared
/// none of the capabilities gets the tool's error at once, naming the missing capability.
#[test]
fn tools_ask_both_sdk_clients_for_input() {
    let answers = json!({"name": "Ada", "greeting": "Hello, Ada!"});
    let capabilities = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    for client in [Client::Python, Client::TypeScript] {
        let workspace = Workspace::new();
        let spec = workspace.stdio(&fixture_binary(), &[]);
        let calls = json!([
            ["ask", "fixture_survey", {}],
            ["again", "fixture_survey", {}]
        ]);
        let spec = with(
            spec,
            json!({"calls": calls, "answers": answers, "capabilities": capabilities}),
        );
        let report = client.run("ask", &spec);
        if client == Client::Python {
            assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
        }
        for key in ["ask", "again"] {
            let asked = result(&report, key);
            assert!(!is_error(asked), "{client:?}: {asked}");
            assert_eq!(
                asked["structuredContent"],
                json!({"name": "Ada", "greeting": "Hello, Ada!", "roots": ["file:///interop/root"]}),
                "{client:?}: {report}"
            );
        }
        let seen = report["seen"].as_array().unwrap();
        let methods: Vec<&str> = seen.iter().map(|s| s["method"].as_str().unwrap()).collect();
        assert_eq!(
            methods,
            [
                "elicitation/create",
                "sampling/createMessage",
                "roots/list",
                "elicitation/create",
                "sampling/createMessage",
                "roots/list"
            ],
            "{client:?}: {report}"
        );
        let form = &seen[0]["params"];
        assert_eq!(form["message"], "Who is there?", "{form}");
        assert_eq!(
            form["requestedSchema"]["properties"]["name"]["type"],
            "string"
        );
        assert_eq!(form["requestedSchema"]["required"], json!(["name"]));
        let sampling = &seen[1]["params"];
        assert_eq!(
            sampling["messages"][0]["content"]["text"], "Greet Ada.",
            "{sampling}"
        );
        assert_eq!(sampling["maxTokens"], 20);
    }
    // Nothing to answer with: an error naming the capability, never a wait.
    let workspace = Workspace::new();
    let spec = workspace.stdio(&fixture_binary(), &[]);
    let spec = with(
        spec,
        json!({"calls": [["ask", "fixture_survey", {}]], "answers": answers, "capabilities": {}}),
    );
    let report = Client::TypeScript.run("ask", &spec);
    let refused = result(&report, "ask");
    assert!(is_error(refused), "{refused}");
    assert!(
        text(refused, 0).contains("did not declare the `elicitation` capability"),
        "{refused}"
    );
    assert_eq!(report["seen"], json!([]));
}

/// `value` with every number as a float.
fn floats(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => Value::Array(items.iter().map(floats).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), floats(v))).collect())
        }
        other => other.clone(),
    }
}

/// `scene_render_map` returns structured data and a PNG: both SDK clients get the data as
/// `structuredContent` (checked by the TypeScript SDK against the listed output schema, which
/// is the data's), its JSON as the first text block, and the image as an image block; a map too
/// large for a reply comes as a link to the PNG file written in the output folder.
#[test]
fn rich_results_reach_both_sdk_clients() {
    for client in [Client::Python, Client::TypeScript] {
        let workspace = Workspace::new();
        let spec = workspace.stdio(
            &bin::tools(),
            &["--max-result-bytes", "6000", "--output-dir", "results"],
        );
        let calls = json!([
            ["map", "scene_render_map", {"size": 96}],
            ["big", "scene_render_map", {"size": 1024}],
            ["too_small", "scene_render_map", {"size": 8}]
        ]);
        let report = client.run("basics", &with(spec, json!({"calls": calls})));
        let listed = report["list"]["pages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|page| page.as_array().unwrap())
            .find(|tool| tool["name"] == "scene_render_map")
            .unwrap_or_else(|| panic!("scene_render_map is not listed: {report}"));
        assert_eq!(listed["icons"][0]["mimeType"], "image/svg+xml", "{listed}");
        assert!(
            listed["icons"][0]["src"]
                .as_str()
                .unwrap()
                .starts_with("data:image/svg+xml;base64,")
        );
        assert_eq!(listed["_meta"]["dev.buril.example/returns"], "image/png");
        let output = &listed["outputSchema"];
        assert!(output["properties"]["objects"].is_object(), "{listed}");
        assert!(output["properties"].get("content").is_none(), "{listed}");

        let map = result(&report, "map");
        assert!(!is_error(map), "{map}");
        assert_eq!(map["_meta"]["buril/result"], "rich", "{map}");
        let structured = &map["structuredContent"];
        assert_eq!(structured["scene"], "Main", "{map}");
        assert_eq!(structured["size"], 96, "{map}");
        let names: Vec<&str> = structured["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "Main Camera",
                "Directional Light",
                "Ground",
                "Player",
                "Weapon"
            ]
        );
        // Python hands `0.0` over as `0`: numbers are compared as numbers.
        let copy: Value = serde_json::from_str(text(map, 0)).unwrap();
        assert_eq!(floats(&copy), floats(structured));
        let image = &map["content"][1];
        assert_eq!(image["type"], "image", "{map}");
        assert_eq!(image["mimeType"], "image/png");
        let png = buril::content::Image::from_base64("image/png", image["data"].as_str().unwrap())
            .bytes()
            .unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(map["content"].as_array().unwrap().len(), 2, "{map}");

        let big = result(&report, "big");
        assert!(!is_error(big), "{big}");
        assert_eq!(big["structuredContent"]["size"], 1024);
        assert!(
            text(big, 1).contains("written to files"),
            "the note on the spilled image: {big}"
        );
        let link = &big["content"][2];
        assert_eq!(link["type"], "resource_link", "{big}");
        assert_eq!(link["mimeType"], "image/png");
        let path = link["uri"]
            .as_str()
            .unwrap()
            .strip_prefix("file://")
            .unwrap();
        assert!(
            path.starts_with(workspace.path().join("results").to_str().unwrap()),
            "{path}"
        );
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(link["size"], bytes.len());
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

        let refused = result(&report, "too_small");
        assert!(is_error(refused), "{refused}");
        assert!(text(refused, 0).contains("/size"), "{refused}");
        assert!(text(refused, 0).contains("from 64 to 2048"), "{refused}");
    }
}

#[test]
fn flags_enable_and_disable_by_name_and_family() {
    let workspace = Workspace::new();
    let spec = workspace.stdio(
        &bin::tools(),
        &[
            "--enable",
            "asset_delete",
            "--disable",
            "family:console",
            "--disable",
            "script_*",
        ],
    );
    let calls = json!([["log", "console_read", {}]]);
    let report = Client::Python.run("basics", &with(spec, json!({"calls": calls})));
    let names: Vec<String> = serde_json::from_value(report["list"]["names"].clone()).unwrap();
    let expected: Vec<String> = example_tools()
        .into_iter()
        .chain(["asset_delete".to_owned()])
        .filter(|n| !n.starts_with("console_") && !n.starts_with("script_"))
        .collect();
    let mut expected = expected;
    expected.sort();
    assert_eq!(names, expected);
    assert_eq!(report["calls"]["log"]["error"]["code"], -32602);
}

/// `tools serve ARGS` with its input closed: exit code and standard error.
fn serve_fails(workspace: &Workspace, args: &[&str]) -> (i32, String) {
    let output = Command::new(bin::tools())
        .arg("serve")
        .args(args)
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_rules_and_config_files_stop_the_server_at_once() {
    let workspace = Workspace::new();
    let (code, err) = serve_fails(&workspace, &["--enable", "asset_delet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a rule: no tool is named `asset_delet`; did you mean `asset_delete`?"),
        "{err}"
    );
    let (code, err) = serve_fails(&workspace, &["--disable", "family:physics"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no tool family is named `physics`"), "{err}");
    let (code, err) = serve_fails(&workspace, &["--config", "missing.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    let bad = workspace.config("enable = \"asset_delete\"\n");
    let (code, err) = serve_fails(&workspace, &["--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("server.toml"), "{err}");
    let bad = workspace.config("[timeouts]\nscene_open = -1\n");
    let (code, err) = serve_fails(&workspace, &["--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("positive number of seconds"), "{err}");
    let (code, err) = serve_fails(&workspace, &["--http", "example.com:80"]);
    assert_eq!(code, 2, "{err}");
    // With its input closed at once, a good server just ends.
    let (code, err) = serve_fails(&workspace, &[]);
    assert_eq!(code, 0, "{err}");
}
