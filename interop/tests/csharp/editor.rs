//! The Unity package's editor host (`BurilEditorHost`) serving editor tools through buril: a
//! stand-in editor under Mono (`tests/csharp/editor/EditorDriver.cs`: one thread pumping
//! `EditorApplication.update`, AppDomains for the domain reloads) with the test's tools
//! (`HostTools.cs`), and a real `tools serve --editor PROJECT` between it and an MCP client.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use buril_test_support::bin;
use buril_test_support::peer::BlockingPeer;
use serde_json::{Value, json};

use super::unity::{Built, build, mcs};
use crate::common::poll;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csharp/editor")
}

/// The stand-in editor, the package, and the tools before and after a reload, in `dir`.
struct Programs {
    driver: PathBuf,
    package: PathBuf,
    before: PathBuf,
    after: PathBuf,
}

fn programs(dir: &Path) -> Programs {
    let Built {
        engine,
        editor,
        package,
        ..
    } = build(dir, "");
    let references = [engine.clone(), editor.clone(), package.clone()];
    let before = dir.join("HostTools.dll");
    mcs(
        &before,
        "library",
        &references,
        "",
        &[fixtures().join("HostTools.cs")],
    );
    let after = dir.join("HostToolsReloaded.dll");
    mcs(
        &after,
        "library",
        &references,
        "RELOADED",
        &[fixtures().join("HostTools.cs")],
    );
    let driver = dir.join("EditorDriver.exe");
    mcs(
        &driver,
        "exe",
        &[engine, editor],
        "",
        &[fixtures().join("EditorDriver.cs")],
    );
    Programs {
        driver,
        package,
        before,
        after,
    }
}

/// The stand-in editor, with the Unity project in `project`: its standard input for commands,
/// and the lines it answers.
struct StandIn {
    child: Child,
    commands: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl StandIn {
    fn start(programs: &Programs, project: &Path) -> StandIn {
        std::fs::create_dir_all(project.join("Assets")).unwrap();
        let mut child = Command::new("mono")
            .arg(&programs.driver)
            .arg(&programs.package)
            .arg(&programs.before)
            .env("BURIL_TEST_PROJECT", project)
            .env("BURIL_TEST_SESSION", project.join("session.txt"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mono runs (scripts/test.sh installs mono-runtime)");
        let commands = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stand_in = StandIn {
            child,
            commands,
            lines,
        };
        let serving = stand_in.next_line("the host to serve");
        assert!(
            serving.starts_with("serving http://127.0.0.1:"),
            "{serving}"
        );
        stand_in
    }

    fn next_line(&mut self, what: &str) -> String {
        self.lines
            .recv_timeout(buril_test_support::WAIT)
            .unwrap_or_else(|_| panic!("the stand-in editor said nothing of {what}"))
    }

    fn send(&mut self, command: &str) {
        writeln!(self.commands, "{command}").unwrap();
        self.commands.flush().unwrap();
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The envelope an MCP `tools/call` answer carries.
fn envelope(answer: &Value) -> Value {
    let result = &answer["result"];
    if result["isError"] == true {
        return result["_meta"]["buril/envelope"].clone();
    }
    json!({"ok": true, "data": result["structuredContent"]})
}

/// The names `tools/list` answers.
fn names(client: &mut BlockingPeer) -> Vec<String> {
    client.send(json!({"jsonrpc": "2.0", "id": 9000, "method": "tools/list", "params": {}}));
    loop {
        let message = client.read();
        if message["id"] == 9000 {
            return message["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|tool| tool["name"].as_str().unwrap().to_owned())
                .collect();
        }
    }
}

/// The names `tools/list` answers once they include `tool` (the hub lists the editor's tools
/// after it connects, and again after a reload): waits for `what`.
fn listed_once(client: &mut BlockingPeer, tool: &str, what: &str) -> Vec<String> {
    poll(
        what,
        Duration::from_millis(50),
        buril_test_support::WAIT,
        || {
            let listed = names(client);
            if listed.iter().any(|name| name == tool) {
                Ok(listed)
            } else {
                Err(listed)
            }
        },
    )
}

/// How many calls buril sent on to the editor (`mcp_list_servers`).
fn forwarded(client: &mut BlockingPeer) -> u64 {
    let servers = envelope(&client.call("mcp_list_servers", json!({})));
    servers["data"]["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|server| server["name"] == "unity")
        .unwrap_or_else(|| panic!("no `unity` server: {servers}"))["forwarded"]
        .as_u64()
        .unwrap()
}

fn serve(project: &Path, workspace: &Path) -> BlockingPeer {
    let mut command = Command::new(bin::tools());
    command
        .args(["serve", "--editor"])
        .arg(project)
        .args(["--enable", "family:myfamily", "--enable", "family:hosttest"])
        .current_dir(workspace)
        .env("BURIL_PROJECT", workspace.join("game"))
        .stderr(Stdio::inherit());
    let mut client = BlockingPeer::spawn(command);
    client.initialize();
    client
}

#[test]
fn editor_tools_are_listed_called_validated_and_followed_across_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs(dir.path());
    let project = dir.path().join("UnityProject");
    let workspace = tempfile::tempdir().unwrap();
    let mut editor = StandIn::start(&programs, &project);
    let mut client = serve(&project, workspace.path());

    // The editor's tools join buril's once the hub has listed them; declared ones are always there.
    let listed = listed_once(&mut client, "myfamily_greet", "the editor's tools");
    for name in [
        "hosttest_outcome",
        "hosttest_slow",
        "hosttest_off_thread",
        "hosttest_gone",
        "unity_set_play_mode",
        "unity_compile_scripts",
    ] {
        assert!(
            listed.iter().any(|listed| listed == name),
            "{name}: {listed:?}"
        );
    }
    // An implementation is not served twice under its declaration's name.
    assert_eq!(
        listed
            .iter()
            .filter(|name| *name == "unity_set_play_mode")
            .count(),
        1
    );

    // The product document's tool, as written.
    let greeted = envelope(&client.call("myfamily_greet", json!({"name": "Ada"})));
    assert_eq!(
        greeted,
        json!({"ok": true, "data": {"ok": true, "greeting": "Hello, Ada!"}})
    );

    // Invalid input is answered here, with its pointers: nothing reaches the editor.
    let before = forwarded(&mut client);
    let refused = envelope(&client.call("myfamily_greet", json!({"name": ""})));
    assert_eq!(refused["type"], "validation", "{refused}");
    assert_eq!(refused["problems"][0]["path"], "/name", "{refused}");
    let refused = envelope(&client.call("unity_set_play_mode", json!({"mode": "fly"})));
    assert_eq!(refused["type"], "validation", "{refused}");
    assert_eq!(refused["problems"][0]["path"], "/mode", "{refused}");
    assert_eq!(forwarded(&mut client), before);

    // The three outcomes, and a null; main-thread and off-thread placement.
    let value = envelope(&client.call("hosttest_outcome", json!({"outcome": "value"})));
    assert_eq!(value, json!({"ok": true, "data": {"on_pump": true}}));
    let refuse = envelope(&client.call("hosttest_outcome", json!({"outcome": "refuse"})));
    assert_eq!(refuse["type"], "validation", "{refuse}");
    assert_eq!(refuse["error"], "`outcome` refused on purpose");
    let thrown = envelope(&client.call("hosttest_outcome", json!({"outcome": "throw"})));
    assert_eq!(thrown["type"], "runtime", "{thrown}");
    assert_eq!(
        thrown["error"],
        "InvalidOperationException: the tool failed on purpose"
    );
    let null = envelope(&client.call("hosttest_outcome", json!({"outcome": "null"})));
    assert_eq!(null["type"], "runtime", "{null}");
    assert!(
        null["error"].as_str().unwrap().contains("returned null"),
        "{null}"
    );
    let off = envelope(&client.call("hosttest_off_thread", json!({})));
    assert_eq!(off, json!({"ok": true, "data": {"on_pump": false}}));

    // A declared tool, done in the editor on its main thread, typed both ways.
    let played = envelope(&client.call("unity_set_play_mode", json!({"mode": "play"})));
    assert_eq!(
        played,
        json!({"ok": true, "data": {"playing": true, "paused": false}})
    );
    let paused = envelope(&client.call("unity_set_play_mode", json!({"mode": "pause"})));
    assert_eq!(
        paused,
        json!({"ok": true, "data": {"playing": true, "paused": true}})
    );

    // A class of an older contract is refused by name with both hashes; a declaration the
    // editor lacks answers `unavailable` naming it.
    let declared_hash = {
        let described = Command::new(bin::tools())
            .args(["describe", "unity_clear_console", "--json"])
            .env("BURIL_PROJECT", workspace.path().join("game"))
            .output()
            .unwrap();
        let described: Value = serde_json::from_slice(&described.stdout).unwrap();
        described["metadataHash"]
            .as_str()
            .unwrap_or_else(|| panic!("no metadataHash: {described}"))
            .to_owned()
    };
    let stale = envelope(&client.call("unity_clear_console", json!({})));
    assert_eq!(stale["type"], "unavailable", "{stale}");
    let error = stale["error"].as_str().unwrap();
    assert!(error.contains("`unity_clear_console`"), "{error}");
    assert!(error.contains("0123456789abcdef"), "{error}");
    assert!(error.contains(&declared_hash), "{error}");
    let missing = envelope(&client.call("unity_compile_scripts", json!({})));
    assert_eq!(missing["type"], "unavailable", "{missing}");
    assert!(
        missing["error"]
            .as_str()
            .unwrap()
            .contains("does not implement it"),
        "{missing}"
    );

    // A domain reload: a tool goes, one comes, the clients hear of it.
    editor.send(&format!("reload {}", programs.after.display()));
    let reloaded = editor.next_line("the reload");
    assert!(
        reloaded.starts_with("reloaded http://127.0.0.1:"),
        "{reloaded}"
    );
    let listed = listed_once(&mut client, "hosttest_added", "the reloaded tools");
    assert!(
        !listed.iter().any(|name| name == "hosttest_gone"),
        "{listed:?}"
    );
    let added = envelope(&client.call("hosttest_added", json!({})));
    assert_eq!(added, json!({"ok": true, "data": {"added": true}}));

    // The editor quits: its tools go, a declared one says none is connected.
    editor.send("quit");
    assert_eq!(editor.next_line("the quit"), "quit");
    let gone = poll(
        "the editor to be gone",
        Duration::from_millis(50),
        buril_test_support::WAIT,
        || {
            // A call in the moment it quits finds its connection lost (`unavailable` too);
            // once its endpoint file is gone, none is connected.
            let answer = envelope(&client.call("unity_set_play_mode", json!({"mode": "stop"})));
            if answer["type"] == "unavailable"
                && answer["error"]
                    .as_str()
                    .is_some_and(|error| error.contains("no editor is connected"))
            {
                Ok(answer)
            } else {
                Err(answer)
            }
        },
    );
    assert!(
        gone["error"]
            .as_str()
            .unwrap()
            .contains("no editor is connected"),
        "{gone}"
    );
}

#[test]
fn a_call_made_during_a_reload_waits_for_it_and_a_dead_editor_answers_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs(dir.path());
    let project = dir.path().join("UnityProject");
    let workspace = tempfile::tempdir().unwrap();
    let mut editor = StandIn::start(&programs, &project);
    let mut client = serve(&project, workspace.path());
    poll(
        "the editor's tools",
        Duration::from_millis(50),
        buril_test_support::WAIT,
        || {
            let played = envelope(&client.call("unity_set_play_mode", json!({"mode": "stop"})));
            if played["ok"] == true {
                Ok(())
            } else {
                Err(played)
            }
        },
    );

    // The main thread busy (as in a reload) while the endpoint says it reloads: the call
    // waits, then is answered by the next domain.
    editor.send(&format!("reload {}", programs.after.display()));
    client.send(json!({
        "jsonrpc": "2.0", "id": 777, "method": "tools/call",
        "params": {"name": "unity_set_play_mode", "arguments": {"mode": "play"}}
    }));
    let reloaded = editor.next_line("the reload");
    assert!(reloaded.starts_with("reloaded"), "{reloaded}");
    let answer = loop {
        let message = client.read();
        if message["id"] == 777 {
            break message;
        }
    };
    assert_eq!(
        envelope(&answer),
        json!({"ok": true, "data": {"playing": true, "paused": false}}),
        "{answer}"
    );

    // Once the reloaded scripts' tools are served, the editor dies in the middle of a call
    // that would take 20 s: the call answers at once.
    listed_once(&mut client, "hosttest_added", "the reloaded tools");
    client.send(json!({
        "jsonrpc": "2.0", "id": 778, "method": "tools/call",
        "params": {"name": "hosttest_slow", "arguments": {"ms": 20000}}
    }));
    let started = project.join("slow-started");
    poll(
        "the slow call to start in the editor",
        Duration::from_millis(10),
        buril_test_support::WAIT,
        || {
            if started.exists() {
                Ok(())
            } else {
                Err("not yet")
            }
        },
    );
    let killed = Instant::now();
    editor.child.kill().unwrap();
    editor.child.wait().unwrap();
    let answer = loop {
        let message = client.read();
        if message["id"] == 778 {
            break message;
        }
    };
    let died = envelope(&answer);
    assert_eq!(died["type"], "unavailable", "{answer}");
    assert!(
        killed.elapsed() < Duration::from_secs(10),
        "the call waited {:?} for a dead editor",
        killed.elapsed()
    );
}

#[test]
fn an_agent_team_run_over_editor_tools_is_recorded_and_replayed_against_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let programs = programs(dir.path());
    let project = dir.path().join("UnityProject");
    let workspace = tempfile::tempdir().unwrap();
    let _editor = StandIn::start(&programs, &project);
    let (model, received) =
        buril_test_support::model::model_server(buril_test_support::model::calls_then_reports(
            "unity_read_console",
            "The console holds one error: a NullReferenceException in Player.Update.",
        ));
    let mut command = Command::new(bin::tools());
    command
        .args(["serve", "--editor"])
        .arg(&project)
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .env("BURIL_TEAM_BASE_URL", &model)
        .env("BURIL_TEAM_MODEL", "scripted")
        .stderr(Stdio::inherit());
    let mut client = BlockingPeer::spawn(command);
    client.initialize();
    poll(
        "the editor to serve",
        Duration::from_millis(50),
        buril_test_support::WAIT,
        || {
            let read = envelope(&client.call("unity_read_console", json!({})));
            if read["ok"] == true {
                Ok(())
            } else {
                Err(read)
            }
        },
    );

    // The specialist's view is the `unity_` family: it sees the editor's tools, and only them.
    let started = envelope(&client.call(
        "agent_team_handoff",
        json!({"specialist": "editor-operator", "brief": "Does the console hold errors?"}),
    ));
    assert_eq!(started["ok"], true, "{started}");
    let tools = started["data"]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| tool.as_str().unwrap().starts_with("unity_")),
        "{started}"
    );
    assert!(tools.contains(&json!("unity_read_console")), "{started}");
    let handle = started["data"]["handle"].as_str().unwrap().to_owned();
    let done = poll(
        "the run to end",
        Duration::from_millis(50),
        buril_test_support::WAIT,
        || {
            let query = envelope(&client.call("agent_team_query", json!({"handle": handle})));
            if query["data"]["status"] != "running" {
                Ok(query)
            } else {
                Err(query)
            }
        },
    );
    assert_eq!(done["data"]["status"], "done", "{done}");
    assert_eq!(
        done["data"]["calls"][0]["tool"], "unity_read_console",
        "{done}"
    );
    assert_eq!(done["data"]["calls"][0]["ok"], true, "{done}");
    // What the editor answered went back to the model.
    let answered = received.lock().unwrap()[1]["messages"].to_string();
    assert!(
        answered.contains("NullReferenceException: Player.Update"),
        "{answered}"
    );
    // The model saw the tools of its view offered.
    let offered = received.lock().unwrap()[0]["tools"].clone();
    assert!(
        offered.to_string().contains("unity_read_console"),
        "{offered}"
    );

    let recorded = envelope(&client.call(
        "agent_team_record",
        json!({"handle": handle, "output_path": "Traces/console.json"}),
    ));
    assert_eq!(recorded["ok"], true, "{recorded}");
    // Written under the team's trace folder, the project.
    let trace = workspace
        .path()
        .join("game")
        .join(recorded["data"]["path"].as_str().unwrap());
    assert!(trace.is_file(), "{recorded}");

    // Replayed from a shell, against the editor, with no model.
    let replayed = Command::new(bin::tools())
        .arg("replay")
        .arg(&trace)
        .args(["--json", "--editor"])
        .arg(&project)
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .output()
        .unwrap();
    let reports: Value = serde_json::from_slice(&replayed.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}{}",
            String::from_utf8_lossy(&replayed.stdout),
            String::from_utf8_lossy(&replayed.stderr)
        )
    });
    assert_eq!(replayed.status.code(), Some(0), "{reports}");
    assert_eq!(reports[0]["report"]["result"], "match", "{reports}");
    assert_eq!(reports[0]["report"]["replayed"], 1, "{reports}");

    // And `tools call` from a shell reaches the same editor.
    let called = Command::new(bin::tools())
        .args([
            "call",
            "unity_set_play_mode",
            r#"{"mode": "play"}"#,
            "--compact",
            "--editor",
        ])
        .arg(&project)
        .current_dir(workspace.path())
        .env("BURIL_PROJECT", workspace.path().join("game"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&called.stdout).trim(),
        r#"{"ok":true,"data":{"playing":true,"paused":false}}"#,
        "{}",
        String::from_utf8_lossy(&called.stderr)
    );
}
