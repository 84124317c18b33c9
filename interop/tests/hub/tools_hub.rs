//! The `tools` binary as a hub, against servers no one here wrote the tools of: npm's
//! server-everything (over stdio and over its Streamable HTTP mode) and server-memory, the
//! Python SDK's server in `interop/mcp/hub_server.py`, and another `tools serve`. For each:
//! its tools listed under its prefix with the server's own schemas; calls through buril (the
//! command line, and over MCP from the Python and TypeScript SDK clients) answered as the
//! server answers them directly; invalid input refused here, with the count of forwarded calls
//! unchanged. And: `list`/`describe`/`schema` see them, a killed hub leaves no server behind.
//! The servers and clients are installed by `bash scripts/test.sh`; a missing one fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use buril_test_support::bin;
use serde_json::{Value, json};

use crate::common::externals::{
    Spawned, everything, free_port, hub_server, memory, node, python, wait_for_port,
};
use crate::common::poll;
use crate::common::sdk::{Client, Workspace, with};

/// `tools ARGS` in `dir`: its exit code, standard output and error.
fn tools(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(bin::tools())
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

/// One external server under test.
struct External {
    /// Its name, and so its prefix.
    name: &'static str,
    /// The client spec of the server itself, given the hub's workspace.
    direct: Box<dyn Fn(&Workspace) -> Value>,
    /// How `tools` is told of it: `--external …` arguments.
    args: Vec<String>,
    /// Or the config file's `[[external]]` table (`.buril/server.toml`, which every command
    /// reads).
    config: Option<String>,
    /// The calls to compare: `(key, the server's name for the tool, input)`.
    calls: Vec<(&'static str, &'static str, Value)>,
    /// A call of one of its tools with input its schema refuses.
    invalid: (&'static str, Value),
}

impl External {
    /// The name a tool has through buril.
    fn through(&self, tool: &str) -> String {
        let words: String = tool
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let mut snake = String::new();
        for (i, c) in words.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        format!("{}_{snake}", self.name)
    }

    fn spec_calls(&self, through: bool) -> Vec<Value> {
        self.calls
            .iter()
            .map(|(key, tool, input)| {
                let name = if through {
                    self.through(tool)
                } else {
                    (*tool).to_owned()
                };
                json!([key, name, input])
            })
            .collect()
    }

    fn arg_refs(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }
}

/// Every call of `external` answered the same both ways: the structured content of a tool with
/// an output schema, the content of the others, and whether it failed.
fn same_results(external: &External, direct: &Value, hub: &Value, client: Client) {
    for (key, tool, _) in &external.calls {
        let a = bare(&direct["calls"][key]["result"]);
        let b = bare(&hub["calls"][key]["result"]);
        let what = format!("{client:?}, `{}`'s `{tool}`", external.name);
        assert!(a.is_object(), "{what} directly: {}", direct["calls"][key]);
        assert!(b.is_object(), "{what} through buril: {}", hub["calls"][key]);
        if a.get("structuredContent").is_some() {
            assert_eq!(a["structuredContent"], b["structuredContent"], "{what}");
        } else {
            assert_eq!(a, b, "{what}");
        }
    }
}

/// Lists, calls and refuses through `tools serve` with both SDK clients, against the server
/// answering the same clients directly, then one call through the command line.
fn check(external: &External) {
    let workspace = Workspace::new();
    if let Some(config) = &external.config {
        std::fs::create_dir_all(workspace.path().join(".buril")).unwrap();
        std::fs::write(workspace.path().join(".buril/server.toml"), config).unwrap();
    }
    let direct_spec = (external.direct)(&workspace);
    for client in [Client::Python, Client::TypeScript] {
        let direct = client.run(
            "basics",
            &with(
                direct_spec.clone(),
                json!({"calls": external.spec_calls(false)}),
            ),
        );
        let (tool, input) = &external.invalid;
        let mut calls = external.spec_calls(true);
        calls.push(json!(["before", "mcp_list_servers", {}]));
        calls.push(json!(["invalid", external.through(tool), input]));
        calls.push(json!(["after", "mcp_list_servers", {}]));
        let enable = format!("family:{}", external.name);
        let mut args = external.arg_refs();
        args.extend(["--enable", &enable]);
        let hub = client.run(
            "basics",
            &with(
                workspace.stdio(&bin::tools(), &args),
                json!({"calls": calls}),
            ),
        );
        same_results(external, &direct, &hub, client);

        // Listed under the prefix, with the server's own input schemas.
        let listed = |report: &Value| -> Vec<Value> {
            report["list"]["pages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|page| page.as_array().unwrap().clone())
                .collect()
        };
        let served = listed(&hub);
        for tool in listed(&direct) {
            let name = external.through(tool["name"].as_str().unwrap());
            let ours = served
                .iter()
                .find(|t| t["name"] == name.as_str())
                .unwrap_or_else(|| panic!("{client:?}: `{name}` is not listed"));
            assert_eq!(
                ours["inputSchema"]["properties"], tool["inputSchema"]["properties"],
                "{client:?}: `{name}`'s schema"
            );
        }

        // Refused here: the count of forwarded calls does not move.
        let invalid = &hub["calls"]["invalid"]["result"];
        assert_eq!(invalid["isError"], true, "{invalid}");
        assert_eq!(invalid["_meta"]["buril/envelope"]["type"], "validation");
        let forwarded = |key: &str| -> u64 {
            let servers = &hub["calls"][key]["result"]["structuredContent"]["servers"];
            servers
                .as_array()
                .and_then(|servers| {
                    servers
                        .iter()
                        .find(|s| s["name"] == external.name)
                        .and_then(|s| s["forwarded"].as_u64())
                })
                .unwrap_or_else(|| panic!("{}", hub["calls"][key]))
        };
        assert_eq!(forwarded("before"), forwarded("after"), "{client:?}");
        assert_eq!(
            forwarded("before"),
            external.calls.len() as u64,
            "{client:?}"
        );
    }

    // The command line: the first call, as its envelope.
    let (key, tool, input) = &external.calls[0];
    let through = external.through(tool);
    let input = input.to_string();
    let pattern = format!("{}_*", external.name);
    let mut args = vec!["call", through.as_str(), input.as_str(), "--compact"];
    args.extend(external.arg_refs());
    args.extend(["--enable", &pattern]);
    let (code, out, err) = tools(workspace.path(), &args);
    assert_eq!(code, 0, "{out}\n{err}");
    let envelope: Value = serde_json::from_str(&out).unwrap();
    let direct = Client::Python.run(
        "basics",
        &with(
            direct_spec,
            json!({"calls": [[key, tool, external.calls[0].2]]}),
        ),
    );
    let result = &direct["calls"][key]["result"];
    let expected = result
        .get("structuredContent")
        .cloned()
        .unwrap_or_else(|| json!({"content": result["content"]}));
    assert_eq!(
        envelope["data"], expected,
        "`{through}` from the command line"
    );
}

fn everything_calls() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("sum", "get-sum", json!({"a": 1, "b": 2.5})),
        ("echo", "echo", json!({"message": "hi there"})),
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

#[test]
fn server_everything_over_stdio() {
    check(&External {
        name: "everything",
        direct: Box::new(|_| json!({"command": [node(), everything(), "stdio"]})),
        args: vec![
            "--external".to_owned(),
            format!("everything={} {} stdio", node(), everything()),
        ],
        config: None,
        calls: everything_calls(),
        invalid: ("get-sum", json!({"a": "one"})),
    });
}

#[test]
fn server_everything_over_streamable_http() {
    let port = free_port();
    let server = Spawned(
        Command::new(node())
            .args([everything(), "streamableHttp".to_owned()])
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("server-everything starts"),
    );
    wait_for_port(port);
    let url = format!("http://127.0.0.1:{port}/mcp");
    check(&External {
        name: "everything",
        direct: Box::new({
            let url = url.clone();
            move |_| json!({"url": url})
        }),
        args: vec!["--external".to_owned(), format!("everything={url}")],
        config: None,
        calls: everything_calls(),
        invalid: ("get-sum", json!({"b": 2})),
    });
    drop(server);
}

#[test]
fn server_memory() {
    let graphs = tempfile::tempdir().unwrap();
    let file = |name: &str| graphs.path().join(name).display().to_string();
    let direct_graph = file("direct.jsonl");
    check(&External {
        name: "memory",
        direct: Box::new(move |_| {
            json!({
                "command": [node(), memory()],
                "env": {"MEMORY_FILE_PATH": direct_graph},
            })
        }),
        args: Vec::new(),
        config: Some(format!(
            "[[external]]\nname = \"memory\"\ncommand = {node:?}\nargs = [{memory:?}]\n\
             env = {{ MEMORY_FILE_PATH = {graph:?} }}\n",
            node = node(),
            memory = memory(),
            graph = file("through.jsonl"),
        )),
        calls: vec![
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
        ],
        invalid: ("create_entities", json!({"entities": [{"name": 3}]})),
    });
}

#[test]
fn a_python_sdk_server() {
    check(&External {
        name: "py",
        direct: Box::new(|_| json!({"command": [python(), hub_server()]})),
        args: vec![
            "--external".to_owned(),
            format!("py={} {}", python(), hub_server()),
        ],
        config: None,
        calls: vec![
            ("add", "add_numbers", json!({"a": 2, "b": 3})),
            ("count", "slowCount", json!({"steps": 2, "delay": 0.01})),
            ("failed", "fail_on_purpose", json!({})),
            // What reached the server: the same both ways, the refused call not among them.
            ("received", "calls_received", json!({})),
        ],
        invalid: ("add_numbers", json!({"a": "two"})),
    });
}

#[test]
fn another_buril_server() {
    check(&External {
        name: "inner",
        // The hub's own project, served by `tools serve` itself.
        direct: Box::new(|workspace| workspace.stdio(&bin::tools(), &[])),
        args: vec![
            "--external".to_owned(),
            format!("inner={} serve", bin::tools().display()),
        ],
        config: None,
        calls: vec![
            ("scenes", "scene_list", json!({})),
            ("state", "editor_state", json!({})),
            (
                "read",
                "asset_read",
                json!({"path": "Assets/Scripts/Rotator.cs"}),
            ),
        ],
        invalid: ("scene_open", json!({"path": 3})),
    });
}

#[test]
fn the_command_line_lists_describes_and_defines_external_tools() {
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
fn a_killed_server_leaves_no_stdio_server_behind() {
    for signal in ["KILL", "TERM"] {
        killed_by(signal);
    }
}

/// `tools serve` with a stdio external, sent `signal` (`KILL`, `TERM`): the external is gone
/// within 5 s.
fn killed_by(signal: &str) {
    let workspace = Workspace::new();
    let marker = format!("hub-orphan-{}-{signal}", std::process::id());
    let config = workspace.config(&format!(
        "[[external]]\nname = \"py\"\ncommand = {python:?}\nargs = [{server:?}]\n\
         env = {{ HUB_ORPHAN_MARKER = {marker:?} }}\n",
        python = python(),
        server = hub_server(),
    ));
    let mut server = Command::new(bin::tools())
        .args(["serve", "--config", &config.display().to_string()])
        .current_dir(workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    poll(
        "the external server to start",
        Duration::from_millis(50),
        Duration::from_secs(60),
        || match marked(&marker) {
            found if found.is_empty() => Err("no process"),
            _ => Ok(()),
        },
    );
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &server.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let _ = server.wait();
    poll(
        &format!("the external server to end within 5 s of its hub (SIG{signal})"),
        Duration::from_millis(50),
        Duration::from_secs(5),
        || match marked(&marker) {
            found if found.is_empty() => Ok(()),
            found => Err(found),
        },
    );
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

/// `tools ARGS` in `dir` with `env` added.
fn tools_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let output = Command::new(bin::tools())
        .args(args)
        .current_dir(dir)
        .env("BURIL_PROJECT", dir.join("game"))
        .env_remove("INNER_TOKEN")
        .envs(env.iter().copied())
        .output()
        .expect("the tools binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_server_that_asks_for_a_bearer_token_gets_the_one_its_variable_holds() {
    use sha2::Digest;
    let inner = Workspace::new();
    let digest: String = sha2::Sha256::digest(b"hub-secret")
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let config = inner.config(&format!(
        "[auth]\n\n[[auth.tokens]]\nsubject = \"hub\"\nsha256 = \"{digest}\"\n"
    ));
    let server = inner.http(&bin::tools(), &["--config", &config.display().to_string()]);
    let outer = Workspace::new();
    std::fs::create_dir_all(outer.path().join(".buril")).unwrap();
    std::fs::write(
        outer.path().join(".buril/server.toml"),
        format!(
            "[[external]]\nname = \"inner\"\nurl = {url:?}\nbearer_env = \"INNER_TOKEN\"\n\
             headers = {{ \"X-Buril-Test\" = \"hub\" }}\nenable = true\n",
            url = server.url
        ),
    )
    .unwrap();
    let call = ["call", "inner_scene_list", "{}", "--compact"];
    let (code, out, err) = tools_with(outer.path(), &call, &[("INNER_TOKEN", "hub-secret")]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("{\"ok\":true"), "{out}");

    // No token: said, and the server's tools are not there.
    let (code, out, err) = tools_with(outer.path(), &call, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("the bearer token's variable `INNER_TOKEN` is not set"),
        "{err}"
    );
    // A wrong one: refused by the server, and said.
    let (code, out, err) = tools_with(outer.path(), &call, &[("INNER_TOKEN", "guess")]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("could not be reached"), "{err}");
    drop(server);
}
