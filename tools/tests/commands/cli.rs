//! The `tools` binary: `list`, `describe` and `call` on a project in a temporary folder.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use tempfile::TempDir;

/// Runs the binary on the project folder `project` with `args`.
fn run(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(args)
        .env("BURIL_PROJECT", project)
        .output()
        .expect("the tools binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn parse(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!("not an envelope ({error}): {}", stdout(output));
    })
}

/// A folder for the project; the binary creates and seeds it on first use.
fn project() -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new().unwrap();
    let root = dir.path().join("game");
    (dir, root)
}

#[test]
fn list_prints_every_tool_and_seeds_the_project() {
    let (_dir, root) = project();
    let output = run(&root, &["list"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    assert!(text.contains("53 tools in 9 families"), "{text}");
    let delete = text
        .lines()
        .find(|l| l.starts_with("asset_delete"))
        .unwrap();
    assert!(delete.ends_with("[dangerous]"), "{delete}");
    assert!(
        root.join("Assets/Scenes/Main.scene").is_file(),
        "not seeded"
    );
    assert!(root.join("Assets/Scripts/Rotator.cs").is_file());
}

#[test]
fn list_json_gives_each_tool_with_schemas() {
    let (_dir, root) = project();
    let output = run(&root, &["list", "--json"]);
    assert!(output.status.success(), "{output:?}");
    let tools: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(tools.len(), 53);
    for tool in &tools {
        for key in [
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ] {
            assert!(tool.get(key).is_some(), "{key} missing in {tool}");
        }
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert_eq!(tool["outputSchema"]["type"], "object");
    }
    let list = tools.iter().find(|t| t["name"] == "scene_list").unwrap();
    assert_eq!(list["annotations"]["readOnlyHint"], true);
    assert_eq!(list["annotations"]["title"], "List scenes");

    let family = run(&root, &["list", "--json", "--family", "console"]);
    let console: Vec<Value> = serde_json::from_slice(&family.stdout).unwrap();
    let names: Vec<&str> = console
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["console_clear", "console_log", "console_read"]);
}

#[test]
fn describe_shows_parameters_and_schemas() {
    let (_dir, root) = project();
    let output = run(&root, &["describe", "scene_open"]);
    assert!(output.status.success(), "{output:?}");
    let text = stdout(&output);
    assert!(text.starts_with("scene_open\n"), "{text}");
    assert!(text.contains("family:    scene"), "{text}");
    assert!(text.contains("runs on:   main thread"), "{text}");
    assert!(text.contains("path: string (required)"), "{text}");
    assert!(
        text.contains("additive: boolean | null (optional)"),
        "{text}"
    );
    assert!(text.contains("input schema:"), "{text}");

    let missing = run(&root, &["describe", "scene_opn"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("scene_open"));
}

#[test]
fn call_succeeds_with_exit_zero() {
    let (_dir, root) = project();
    let output = run(
        &root,
        &[
            "call",
            "scene_open",
            r#"{"path": "Assets/Scenes/Main.scene"}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let envelope = parse(&output);
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["data"]["scene"]["name"], "Main");
    assert_eq!(envelope["data"]["open_scenes"], serde_json::json!(["Main"]));

    let logged = run(
        &root,
        &[
            "call",
            "console_log",
            r#"{"message": "from the command line"}"#,
            "--compact",
        ],
    );
    assert_eq!(logged.status.code(), Some(0), "{logged:?}");
    assert_eq!(stdout(&logged).lines().count(), 1);
    let log = std::fs::read_to_string(root.join("Library/console.jsonl")).unwrap();
    assert!(log.contains("from the command line"), "{log}");
}

#[test]
fn call_with_invalid_input_exits_one() {
    let (_dir, root) = project();
    let output = run(
        &root,
        &["call", "scene_open", r#"{"path": 42, "additive": "yes"}"#],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let envelope = parse(&output);
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "validation");
    let paths: Vec<&str> = envelope["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/path", "/additive"]);

    let escape = run(
        &root,
        &[
            "call",
            "scene_open",
            r#"{"path": "../../etc/passwd.scene"}"#,
        ],
    );
    assert_eq!(escape.status.code(), Some(1));
    assert_eq!(parse(&escape)["type"], "validation");

    let broken = run(&root, &["call", "scene_open", "{not json"]);
    assert_eq!(broken.status.code(), Some(1));
    assert_eq!(parse(&broken)["type"], "validation");
}

#[test]
fn dangerous_tools_need_enable() {
    let (_dir, root) = project();
    let input = r#"{"path": "Assets/Materials/Ground.mat"}"#;
    let refused = run(&root, &["call", "asset_delete", input]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert_eq!(parse(&refused)["type"], "disabled");
    assert!(root.join("Assets/Materials/Ground.mat").is_file());

    // Enabled, it asks first (`confirm`) on the terminal: the prompt on standard error, the
    // answer from standard input. No, or no answer at all, keeps the file.
    let enabled = ["call", "asset_delete", input, "--enable", "asset_delete"];
    for answer in ["n\n", ""] {
        let declined = run_with_input(&root, &enabled, answer);
        assert_eq!(declined.status.code(), Some(1), "{declined:?}");
        assert_eq!(parse(&declined)["type"], "cancelled", "{declined:?}");
        assert!(
            parse(&declined)["error"]
                .as_str()
                .unwrap()
                .contains("did not allow `asset_delete`")
        );
        let prompt = String::from_utf8_lossy(&declined.stderr);
        assert!(
            prompt.contains("Allow the tool `asset_delete` to run with this input?")
                && prompt.contains("Assets/Materials/Ground.mat"),
            "{prompt}"
        );
        assert!(root.join("Assets/Materials/Ground.mat").is_file());
    }
    let allowed = run_with_input(&root, &enabled, "y\n");
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert_eq!(parse(&allowed)["data"]["files_deleted"], 1);
    assert!(!root.join("Assets/Materials/Ground.mat").exists());
    // `--no-input`: nobody can be asked, so the host's policy alone decides.
    let input = r#"{"path": "Assets/Materials/Red.mat"}"#;
    let unasked = run_with_input(
        &root,
        &[
            "call",
            "asset_delete",
            input,
            "--enable",
            "asset_delete",
            "--no-input",
        ],
        "",
    );
    assert_eq!(unasked.status.code(), Some(0), "{unasked:?}");
    assert!(String::from_utf8_lossy(&unasked.stderr).is_empty());
    assert!(!root.join("Assets/Materials/Red.mat").exists());
}

/// [`run`] with `input` on standard input.
fn run_with_input(project: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(args)
        .env("BURIL_PROJECT", project)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the tools binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().expect("it ends")
}

#[test]
fn an_unusable_project_folder_exits_two() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let output = run(&file, &["list"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot open the project"), "{stderr}");
    assert!(stderr.contains("BURIL_PROJECT"), "{stderr}");
}

#[test]
fn the_agent_team_is_served_and_its_traces_replay() {
    let (dir, root) = project();
    let listed = run(&root, &["call", "agent_team_list_specialists", "--compact"]);
    assert!(listed.status.success(), "{listed:?}");
    let names: Vec<String> = parse(&listed)["data"]["specialists"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "asset-librarian",
            "console-reader",
            "editor-operator",
            "scene-inspector"
        ]
    );

    // A trace of one call, made from the binary's own answer.
    let answered = parse(&run(&root, &["call", "scene_list", "--compact"]));
    let mut trace = serde_json::json!({
        "version": 1,
        "handle": "team_0000001",
        "specialist": "scene-inspector",
        "brief": "List the scenes.",
        "model": "default",
        "temperature": null,
        "tool_view": ["scene_*"],
        "calls": [{"tool": "scene_list", "input": {}, "envelope": answered, "duration_ms": 1}],
        "report": "One scene.",
        "status": "done",
    });
    let path = dir.path().join("trace.json");
    std::fs::write(&path, trace.to_string()).unwrap();
    let replayed = run(&root, &["replay", path.to_str().unwrap()]);
    assert_eq!(replayed.status.code(), Some(0), "{replayed:?}");
    assert!(stdout(&replayed).starts_with("match  "), "{replayed:?}");

    trace["calls"][0]["envelope"]["data"]["scenes"][0]["name"] = "Other".into();
    std::fs::write(&path, trace.to_string()).unwrap();
    let drifted = run(&root, &["replay", path.to_str().unwrap()]);
    assert_eq!(drifted.status.code(), Some(1), "{drifted:?}");
    assert!(
        stdout(&drifted).contains("`/data/scenes/0/name`: recorded \"Other\", now \"Main\""),
        "{drifted:?}"
    );
}

/// Runs the binary with standard output a pipe whose reader has already gone, as
/// `tools list | true` can leave it: every write the binary makes fails with `EPIPE`.
fn run_into_closed_pipe(project: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(args)
        .env("BURIL_PROJECT", project)
        .stdout(writer)
        .output()
        .expect("the tools binary runs")
}

/// A trace of one `scene_list` call, with the envelope the binary answers today, or one that
/// has drifted from it.
fn scene_list_trace(project: &Path, drifted: bool) -> String {
    let mut answered = parse(&run(project, &["call", "scene_list", "--compact"]));
    if drifted {
        answered["data"]["scenes"][0]["name"] = "Other".into();
    }
    serde_json::json!({
        "version": 1,
        "handle": "team_0000001",
        "specialist": "scene-inspector",
        "brief": "List the scenes.",
        "model": "default",
        "temperature": null,
        "tool_view": ["scene_*"],
        "calls": [{"tool": "scene_list", "input": {}, "envelope": answered, "duration_ms": 1}],
        "report": "One scene.",
        "status": "done",
    })
    .to_string()
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let (dir, root) = project();
    let bindings = dir.path().join("bindings");
    let bindings = bindings.to_str().unwrap();
    let traces = dir.path().join("traces");
    std::fs::create_dir(&traces).unwrap();
    std::fs::write(traces.join("a.json"), scene_list_trace(&root, false)).unwrap();
    std::fs::write(traces.join("b.json"), scene_list_trace(&root, false)).unwrap();
    let drifted = dir.path().join("drifted");
    std::fs::create_dir(&drifted).unwrap();
    std::fs::write(drifted.join("a.json"), scene_list_trace(&root, true)).unwrap();
    std::fs::write(drifted.join("b.json"), scene_list_trace(&root, false)).unwrap();

    let missing = r#"{"path": "Assets/Scenes/None.scene"}"#;
    let cases: &[(&[&str], i32)] = &[
        (&["list"], 0),
        (&["list", "--json"], 0),
        (&["describe", "scene_open"], 0),
        (&["schema"], 0),
        (&["schema", "--profile", "anthropic"], 0),
        (&["call", "scene_list"], 0),
        // The call failed, and says so with its exit code, not with a message.
        (&["call", "scene_open", missing], 1),
        (&["--help"], 0),
        (&["codegen", "--out", bindings], 0),
        (&["codegen", "--out", bindings, "--check"], 0),
        (&["replay", traces.to_str().unwrap()], 0),
        (&["replay", drifted.to_str().unwrap()], 1),
    ];
    for (args, code) in cases {
        let output = run_into_closed_pipe(&root, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(*code), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn a_reader_that_stops_early_ends_the_listing_quietly() {
    use std::io::{BufRead, BufReader};

    let (_dir, root) = project();
    // More than a pipe holds, so the binary is still writing when the reader goes.
    let full = run(&root, &["list", "--json"]);
    assert!(full.stdout.len() > 128 * 1024, "{}", full.stdout.len());
    let (reader, writer) = std::io::pipe().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_tools"))
        .args(["list", "--json"])
        .env("BURIL_PROJECT", &root)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `head -n 1`: one line, then the reader is gone.
    let mut first = String::new();
    BufReader::new(reader).read_line(&mut first).unwrap();
    assert_eq!(first, "[\n");
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}
