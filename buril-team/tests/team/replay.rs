//! Recording and replay: the trace format, atomic writes, replays that match, and the precise
//! drift when a tool answers differently, is missing, or changed its schema; the `replay`
//! subcommand and the cargo-test helper.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Fixture, fresh_project};
use buril::__private::{Args, Invoke};
use buril::{Context, Dispatcher, Registry, SourceLocation, ToolDescriptor, ToolError, ToolMeta};
use buril_team::trace::{write_atomic, write_atomic_with};
use buril_team::{
    Drift, ReplayOptions, ReplayResult, RunState, ScriptedModel, Trace, TraceError, assert_replays,
    assert_replays_with, replay, replay_file,
};
use schemars::{Schema, SchemaGenerator};
use serde_json::{Value, json};

/// A run of the scene inspector that creates an object, finds it and the player, recorded to
/// `Assets/BurilTests/inspect.json` in the fixture's project.
fn recorded_run() -> (Fixture, PathBuf, String) {
    let model = ScriptedModel::new()
        .call("scene_list", json!({}))
        .call(
            "gameobject_create",
            json!({"name": "Enemy", "primitive": "cube"}),
        )
        .calls([
            ("gameobject_find", json!({"name": "Player"})),
            ("gameobject_get", json!({"id": 6})),
        ])
        .report_with_artifact("Created Enemy (6); the player is 4.", json!({"enemy": 6}));
    let fx = Fixture::new(model);
    let handle = fx.handoff(json!({
        "specialist": "scene-inspector",
        "brief": "Add an enemy and find the player.",
        "tool_view": ["scene_*", "gameobject_*"],
        "temperature": 0.2,
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Done, "{run:?}");
    let recording = fx.ok(
        "agent_team_record",
        json!({"handle": handle, "output_path": "Assets/BurilTests/inspect.json"}),
    );
    assert_eq!(recording["path"], "Assets/BurilTests/inspect.json");
    assert_eq!(recording["calls"], 4);
    assert_eq!(recording["status"], "done");
    let path = fx.path("Assets/BurilTests/inspect.json");
    assert_eq!(recording["bytes"], fs::metadata(&path).unwrap().len());
    (fx, path, handle)
}

#[test]
fn a_recorded_trace_is_versioned_json_with_every_call() {
    let (_fx, path, handle) = recorded_run();
    let trace: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(trace["version"], 1);
    assert_eq!(trace["handle"], handle.as_str());
    assert_eq!(trace["specialist"], "scene-inspector");
    assert_eq!(trace["brief"], "Add an enemy and find the player.");
    assert_eq!(trace["model"], "default");
    assert_eq!(trace["temperature"], 0.2);
    assert_eq!(trace["tool_view"], json!(["scene_*", "gameobject_*"]));
    assert_eq!(trace["status"], "done");
    assert_eq!(trace["report"], "Created Enemy (6); the player is 4.");
    assert_eq!(trace["artifact"], json!({"enemy": 6}));
    assert_eq!(trace["tool_calls"], 4);
    assert!(trace["duration_ms"].is_u64());

    let calls = trace["calls"].as_array().unwrap();
    let tools: Vec<&str> = calls.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(
        tools,
        [
            "scene_list",
            "gameobject_create",
            "gameobject_find",
            "gameobject_get"
        ]
    );
    for call in calls {
        for key in [
            "tool",
            "input",
            "envelope",
            "duration_ms",
            "call_id",
            "attempt",
        ] {
            assert!(call.get(key).is_some(), "{key} missing in {call}");
        }
        assert_eq!(call["envelope"]["ok"], true);
    }
    assert_eq!(
        calls[1]["input"],
        json!({"name": "Enemy", "primitive": "cube"})
    );
    assert_eq!(calls[3]["envelope"]["data"]["name"], "Enemy");

    // The director's side, and the schema of every tool of the view.
    assert_eq!(trace["director"]["tool"], "agent_team_handoff");
    assert_eq!(trace["director"]["input"]["temperature"], 0.2);
    assert_eq!(
        trace["director"]["envelope"]["data"]["handle"],
        handle.as_str()
    );
    let schemas = trace["schemas"].as_object().unwrap();
    assert!(schemas.contains_key("gameobject_destroy"), "the whole view");
    assert!(
        schemas["scene_list"]
            .as_str()
            .unwrap()
            .starts_with("fnv1a64:")
    );
    // No temporary file is left beside it.
    let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["inspect.json"]);
}

#[test]
fn record_then_replay_matches_through_the_tool_the_api_and_the_helper() {
    let (fx, path, _) = recorded_run();

    // Against a fresh project, with no model: the same calls give the same answers.
    let (_dir, dispatcher) = fresh_project();
    let report = assert_replays(&path, &dispatcher);
    assert_eq!(report.result, ReplayResult::Match);
    assert_eq!((report.calls, report.replayed, report.skipped), (4, 4, 0));
    assert_eq!(report.message, "match: 4 of 4 calls replayed as recorded");

    // Through the tool, in a second fresh project with a team of its own.
    let other = Fixture::new(ScriptedModel::new());
    fs::create_dir_all(other.path("Assets/BurilTests")).unwrap();
    fs::copy(&path, other.path("Assets/BurilTests/inspect.json")).unwrap();
    let replayed = other.ok(
        "agent_team_replay",
        json!({"trace_path": "Assets/BurilTests/inspect.json"}),
    );
    assert_eq!(replayed["result"], "match", "{replayed}");
    assert_eq!(replayed["drift"], Value::Null);

    // Replaying in the recording project itself drifts: the scene has unsaved changes now.
    let report = fx.team.replay(&path, &ReplayOptions::default()).unwrap();
    assert_eq!(
        report.drift,
        Some(Drift::Envelope {
            call: 0,
            tool: "scene_list".to_owned(),
            pointer: "/data/scenes/0/dirty".to_owned(),
            expected: Some(json!(false)),
            actual: Some(json!(true)),
        })
    );
    // Past that, the enemy already exists, so the new one gets the next id.
    let options = ReplayOptions::default().ignore("/data/scenes/*/dirty");
    let report = fx.team.replay(&path, &options).unwrap();
    assert_eq!(report.result, ReplayResult::Drift);
    assert_eq!(
        report.drift,
        Some(Drift::Envelope {
            call: 1,
            tool: "gameobject_create".to_owned(),
            pointer: "/data/id".to_owned(),
            expected: Some(json!(6)),
            actual: Some(json!(7)),
        })
    );
    assert_eq!(
        report.message,
        "drift: calls[1] (`gameobject_create`): the envelope differs at `/data/id`: recorded 6, \
         now 7"
    );
    assert_eq!(report.replayed, 1, "the calls after a drift are not issued");
}

#[test]
fn a_changed_project_drifts_at_the_precise_field() {
    let (_fx, path, _) = recorded_run();
    let (_dir, dispatcher) = fresh_project();
    // The player is renamed before the replay.
    let renamed = dispatcher
        .invoke(
            "gameobject_rename",
            json!({"id": 4, "name": "Hero"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(renamed["ok"], true, "{renamed}");
    // The first difference is the scene's unsaved-changes flag...
    let report = replay_file(&path, &dispatcher, &ReplayOptions::default()).unwrap();
    assert_eq!(
        report.message,
        "drift: calls[0] (`scene_list`): the envelope differs at `/data/scenes/0/dirty`: \
         recorded false, now true"
    );
    // ...and past it, the player is no longer found.
    let (_dir, dispatcher) = fresh_project();
    dispatcher
        .invoke(
            "gameobject_rename",
            json!({"id": 4, "name": "Hero"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let options = ReplayOptions::default().ignore("/data/scenes/*/dirty");
    let report = replay_file(&path, &dispatcher, &options).unwrap();
    assert_eq!(
        report.drift,
        Some(Drift::Envelope {
            call: 2,
            tool: "gameobject_find".to_owned(),
            pointer: "/data/total_found".to_owned(),
            expected: Some(json!(1)),
            actual: Some(json!(0)),
        }),
        "{}",
        report.message
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["drift"]["kind"], "envelope");
    assert_eq!(json["drift"]["pointer"], "/data/total_found");
}

#[test]
fn ignored_pointers_are_not_compared() {
    let (_fx, path, _) = recorded_run();
    let (_dir, dispatcher) = fresh_project();
    dispatcher
        .invoke(
            "gameobject_create",
            json!({"name": "Other"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    // The new enemy gets id 7 and the `get` of id 6 finds `Other`: ignoring both, it matches.
    let options = ReplayOptions::default()
        .ignore("/data/scenes/*/dirty")
        .ignore("/data/id")
        .ignore("/data/name")
        .ignore("/data/path")
        .ignore("/data/components");
    let report = replay_file(&path, &dispatcher, &options).unwrap();
    assert!(report.is_match(), "{}", report.message);
    // A `*` segment stands for any one segment.
    let (_dir, dispatcher) = fresh_project();
    dispatcher
        .invoke(
            "gameobject_rename",
            json!({"id": 4, "name": "Hero"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let options = ReplayOptions::default().ignore("/data/*");
    assert!(
        replay_file(&path, &dispatcher, &options)
            .unwrap()
            .is_match()
    );
    let options = ReplayOptions::default().ignore("/data/scenes/*/dirty");
    assert!(
        !replay_file(&path, &dispatcher, &options)
            .unwrap()
            .is_match()
    );
}

#[test]
fn drift_pointers_escape_slash_and_tilde_and_ignored_pointers_read_them_back() {
    let (_fx, path, _) = recorded_run();
    // The recording answered a key with `/` and `~` in it, which the tool no longer gives.
    let mut trace = Trace::read(&path).unwrap();
    trace.calls[0].envelope["data"]["a/b~c"] = json!({"n": 1});
    let (_dir, dispatcher) = fresh_project();
    let report = replay(&trace, &dispatcher, &ReplayOptions::default()).unwrap();
    assert_eq!(
        report.drift,
        Some(Drift::Envelope {
            call: 0,
            tool: "scene_list".to_owned(),
            pointer: "/data/a~1b~0c".to_owned(),
            expected: Some(json!({"n": 1})),
            actual: None,
        }),
        "{}",
        report.message
    );
    assert_eq!(
        report.message,
        "drift: calls[0] (`scene_list`): the envelope differs at `/data/a~1b~0c`: recorded \
         {\"n\":1}, now absent"
    );

    // Ignored pointers are read back token by token: the pointer as reported, or a `*` in the
    // key's place, covers it.
    for ignored in ["/data/a~1b~0c", "/data/*"] {
        let (_dir, dispatcher) = fresh_project();
        let options = ReplayOptions::default().ignore(ignored);
        let report = replay(&trace, &dispatcher, &options).unwrap();
        assert!(report.is_match(), "{ignored}: {}", report.message);
    }
    // The key unescaped is two other segments, and a pointer below the key covers only what is
    // under it: the key is still missing.
    for ignored in ["/data/a/b~c", "/data/a~1b~0c/n"] {
        let (_dir, dispatcher) = fresh_project();
        let options = ReplayOptions::default().ignore(ignored);
        let report = replay(&trace, &dispatcher, &options).unwrap();
        let Some(Drift::Envelope { pointer, .. }) = &report.drift else {
            panic!("{ignored}: {report:?}");
        };
        assert_eq!(pointer, "/data/a~1b~0c", "{ignored}");
    }
}

/// A registry of every tool linked into this test, less `without`, plus `with`.
fn registry(without: &str, with: Option<&'static ToolDescriptor>) -> &'static Registry {
    let tools = buril::__private::TOOLS
        .iter()
        .filter(|t| t.name() != without)
        .chain(with);
    Box::leak(Box::new(Registry::new(tools).unwrap()))
}

fn project_dispatcher(registry: &'static Registry) -> (tempfile::TempDir, Dispatcher) {
    let dir = tempfile::TempDir::new().unwrap();
    let project = tools::Project::open_or_create(dir.path()).unwrap();
    let dispatcher = Dispatcher::builder()
        .registry(registry)
        .state(project)
        .build();
    (dir, dispatcher)
}

#[test]
fn a_tool_missing_from_the_registry_drifts_as_missing() {
    let (_fx, path, _) = recorded_run();
    let (_dir, dispatcher) = project_dispatcher(registry("gameobject_find", None));
    let report = replay_file(&path, &dispatcher, &ReplayOptions::default()).unwrap();
    assert_eq!(
        report.drift,
        Some(Drift::MissingTool {
            call: 2,
            tool: "gameobject_find".to_owned()
        })
    );
    assert_eq!(report.replayed, 2);
    assert_eq!(
        report.message,
        "drift: calls[2] (`gameobject_find`): the tool is missing from the registry"
    );
}

#[test]
fn a_tool_that_was_missing_when_recorded_replays_by_its_answer() {
    let fx = Fixture::new(ScriptedModel::new().call("clothing_rig", json!({"garment": "Jacket"})));
    let handle = fx.handoff(json!({
        "specialist": "asset-librarian",
        "brief": "Rig the jacket.",
        "tool_view": ["*"],
    }));
    assert_eq!(fx.wait(&handle).status, RunState::Blocked);
    let trace = fx.team.trace(&handle).unwrap();
    assert_eq!(trace.calls[0].envelope["type"], "not_found");
    // Still missing: the dispatcher answers as it did, so the call matches.
    let (_dir, dispatcher) = fresh_project();
    let report = replay(&trace, &dispatcher, &ReplayOptions::default()).unwrap();
    assert!(report.is_match(), "{}", report.message);
    assert_eq!((report.replayed, report.skipped), (1, 0));
}

const fn meta(name: &'static str) -> ToolMeta {
    ToolMeta::from_attribute(buril::__private::AttributeMeta {
        name,
        description: "A stand-in for a changed tool.",
        family: "scene",
        aliases: &[],
        title: None,
        read_only: None,
        destructive: None,
        idempotent: None,
        open_world: None,
        threading: buril::Threading::OffThread,
        dangerous: false,
        returns_unit: false,
        confirm: false,
        location: SourceLocation {
            file: file!(),
            line: line!(),
            module: module_path!(),
        },
        fixed_name: None,
        icons: &[],
        meta: &[],
        task: buril::TaskSupport::Never,
        ui: None,
        editor: false,
    })
}

fn same_input_schema(_: &mut SchemaGenerator) -> Schema {
    let tool = buril::registry().get("scene_list").unwrap();
    let real = tool.input_schema();
    Schema::try_from(real.clone()).unwrap()
}

fn changed_input_schema(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({
        "type": "object",
        "properties": {"folder": {"type": ["string", "null"]}},
        "additionalProperties": false,
    })
}

fn any_output(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({"type": "object"})
}

fn no_scenes(_: &Context, _: Args) -> Result<Value, ToolError> {
    Ok(json!({"scenes": []}))
}

/// `scene_list`, answering differently: no scenes.
static SCENE_LIST_ANSWERS_DIFFERENTLY: ToolDescriptor = ToolDescriptor::new(
    meta("scene_list"),
    Invoke::Sync(no_scenes),
    same_input_schema,
    any_output,
);

/// `scene_list`, with a new input schema.
static SCENE_LIST_NEW_SCHEMA: ToolDescriptor = ToolDescriptor::new(
    meta("scene_list"),
    Invoke::Sync(no_scenes),
    changed_input_schema,
    any_output,
);

#[test]
fn a_tool_that_answers_differently_or_changed_its_schema_drifts() {
    let (_fx, path, _) = recorded_run();
    let (_dir, dispatcher) = project_dispatcher(registry(
        "scene_list",
        Some(&SCENE_LIST_ANSWERS_DIFFERENTLY),
    ));
    let report = replay_file(&path, &dispatcher, &ReplayOptions::default()).unwrap();
    let Some(Drift::Envelope {
        call,
        pointer,
        expected,
        actual,
        ..
    }) = report.drift
    else {
        panic!("{report:?}");
    };
    assert_eq!((call, pointer.as_str()), (0, "/data/scenes/0"));
    assert_eq!(expected.unwrap()["name"], "Main");
    assert_eq!(actual, None);

    let (_dir, dispatcher) =
        project_dispatcher(registry("scene_list", Some(&SCENE_LIST_NEW_SCHEMA)));
    let report = replay_file(&path, &dispatcher, &ReplayOptions::default()).unwrap();
    let Some(Drift::SchemaChanged {
        call,
        tool,
        expected,
        actual,
    }) = &report.drift
    else {
        panic!("{report:?}");
    };
    assert_eq!((*call, tool.as_str()), (0, "scene_list"));
    assert_ne!(expected, actual);
    assert!(
        report.message.contains("input schema changed"),
        "{}",
        report.message
    );
    assert_eq!(report.replayed, 0);
}

#[test]
#[should_panic(expected = "the envelope differs at `/data/total_found`: recorded 1, now 0")]
fn the_cargo_test_helper_panics_with_the_drift() {
    let (_fx, path, _) = recorded_run();
    let (_dir, dispatcher) = fresh_project();
    dispatcher
        .invoke(
            "gameobject_rename",
            json!({"id": 4, "name": "Hero"}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    let options = ReplayOptions::default().ignore("/data/scenes/*/dirty");
    assert_replays_with(&path, &dispatcher, &options);
}

#[test]
fn failed_and_cancelled_calls_replay_too() {
    // An errored run: the failing call and its retry are in the trace, and replay the same.
    let fx = Fixture::new(
        ScriptedModel::new().call("asset_read", json!({"path": "Assets/Missing.txt"})),
    );
    let handle = fx.handoff(json!({"specialist": "asset-librarian", "brief": "Read."}));
    assert_eq!(fx.wait(&handle).status, RunState::Errored);
    let trace = fx.team.trace(&handle).unwrap();
    assert_eq!(trace.calls.len(), 2);
    assert_eq!(trace.status, RunState::Errored);
    let (_dir, dispatcher) = fresh_project();
    let report = replay(&trace, &dispatcher, &ReplayOptions::default()).unwrap();
    assert!(report.is_match(), "{}", report.message);

    // A recorded cancellation cannot be reproduced, so it is skipped.
    let mut trace = trace;
    trace.calls[1].envelope =
        json!({"ok": false, "type": "cancelled", "error": "the call was cancelled"});
    let report = replay(&trace, &dispatcher, &ReplayOptions::default()).unwrap();
    assert!(report.is_match());
    assert_eq!((report.replayed, report.skipped), (1, 1));
}

#[test]
fn traces_round_trip_and_newer_versions_are_refused() {
    let (_fx, path, _) = recorded_run();
    let trace = Trace::read(&path).unwrap();
    assert_eq!(trace.version, buril_team::TRACE_VERSION);
    assert_eq!(trace.calls.len(), 4);
    let text = trace.to_json();
    assert_eq!(text, fs::read_to_string(&path).unwrap());

    let dir = tempfile::TempDir::new().unwrap();
    let newer = dir.path().join("newer.json");
    fs::write(&newer, text.replacen("\"version\": 1", "\"version\": 2", 1)).unwrap();
    let error = Trace::read(&newer).unwrap_err();
    assert!(
        matches!(error, TraceError::Version { found: 2, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("reads versions up to 1"));

    let broken = dir.path().join("broken.json");
    fs::write(&broken, "{\"version\": 1, \"calls\": [}").unwrap();
    assert!(matches!(
        Trace::read(&broken).unwrap_err(),
        TraceError::Invalid { .. }
    ));
}

/// The files in `folder`, sorted.
fn files(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_failed_write_leaves_the_previous_trace_intact() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("trace.json");
    write_atomic(&path, b"{\"version\": 1, \"old\": true}\n").unwrap();

    // A write that fails half way (a full disk, a crash of the writer).
    let error = write_atomic_with(&path, |file| {
        use std::io::Write;
        file.write_all(b"{\"version\": 1, \"new\": tr")?;
        Err(std::io::Error::other("the disk is full"))
    })
    .unwrap_err();
    assert_eq!(error.to_string(), "the disk is full");
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"old\": true}\n"
    );
    assert_eq!(
        files(dir.path()),
        ["trace.json"],
        "no temporary file is left"
    );

    // A writer that panics half way leaves it too.
    let panicked = std::panic::catch_unwind(|| {
        let _ = write_atomic_with(&path, |file| {
            use std::io::Write;
            file.write_all(b"{\"partial")?;
            panic!("the writer crashed");
        });
    });
    assert!(panicked.is_err());
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"version\": 1, \"old\": true}\n"
    );
    assert_eq!(files(dir.path()), ["trace.json"]);

    // The rename fails: the target is a folder.
    let (fx, _, handle) = recorded_run();
    let target = fx.path("Assets/BurilTests/occupied.json");
    fs::create_dir_all(target.join("inside")).unwrap();
    let recorded = fx.call(
        "agent_team_record",
        json!({"handle": handle, "output_path": "Assets/BurilTests/occupied.json"}),
    );
    assert_eq!(recorded["type"], "runtime", "{recorded}");
    assert!(target.join("inside").is_dir());
    assert_eq!(
        files(&fx.path("Assets/BurilTests")),
        ["inspect.json", "occupied.json"]
    );
}

#[test]
fn a_read_only_folder_leaves_the_previous_trace_intact() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::TempDir::new().unwrap();
    let folder = dir.path().join("traces");
    fs::create_dir(&folder).unwrap();
    let path = folder.join("trace.json");
    write_atomic(&path, b"old\n").unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    let result = write_atomic(&path, b"new\n");
    // A privileged user writes anyway; then the write is whole.
    let privileged = fs::File::create(folder.join("probe")).is_ok();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o755)).unwrap();
    if privileged {
        result.unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
    } else {
        assert_eq!(
            result.unwrap_err().kind(),
            std::io::ErrorKind::PermissionDenied
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(files(&folder), ["trace.json"]);
    }
}

#[test]
fn record_and_replay_paths_stay_in_the_trace_folder() {
    let (fx, _, handle) = recorded_run();
    for bad in [
        "/tmp/escape.json",
        "../escape.json",
        "Assets/../../escape.json",
        "",
    ] {
        let envelope = fx.call(
            "agent_team_record",
            json!({"handle": handle, "output_path": bad}),
        );
        assert_eq!(envelope["type"], "validation", "{bad}: {envelope}");
        let envelope = fx.call("agent_team_replay", json!({"trace_path": bad}));
        assert_eq!(envelope["type"], "validation", "{bad}: {envelope}");
    }
    let envelope = fx.call(
        "agent_team_record",
        json!({"handle": "task_00000000000000000000000000000000", "output_path": "x.json"}),
    );
    assert_eq!(envelope["type"], "validation");
    let envelope = fx.call("agent_team_replay", json!({"trace_path": "nothing.json"}));
    assert_eq!(envelope["error"], "no trace at `nothing.json`");
}

/// Runs the CLI with the `replay` subcommand over a fresh project; exit code, out, err.
fn cli(args: &[&str]) -> (u8, String, String) {
    let dir = tempfile::TempDir::new().unwrap();
    let project = tools::Project::open_or_create(dir.path()).unwrap();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = buril::cli::Cli::new()
        .extend(buril_team::cli::extension_with(move |d| d.state(project)))
        .run_with(
            std::iter::once("tools").chain(args.iter().copied()),
            &mut out,
            &mut err,
        );
    let code = if code == std::process::ExitCode::SUCCESS {
        0
    } else if code == std::process::ExitCode::from(1) {
        1
    } else {
        2
    };
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn the_replay_subcommand_reports_each_trace_and_exits_by_the_worst() {
    let (_fx, path, _) = recorded_run();
    let folder = path.parent().unwrap();
    let text = path.display().to_string();

    let (code, out, err) = cli(&["replay", &text]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out,
        format!("match  {text}: match: 4 of 4 calls replayed as recorded\n")
    );

    // A drifting copy beside it: the folder replays both, in name order.
    let mut trace = Trace::read(&path).unwrap();
    trace.calls[0].envelope["data"]["scenes"][0]["bytes"] = json!(1);
    trace.write(folder.join("z_drift.json")).unwrap();
    let (code, out, _) = cli(&["replay", &folder.display().to_string()]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("match  "), "{out}");
    assert!(
        lines[1].ends_with("`/data/scenes/0/bytes`: recorded 1, now 2965"),
        "{out}"
    );

    let (code, out, _) = cli(&["replay", "--json", &text]);
    assert_eq!(code, 0);
    let reports: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(reports[0]["report"]["result"], "match");

    let (code, _, err) = cli(&["replay", "/no/such/trace.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
    let (code, _, _) = cli(&["replay"]);
    assert_eq!(code, 2);
}

#[test]
fn schema_hashes_follow_what_a_schema_accepts_not_its_wording() {
    use buril_team::trace::schema_hash;
    let schema = json!({
        "type": "object",
        "description": "Opens a scene.",
        "properties": {
            "path": {"type": "string", "description": "The scene file."},
            "description": {"type": "string", "title": "A property named like a keyword"},
            "mode": {"const": {"description": "data, not an annotation"}},
        },
        "required": ["path"],
    });
    let hash = schema_hash(&schema);
    assert!(hash.starts_with("fnv1a64:") && hash.len() == 24, "{hash}");

    // Reworded and reordered: the same hash.
    let reworded = json!({
        "required": ["path"],
        "properties": {
            "mode": {"const": {"description": "data, not an annotation"}},
            "description": {"title": "Renamed title", "type": "string"},
            "path": {"description": "The scene file to open.", "type": "string"},
        },
        "type": "object",
    });
    assert_eq!(schema_hash(&reworded), hash);

    // What it accepts changed: another hash.
    let mut retyped = schema.clone();
    retyped["properties"]["path"]["type"] = json!("integer");
    let mut fewer = schema.clone();
    fewer["properties"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    let mut data = schema.clone();
    data["properties"]["mode"]["const"]["description"] = json!("other data");
    let mut required = schema.clone();
    required["required"] = json!(["path", "mode"]);
    for changed in [retyped, fewer, data, required] {
        assert_ne!(schema_hash(&changed), hash, "{changed}");
    }
}
