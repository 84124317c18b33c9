//! The `gameobject_` tools on a fresh sample project.

use crate::common::{CAMERA, Fixture, GROUND, MAIN, PLAYER, WEAPON};
use serde_json::{Value, json};

fn names(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn create_takes_one_input_struct() {
    let fx = Fixture::new();
    let created = fx.ok(
        "gameobject_create",
        json!({
            "name": "Enemy",
            "primitive": "cube",
            "parent": GROUND,
            "position": {"x": 3, "y": 0.5, "z": 2},
            "rotation": {"x": 0, "y": 45, "z": 0},
            "tag": "Enemy",
            "components": [
                {"type": "rigidbody", "properties": {"mass": 2.5}},
                {"type": "Rotator"}
            ],
            "select": true
        }),
    );
    assert_eq!(created["id"], 6);
    assert_eq!(created["path"], "Ground/Enemy");
    assert_eq!(created["tag"], "Enemy");
    assert_eq!(created["transform"]["rotation"]["y"], 45.0);
    let kinds: Vec<&str> = created["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "MeshFilter",
            "MeshRenderer",
            "BoxCollider",
            "Rigidbody",
            "Rotator"
        ]
    );
    assert_eq!(created["components"][0]["properties"]["mesh"], "Cube");
    assert_eq!(created["components"][3]["properties"]["mass"], 2.5);

    let fetched = fx.ok("gameobject_get", json!({"id": 6}));
    assert_eq!(fetched, created);
    let ground = fx.ok("gameobject_get", json!({"id": GROUND}));
    assert_eq!(ground["children"], json!([6]));
    let selection = fx.ok("editor_selection_get", json!({}));
    assert_eq!(selection["objects"][0]["id"], 6);

    let second = fx.ok("gameobject_create", json!({"name": "Enemy"}));
    assert_eq!(second["id"], 7);
    assert_eq!(second["parent"], json!(null));
    assert_eq!(second["components"], json!([]));
}

#[test]
fn create_reports_every_input_problem() {
    let fx = Fixture::new();
    let envelope = fx.fails(
        "gameobject_create",
        json!({"name": 5, "position": {"x": "left", "y": 0, "z": 0}, "colour": "red"}),
        "validation",
    );
    let problems: Vec<&str> = envelope["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert!(problems.contains(&"/name"), "{envelope:#}");
    assert!(problems.contains(&"/position/x"), "{envelope:#}");
    assert!(
        problems.iter().any(|p| p.contains("colour")),
        "{envelope:#}"
    );

    let message = fx.error(
        "gameobject_create",
        json!({"name": "X", "components": [{"type": "Jetpack"}]}),
        "validation",
    );
    assert!(
        message.contains("unknown component type `Jetpack`"),
        "{message}"
    );
    assert!(message.contains("PlayerController, Rotator"), "{message}");
    assert!(message.contains("script_create"), "{message}");

    let message = fx.error(
        "gameobject_create",
        json!({"name": "X", "primitive": "sphere", "components": [{"type": "MeshFilter"}]}),
        "validation",
    );
    assert!(message.contains("two MeshFilter"), "{message}");
    let message = fx.error("gameobject_create", json!({"name": "a/b"}), "validation");
    assert!(message.contains("`/`"), "{message}");
    let message = fx.error(
        "gameobject_create",
        json!({"name": "Orphan", "parent": 99}),
        "validation",
    );
    assert_eq!(
        message,
        "no game object with id 99 in scene Main; gameobject_find lists them"
    );
    let file = fx.read_json(MAIN);
    assert_eq!(file["objects"].as_array().unwrap().len(), 5);
    assert_eq!(fx.ok("scene_list", json!({}))["scenes"][0]["dirty"], false);
}

#[test]
fn destroy_removes_the_subtree_and_its_selection() {
    let fx = Fixture::new();
    fx.ok("editor_selection_set", json!({"ids": [WEAPON, CAMERA]}));
    let destroyed = fx.ok("gameobject_destroy", json!({"id": PLAYER}));
    assert_eq!(
        destroyed["destroyed"],
        json!([{"id": PLAYER, "name": "Player"}, {"id": WEAPON, "name": "Weapon"}])
    );
    let selection = fx.ok("editor_selection_get", json!({}));
    assert_eq!(selection["objects"].as_array().unwrap().len(), 1);
    assert_eq!(selection["objects"][0]["id"], CAMERA);
    let message = fx.error("gameobject_get", json!({"id": WEAPON}), "validation");
    assert!(message.contains("no game object with id 5"), "{message}");

    fx.ok("scene_save", json!({}));
    assert!(fx.object_in_file(MAIN, "Weapon").is_none());
    assert!(fx.object_in_file(MAIN, "Player").is_none());
    let created = fx.ok("gameobject_create", json!({"name": "New"}));
    assert_eq!(created["id"], 6, "ids are never reused");
}

#[test]
fn find_filters_by_name_tag_component_and_activity() {
    let fx = Fixture::new();
    let all = fx.ok("gameobject_find", json!({}));
    assert_eq!(all["total_found"], 5);
    assert_eq!(
        names(&fx.ok("gameobject_find", json!({"name": "light"}))),
        ["Directional Light"]
    );
    assert!(
        names(&fx.ok(
            "gameobject_find",
            json!({"name": "light", "match_mode": "exact"})
        ))
        .is_empty()
    );
    assert_eq!(
        names(&fx.ok(
            "gameobject_find",
            json!({"name": "Player/Weapon", "match_mode": "path"})
        )),
        ["Weapon"]
    );
    assert_eq!(
        names(&fx.ok(
            "gameobject_find",
            json!({"name": "Player/*", "match_mode": "glob"})
        )),
        ["Weapon"]
    );
    assert_eq!(
        names(&fx.ok(
            "gameobject_find",
            json!({"name": "*a*", "match_mode": "glob", "component": "meshrenderer"})
        )),
        ["Player", "Weapon"]
    );
    assert_eq!(
        names(&fx.ok("gameobject_find", json!({"tag": "MainCamera"}))),
        ["Main Camera"]
    );

    fx.ok(
        "gameobject_set_active",
        json!({"id": PLAYER, "active": false}),
    );
    let visible = fx.ok("gameobject_find", json!({"component": "MeshFilter"}));
    assert_eq!(names(&visible), ["Ground"]);
    let everything = fx.ok(
        "gameobject_find",
        json!({"component": "MeshFilter", "include_inactive": true, "max_results": 2}),
    );
    assert_eq!(everything["total_found"], 3);
    assert_eq!(everything["truncated"], true);
    assert_eq!(names(&everything), ["Ground", "Player"]);
    fx.fails(
        "gameobject_find",
        json!({"match_mode": "regex"}),
        "validation",
    );
}

#[test]
fn rename_changes_paths() {
    let fx = Fixture::new();
    let renamed = fx.ok(
        "gameobject_rename",
        json!({"id": PLAYER, "name": "  Hero "}),
    );
    assert_eq!(renamed["old_name"], "Player");
    assert_eq!(renamed["name"], "Hero");
    let weapon = fx.ok("gameobject_get", json!({"id": WEAPON}));
    assert_eq!(weapon["path"], "Hero/Weapon");
    let message = fx.error(
        "gameobject_rename",
        json!({"id": PLAYER, "name": " "}),
        "validation",
    );
    assert!(message.contains("blank"), "{message}");
}

#[test]
fn set_transform_changes_only_what_is_given() {
    let fx = Fixture::new();
    let changed = fx.ok(
        "gameobject_set_transform",
        json!({"id": PLAYER, "position": {"x": 4, "y": 0, "z": -1}}),
    );
    assert_eq!(
        changed["before"]["position"],
        json!({"x": 0.0, "y": 1.0, "z": 0.0})
    );
    assert_eq!(
        changed["after"]["position"],
        json!({"x": 4.0, "y": 0.0, "z": -1.0})
    );
    assert_eq!(changed["after"]["scale"], changed["before"]["scale"]);

    fx.ok(
        "gameobject_set_transform",
        json!({"id": PLAYER, "scale": {"x": 2, "y": 2, "z": 2}}),
    );
    fx.ok("scene_save", json!({}));
    let player = fx.object_in_file(MAIN, "Player").unwrap();
    assert_eq!(
        player["transform"]["position"],
        json!({"x": 4.0, "y": 0.0, "z": -1.0})
    );
    assert_eq!(
        player["transform"]["scale"],
        json!({"x": 2.0, "y": 2.0, "z": 2.0})
    );

    let message = fx.error(
        "gameobject_set_transform",
        json!({"id": PLAYER}),
        "validation",
    );
    assert!(message.contains("at least one"), "{message}");
    fx.fails(
        "gameobject_set_transform",
        json!({"id": PLAYER, "position": [1, 2, 3]}),
        "validation",
    );
}

#[test]
fn set_position_is_a_deprecated_alias() {
    let fx = Fixture::new();
    let envelope = fx.call(
        "gameobject_set_position",
        json!({"id": CAMERA, "position": {"x": 0, "y": 5, "z": -5}}),
    );
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert_eq!(envelope["data"]["after"]["position"]["y"], 5.0);
    let warning = envelope["warnings"][0].as_str().unwrap();
    assert!(warning.contains("deprecated"), "{warning}");
    assert!(warning.contains("gameobject_set_transform"), "{warning}");
}

#[test]
fn inactive_parents_hide_their_children() {
    let fx = Fixture::new();
    let changed = fx.ok(
        "gameobject_set_active",
        json!({"id": PLAYER, "active": false}),
    );
    assert_eq!(changed["active_in_hierarchy"], false);
    let weapon = fx.ok("gameobject_get", json!({"id": WEAPON}));
    assert_eq!(weapon["active"], true);
    assert_eq!(weapon["active_in_hierarchy"], false);
    fx.ok("scene_save", json!({}));
    assert_eq!(fx.object_in_file(MAIN, "Player").unwrap()["active"], false);
}

#[test]
fn components_are_added_and_removed() {
    let fx = Fixture::new();
    let added = fx.ok(
        "gameobject_add_component",
        json!({"id": CAMERA, "component_type": "rotator", "properties": {"degrees_per_second": 10}}),
    );
    assert_eq!(added["component"], "Rotator");
    assert_eq!(
        added["components"],
        json!(["Camera", "AudioListener", "Rotator"])
    );

    let message = fx.error(
        "gameobject_add_component",
        json!({"id": PLAYER, "component_type": "Rigidbody"}),
        "validation",
    );
    assert!(message.contains("already has a Rigidbody"), "{message}");
    let message = fx.error(
        "gameobject_add_component",
        json!({"id": PLAYER, "component_type": "Transform"}),
        "validation",
    );
    assert!(message.contains("gameobject_set_transform"), "{message}");

    let removed = fx.ok(
        "gameobject_remove_component",
        json!({"id": PLAYER, "component_type": "Rigidbody"}),
    );
    assert_eq!(
        removed["components"],
        json!([
            "MeshFilter",
            "MeshRenderer",
            "CapsuleCollider",
            "PlayerController"
        ])
    );
    let message = fx.error(
        "gameobject_remove_component",
        json!({"id": PLAYER, "component_type": "Rigidbody"}),
        "validation",
    );
    assert!(message.contains("has no Rigidbody component"), "{message}");
    assert!(message.contains("CapsuleCollider"), "{message}");

    fx.ok("scene_save", json!({}));
    let camera = fx.object_in_file(MAIN, "Main Camera").unwrap();
    assert_eq!(camera["components"][2]["type"], "Rotator");
    assert_eq!(
        camera["components"][2]["properties"]["degrees_per_second"],
        10
    );
}

#[test]
fn set_parent_moves_objects_and_refuses_cycles() {
    let fx = Fixture::new();
    let message = fx.error(
        "gameobject_set_parent",
        json!({"id": PLAYER, "parent": WEAPON}),
        "validation",
    );
    assert!(message.contains("its own descendant"), "{message}");
    let message = fx.error(
        "gameobject_set_parent",
        json!({"id": PLAYER, "parent": PLAYER}),
        "validation",
    );
    assert!(message.contains("own parent"), "{message}");

    let moved = fx.ok(
        "gameobject_set_parent",
        json!({"id": WEAPON, "parent": CAMERA}),
    );
    assert_eq!(moved["old_parent"], PLAYER);
    assert_eq!(moved["path"], "Main Camera/Weapon");
    let to_root = fx.ok("gameobject_set_parent", json!({"id": WEAPON}));
    assert_eq!(to_root["parent"], json!(null));
    assert_eq!(to_root["path"], "Weapon");

    fx.ok(
        "gameobject_set_parent",
        json!({"id": WEAPON, "parent": GROUND}),
    );
    fx.ok("scene_save", json!({}));
    assert_eq!(fx.object_in_file(MAIN, "Weapon").unwrap()["parent"], GROUND);
}

#[test]
fn objects_are_looked_up_in_the_named_scene() {
    let fx = Fixture::new();
    fx.ok(
        "scene_create",
        json!({"path": "Assets/Scenes/Two.scene", "template": "empty", "open": true}),
    );
    let message = fx.error("gameobject_get", json!({"id": PLAYER}), "validation");
    assert_eq!(
        message,
        "no game object with id 4 in scene Two; gameobject_find lists them"
    );
    let player = fx.ok("gameobject_get", json!({"id": PLAYER, "scene": "Main"}));
    assert_eq!(player["scene"], "Main");
    let found = fx.ok(
        "gameobject_find",
        json!({"name": "Player", "match_mode": "exact"}),
    );
    assert_eq!(found["results"][0]["scene"], "Main");
}
