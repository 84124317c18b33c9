//! The `scene_` tools on a fresh sample project.

use crate::common::{Fixture, MAIN, PLAYER, WEAPON};
use serde_json::json;
use tools::Project;

#[test]
fn list_shows_the_sample_scene_open_and_active() {
    let fx = Fixture::new();
    let data = fx.ok("scene_list", json!({}));
    let scenes = data["scenes"].as_array().unwrap();
    assert_eq!(scenes.len(), 1);
    assert_eq!(scenes[0]["path"], MAIN);
    assert_eq!(scenes[0]["name"], "Main");
    assert_eq!(scenes[0]["open"], true);
    assert_eq!(scenes[0]["active"], true);
    assert_eq!(scenes[0]["dirty"], false);
    assert_eq!(
        scenes[0]["bytes"],
        std::fs::metadata(fx.path(MAIN)).unwrap().len()
    );
}

#[test]
fn save_writes_edits_to_the_scene_file() {
    let fx = Fixture::new();
    let created = fx.ok(
        "gameobject_create",
        json!({"name": "Lamp", "position": {"x": 1, "y": 2.5, "z": -3}, "parent": PLAYER}),
    );
    assert!(fx.object_in_file(MAIN, "Lamp").is_none(), "saved too early");
    let listed = fx.ok("scene_list", json!({}));
    assert_eq!(listed["scenes"][0]["dirty"], true);

    let saved = fx.ok("scene_save", json!({}));
    assert_eq!(saved["path"], MAIN);
    assert_eq!(saved["object_count"], 6);
    assert_eq!(
        saved["bytes"],
        std::fs::metadata(fx.path(MAIN)).unwrap().len()
    );

    let lamp = fx.object_in_file(MAIN, "Lamp").expect("Lamp saved");
    assert_eq!(lamp["id"], created["id"]);
    assert_eq!(lamp["parent"], PLAYER);
    assert_eq!(
        lamp["transform"]["position"],
        json!({"x": 1.0, "y": 2.5, "z": -3.0})
    );
    assert_eq!(
        lamp["transform"]["scale"],
        json!({"x": 1.0, "y": 1.0, "z": 1.0})
    );
    assert_eq!(lamp["active"], true);
    assert_eq!(lamp["tag"], "Untagged");
    let file = fx.read_json(MAIN);
    assert_eq!(file["next_id"], created["id"].as_u64().unwrap() + 1);
    assert_eq!(fx.ok("scene_list", json!({}))["scenes"][0]["dirty"], false);
}

#[test]
fn save_as_writes_a_new_file_and_follows_it() {
    let fx = Fixture::new();
    fx.ok("gameobject_rename", json!({"id": PLAYER, "name": "Hero"}));
    let saved = fx.ok("scene_save", json!({"save_as": "Assets/Scenes/Copy.scene"}));
    assert_eq!(saved["name"], "Copy");
    assert!(
        fx.object_in_file("Assets/Scenes/Copy.scene", "Hero")
            .is_some()
    );
    assert!(
        fx.object_in_file(MAIN, "Hero").is_none(),
        "the original changed"
    );
    assert!(fx.object_in_file(MAIN, "Player").is_some());

    let state = fx.ok("editor_state", json!({}));
    assert_eq!(state["active_scene"], "Copy");
    let session = fx.read_json("Library/EditorSession.json");
    assert_eq!(session["open_scenes"], json!(["Assets/Scenes/Copy.scene"]));

    let message = fx.error(
        "scene_save",
        json!({"save_as": "Assets/Scenes/Main.scene"}),
        "validation",
    );
    assert!(message.contains("already exists"), "{message}");
}

#[test]
fn open_refuses_to_drop_unsaved_changes_unless_told() {
    let fx = Fixture::new();
    fx.ok("gameobject_destroy", json!({"id": PLAYER}));
    let message = fx.error("scene_open", json!({"path": MAIN}), "validation");
    assert!(message.contains("unsaved changes"), "{message}");
    assert!(message.contains("scene_save"), "{message}");

    let opened = fx.ok("scene_open", json!({"path": MAIN, "discard_changes": true}));
    assert_eq!(opened["discarded_changes"], json!(["Main"]));
    assert_eq!(opened["scene"]["dirty"], false);
    assert_eq!(opened["scene"]["object_count"], 5, "reloaded from disk");
    fx.ok("gameobject_get", json!({"id": PLAYER}));
}

#[test]
fn open_rejects_paths_outside_the_project() {
    let fx = Fixture::new();
    let cases = [
        ("../outside.scene", "leaves the project folder"),
        ("Assets/../../x.scene", "leaves the project folder"),
        ("/etc/Main.scene", "absolute path"),
        ("Library/Main.scene", "outside `Assets/`"),
        ("Assets/Scenes/Main.txt", "must end in `.scene`"),
        ("Assets/Scenes/Nope.scene", "scene_list"),
    ];
    for (path, expected) in cases {
        let message = fx.error("scene_open", json!({"path": path}), "validation");
        assert!(message.contains(expected), "{path}: {message}");
    }
    let envelope = fx.fails("scene_open", json!({"path": 7}), "validation");
    assert_eq!(envelope["problems"][0]["path"], "/path");
}

#[test]
fn create_writes_a_scene_from_a_template() {
    let fx = Fixture::new();
    let created = fx.ok(
        "scene_create",
        json!({"path": "Assets/Scenes/Level2.scene"}),
    );
    assert_eq!(created["object_count"], 2);
    assert_eq!(created["opened"], false);
    let file = fx.read_json("Assets/Scenes/Level2.scene");
    let names: Vec<&str> = file["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Main Camera", "Directional Light"]);

    fx.ok(
        "scene_create",
        json!({"path": "Assets/Levels/Empty.scene", "template": "empty", "open": true}),
    );
    assert_eq!(
        fx.read_json("Assets/Levels/Empty.scene")["objects"],
        json!([])
    );
    let state = fx.ok("editor_state", json!({}));
    assert_eq!(state["active_scene"], "Empty");
    assert_eq!(state["open_scenes"].as_array().unwrap().len(), 2);

    let message = fx.error(
        "scene_create",
        json!({"path": "Assets/Scenes/Level2.scene"}),
        "validation",
    );
    assert!(message.contains("already exists"), "{message}");
    fx.fails(
        "scene_create",
        json!({"path": "Assets/X.scene", "template": "fancy"}),
        "validation",
    );
}

#[test]
fn close_guards_unsaved_changes_and_leaves_no_scene() {
    let fx = Fixture::new();
    fx.ok("gameobject_rename", json!({"id": PLAYER, "name": "Hero"}));
    let message = fx.error("scene_close", json!({}), "validation");
    assert!(message.contains("unsaved changes"), "{message}");

    let closed = fx.ok(
        "scene_close",
        json!({"scene": "Main", "discard_changes": true}),
    );
    assert_eq!(closed["closed"], "Main");
    assert_eq!(closed["discarded_changes"], true);
    assert_eq!(closed["open_scenes"], json!([]));
    assert_eq!(closed["active_scene"], json!(null));
    assert!(fx.object_in_file(MAIN, "Player").is_some());

    let message = fx.error("gameobject_find", json!({}), "validation");
    assert_eq!(
        message,
        "no scene is open; call scene_open first (scene_list lists the scene files)"
    );
    let session = fx.read_json("Library/EditorSession.json");
    assert_eq!(session["open_scenes"], json!([]));
}

#[test]
fn hierarchy_is_a_tree_with_depth_and_activity_filters() {
    let fx = Fixture::new();
    let data = fx.ok(
        "scene_list_gameobjects",
        json!({"include_components": true}),
    );
    assert_eq!(data["scene"], "Main");
    assert_eq!(data["object_count"], 5);
    let roots = data["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 4);
    let player = &roots[3];
    assert_eq!(player["name"], "Player");
    assert_eq!(player["children"][0]["id"], WEAPON);
    assert_eq!(
        player["children"][0]["components"],
        json!(["MeshFilter", "MeshRenderer", "Rotator"])
    );

    let shallow = fx.ok("scene_list_gameobjects", json!({"max_depth": 0}));
    assert_eq!(shallow["roots"][3]["children"], json!([]));
    assert_eq!(shallow["roots"][3]["hidden_children"], 1);
    assert_eq!(shallow["roots"][3]["components"], json!([]));

    fx.ok(
        "gameobject_set_active",
        json!({"id": PLAYER, "active": false}),
    );
    let active = fx.ok("scene_list_gameobjects", json!({"include_inactive": false}));
    assert_eq!(active["roots"].as_array().unwrap().len(), 3);
}

#[test]
fn hierarchy_answers_to_its_former_name() {
    let fx = Fixture::new();
    let envelope = fx.call("scene_get_hierarchy", json!({}));
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["data"]["scene"], "Main");
    let warning = envelope["warnings"][0].as_str().unwrap();
    assert!(warning.contains("scene_list_gameobjects"), "{warning}");
}

#[test]
fn set_active_decides_where_new_objects_go() {
    let fx = Fixture::new();
    fx.ok(
        "scene_create",
        json!({"path": "Assets/Scenes/B.scene", "open": true}),
    );
    fx.ok("scene_open", json!({"path": MAIN, "additive": true}));
    let active = fx.ok("scene_set_active", json!({"scene": "B"}));
    assert_eq!(active["scene"]["name"], "B");
    assert_eq!(active["open_scenes"], json!(["Main", "B"]));
    let created = fx.ok("gameobject_create", json!({"name": "Crate"}));
    assert_eq!(created["scene"], "B");
    assert_eq!(created["id"], 3);

    let message = fx.error(
        "scene_set_active",
        json!({"scene": "Nowhere"}),
        "validation",
    );
    assert!(message.contains("not open"), "{message}");
    assert!(message.contains("Main, B"), "{message}");
}

#[test]
fn open_scenes_are_remembered_between_runs() {
    let dir = tempfile::TempDir::new().unwrap();
    {
        let project = Project::open_or_create(dir.path()).unwrap();
        let dispatcher = buril::Dispatcher::builder().state(project).build();
        let envelope = dispatcher
            .invoke(
                "scene_create",
                json!({"path": "Assets/Scenes/Two.scene", "open": true}),
                buril::CallOptions::default(),
            )
            .into_envelope();
        assert_eq!(envelope["ok"], true, "{envelope}");
    }
    let project = Project::open(dir.path()).unwrap();
    let dispatcher = buril::Dispatcher::builder().state(project).build();
    let state = dispatcher
        .invoke("editor_state", json!({}), buril::CallOptions::default())
        .into_envelope();
    assert_eq!(state["data"]["active_scene"], "Two");
    let names: Vec<&str> = state["data"]["open_scenes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Main", "Two"]);
}

#[test]
fn open_refuses_a_folder_that_is_not_a_project() {
    let dir = tempfile::TempDir::new().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let error = Project::open_or_create(dir.path()).unwrap_err();
    assert!(error.to_string().contains("no `Assets` folder"), "{error}");
    assert!(
        !dir.path().join("Assets").exists(),
        "seeded a non-empty folder"
    );
}
