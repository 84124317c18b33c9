//! The autoplay regression suite: agent-team runs recorded in `tests/traces/`, replayed on every
//! `cargo test` against a fresh sample project, with no model. A drift fails with the call and
//! the field that changed (or the tool that went missing, or the schema that changed).
//!
//! The runs are scripted below. After an intended change to a tool, record them again and
//! commit the traces:
//!
//! ```sh
//! BURIL_RECORD_TRACES=1 cargo test -p tools --test contract autoplay
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use buril::Dispatcher;
use buril_team::RunState;
use buril_team::{HandoffRequest, ScriptedModel, Team, assert_replays};
use serde_json::json;
use tempfile::TempDir;
use tools::Project;

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces")
}

/// A sample project in a temporary folder, with a dispatcher serving it (and `team`).
fn project(team: Option<&Team>) -> (TempDir, Dispatcher) {
    let dir = TempDir::new().unwrap();
    let project = Project::open_or_create(dir.path()).unwrap();
    let mut builder = Dispatcher::builder().state(project);
    if let Some(team) = team {
        builder = builder.state(team.clone());
    }
    (dir, builder.build())
}

/// The scripted runs: the trace file, the handoff, and the model's script.
fn scenarios() -> Vec<(&'static str, HandoffRequest, ScriptedModel)> {
    vec![
        (
            "scene_inspector_finds_the_player.json",
            HandoffRequest::new(
                "scene-inspector",
                "Find the player and list its components.",
            ),
            ScriptedModel::new()
                .call("scene_list", json!({}))
                .call(
                    "gameobject_find",
                    json!({"name": "Player", "match_mode": "exact"}),
                )
                .call("gameobject_get", json!({"id": 4}))
                .report_with_artifact(
                    "The player is object 4, with a capsule collider, a rigidbody and a \
                     PlayerController.",
                    json!({"player": 4}),
                ),
        ),
        (
            "asset_librarian_files_a_material.json",
            HandoffRequest::new(
                "asset-librarian",
                "Create a denim material in a new Assets/Garments folder.",
            )
            .temperature(0.2),
            ScriptedModel::new()
                .call("asset_search", json!({"query": "Denim"}))
                .call("asset_create_folder", json!({"path": "Assets/Garments"}))
                .call(
                    "asset_create_material",
                    json!({
                        "path": "Assets/Garments/Denim.mat",
                        "color": {"r": 0.1, "g": 0.2, "b": 0.6, "a": 1.0},
                    }),
                )
                .call("asset_list", json!({"folder": "Assets/Garments"}))
                .report_with_artifact(
                    "Created Assets/Garments/Denim.mat.",
                    json!({"created": ["Assets/Garments", "Assets/Garments/Denim.mat"]}),
                ),
        ),
    ]
}

/// Runs every scenario and writes its trace.
fn record_all() {
    for (file, request, model) in scenarios() {
        let team = Team::builder().model("default", model).build().unwrap();
        let (_dir, dispatcher) = project(Some(&team));
        // The run is a task of the team's, on this runtime, which lives until it ends.
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let handoff = runtime.block_on(team.start(&dispatcher, request)).unwrap();
        let run = team
            .wait_for_blocking(&handoff.handle, Duration::from_secs(20))
            .unwrap();
        assert_eq!(run.status, RunState::Done, "{file}: {run:?}");
        team.record(&handoff.handle, &traces().join(file))
            .unwrap()
            .unwrap();
    }
}

#[test]
fn recorded_runs_replay_as_recorded() {
    if std::env::var_os("BURIL_RECORD_TRACES").is_some() {
        record_all();
    }
    let mut replayed = Vec::new();
    for (file, _, _) in scenarios() {
        let (_dir, dispatcher) = project(None);
        let report = assert_replays(traces().join(file), &dispatcher);
        assert!(report.replayed > 0, "{file}: {}", report.message);
        replayed.push(file);
    }
    assert_eq!(replayed.len(), 2);
}
