//! The `editor_` tools on a fresh sample project.

use crate::common::{CAMERA, Fixture, LIGHT, MAIN, PLAYER, WEAPON};
use serde_json::json;

#[test]
fn state_describes_the_fresh_project() {
    let fx = Fixture::new();
    let state = fx.ok("editor_state", json!({}));
    assert_eq!(state["play_mode"], "stopped");
    assert_eq!(state["active_scene"], "Main");
    assert_eq!(state["unsaved_scenes"], json!([]));
    assert_eq!(state["selection"], json!([]));
    assert_eq!(
        state["console"],
        json!({"info": 0, "warning": 0, "error": 0})
    );
    let main = &state["open_scenes"][0];
    assert_eq!(main["path"], MAIN);
    assert_eq!(main["object_count"], 5);
    assert_eq!(
        main["root_objects"],
        json!(["Main Camera", "Directional Light", "Ground", "Player"])
    );
    let folder = fx
        .root()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(state["project"], folder);
}

#[test]
fn stopping_play_mode_discards_its_changes() {
    let fx = Fixture::new();
    let started = fx.ok("editor_play_mode_set", json!({"mode": "playing"}));
    assert_eq!(started["previous"], "stopped");
    assert_eq!(started["mode"], "playing");

    fx.ok("gameobject_destroy", json!({"id": PLAYER}));
    fx.ok("gameobject_create", json!({"name": "Bullet"}));
    let message = fx.error("scene_save", json!({}), "validation");
    assert!(message.contains("play mode"), "{message}");
    assert!(message.contains("editor_play_mode_set"), "{message}");
    fx.fails("scene_open", json!({"path": MAIN}), "validation");
    fx.fails("scene_close", json!({}), "validation");

    let paused = fx.ok("editor_play_mode_set", json!({"mode": "paused"}));
    assert_eq!(paused["previous"], "playing");
    let again = fx.ok("editor_play_mode_set", json!({"mode": "paused"}));
    assert_eq!(again["previous"], "paused");

    let stopped = fx.ok("editor_play_mode_set", json!({"mode": "stopped"}));
    assert_eq!(stopped["discarded_changes"], json!(["Main"]));
    fx.ok("gameobject_get", json!({"id": PLAYER}));
    let found = fx.ok("gameobject_find", json!({"name": "Bullet"}));
    assert_eq!(found["total_found"], 0);
    assert_eq!(
        fx.ok("editor_state", json!({}))["unsaved_scenes"],
        json!([])
    );

    let log = fx.ok("console_read", json!({}));
    let messages: Vec<&str> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        ["Entered play mode", "Paused play mode", "Exited play mode"]
    );
}

#[test]
fn edits_made_before_play_mode_survive_it() {
    let fx = Fixture::new();
    fx.ok("gameobject_rename", json!({"id": LIGHT, "name": "Sun"}));
    fx.ok("editor_play_mode_set", json!({"mode": "playing"}));
    let stopped = fx.ok("editor_play_mode_set", json!({"mode": "stopped"}));
    assert_eq!(stopped["discarded_changes"], json!([]));
    assert_eq!(fx.ok("gameobject_get", json!({"id": LIGHT}))["name"], "Sun");
    assert_eq!(
        fx.ok("editor_state", json!({}))["unsaved_scenes"],
        json!(["Main"])
    );
}

#[test]
fn play_mode_needs_an_open_scene() {
    let fx = Fixture::new();
    fx.ok("scene_close", json!({}));
    let message = fx.error(
        "editor_play_mode_set",
        json!({"mode": "playing"}),
        "validation",
    );
    assert!(message.contains("scene_open"), "{message}");
    assert_eq!(fx.ok("editor_state", json!({}))["play_mode"], "stopped");
    let envelope = fx.fails(
        "editor_play_mode_set",
        json!({"mode": "running"}),
        "validation",
    );
    assert_eq!(envelope["problems"][0]["path"], "/mode");
    assert!(envelope["error"].as_str().unwrap().contains("\"running\""));
}

#[test]
fn selection_is_set_checked_and_cleared() {
    let fx = Fixture::new();
    let selection = fx.ok(
        "editor_selection_set",
        json!({"ids": [WEAPON, CAMERA, WEAPON]}),
    );
    assert_eq!(selection["scene"], "Main");
    assert_eq!(
        selection["objects"],
        json!([
            {"id": WEAPON, "name": "Weapon", "path": "Player/Weapon"},
            {"id": CAMERA, "name": "Main Camera", "path": "Main Camera"}
        ])
    );
    assert_eq!(
        fx.ok("editor_state", json!({}))["selection"],
        json!([WEAPON, CAMERA])
    );

    let message = fx.error(
        "editor_selection_set",
        json!({"ids": [CAMERA, 42]}),
        "validation",
    );
    assert!(
        message.contains("no game object with id 42 in scene Main"),
        "{message}"
    );
    let unchanged = fx.ok("editor_selection_get", json!({}));
    assert_eq!(unchanged["objects"].as_array().unwrap().len(), 2);

    fx.ok(
        "scene_create",
        json!({"path": "Assets/Scenes/Other.scene", "open": true}),
    );
    let moved_on = fx.ok("editor_selection_get", json!({}));
    assert_eq!(moved_on["scene"], "Other");
    assert_eq!(moved_on["objects"], json!([]));

    fx.ok("scene_set_active", json!({"scene": "Main"}));
    fx.ok("editor_selection_set", json!({"ids": [CAMERA]}));
    let cleared = fx.ok("editor_selection_set", json!({"ids": []}));
    assert_eq!(cleared["objects"], json!([]));
    fx.fails("editor_selection_set", json!({"ids": [-1]}), "validation");
}
