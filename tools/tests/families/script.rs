//! The `script_` tools on a fresh sample project.

use crate::common::{Fixture, PLAYER};
use serde_json::{Value, json};

fn codes(check: &Value) -> Vec<(String, String)> {
    check["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn create_writes_a_script_from_the_template() {
    let fx = Fixture::new();
    let created = fx.ok("script_create", json!({"class_name": "EnemySpawner"}));
    assert_eq!(created["path"], "Assets/Scripts/EnemySpawner.cs");
    assert_eq!(created["kind"], "mono_behaviour");
    let text = fx.read("Assets/Scripts/EnemySpawner.cs");
    assert!(
        text.contains("public class EnemySpawner : MonoBehaviour"),
        "{text}"
    );
    assert!(!text.contains("#SCRIPTNAME#"));
    assert_eq!(created["lines"], text.lines().count());

    let added = fx.ok(
        "gameobject_add_component",
        json!({"id": PLAYER, "component_type": "EnemySpawner"}),
    );
    assert_eq!(added["component"], "EnemySpawner");
}

#[test]
fn create_wraps_namespaces_and_places_editor_scripts() {
    let fx = Fixture::new();
    fx.ok(
        "script_create",
        json!({"class_name": "Loot", "kind": "scriptable_object", "namespace": "Game.Items", "folder": "Assets/Data"}),
    );
    let text = fx.read("Assets/Data/Loot.cs");
    assert!(text.contains("namespace Game.Items\n{\n"), "{text}");
    assert!(
        text.contains("    public class Loot : ScriptableObject"),
        "{text}"
    );

    let created = fx.ok(
        "script_create",
        json!({"class_name": "LevelTools", "kind": "editor_window"}),
    );
    assert_eq!(created["path"], "Assets/Editor/LevelTools.cs");
    assert!(
        fx.read("Assets/Editor/LevelTools.cs")
            .contains("GetWindow<LevelTools>")
    );

    let message = fx.error(
        "script_create",
        json!({"class_name": "Tools2", "kind": "editor_window", "folder": "Assets/Scripts"}),
        "validation",
    );
    assert!(message.contains("folder named `Editor`"), "{message}");
    assert!(!fx.path("Assets/Scripts/Tools2.cs").exists());
}

#[test]
fn create_rejects_bad_names_and_clashes() {
    let fx = Fixture::new();
    for (name, expected) in [
        ("Enemy Spawner", "not a C# class name"),
        ("class", "not a C# class name"),
        ("9Lives", "not a C# class name"),
        ("Rotator", "already exists"),
    ] {
        let message = fx.error("script_create", json!({"class_name": name}), "validation");
        assert!(message.contains(expected), "{name}: {message}");
    }
    let message = fx.error(
        "script_create",
        json!({"class_name": "Rotator", "folder": "Assets/Other"}),
        "validation",
    );
    assert!(
        message.contains("already declared in `Assets/Scripts/Rotator.cs`"),
        "{message}"
    );
    let message = fx.error(
        "script_create",
        json!({"class_name": "Ok", "namespace": "Game..Bad"}),
        "validation",
    );
    assert!(message.contains("namespace"), "{message}");
    let message = fx.error(
        "script_create",
        json!({"class_name": "Ok", "folder": "../Scripts"}),
        "validation",
    );
    assert!(message.contains("leaves the project folder"), "{message}");
}

#[test]
fn list_shows_types_and_components() {
    let fx = Fixture::new();
    fx.write(
        "Assets/Scripts/Boss.cs",
        "using UnityEngine;\npublic class Boss : PlayerController { }\npublic enum Phase { One, Two }\n",
    );
    let listing = fx.ok("script_list", json!({}));
    let scripts = listing["scripts"].as_array().unwrap();
    let paths: Vec<&str> = scripts
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "Assets/Scripts/Boss.cs",
            "Assets/Scripts/GameSettings.cs",
            "Assets/Scripts/PlayerController.cs",
            "Assets/Scripts/Rotator.cs"
        ]
    );
    let boss = &scripts[0]["types"];
    assert_eq!(boss[0]["name"], "Boss");
    assert_eq!(boss[0]["base"], "PlayerController");
    assert_eq!(boss[0]["component"], true, "derives from a MonoBehaviour");
    assert_eq!(boss[1]["keyword"], "enum");
    assert_eq!(boss[1]["component"], false);
    let settings = &scripts[1]["types"][0];
    assert_eq!(settings["base"], "ScriptableObject");
    assert_eq!(settings["component"], false);
    assert_eq!(settings["line"], 5);

    let only = fx.ok("script_list", json!({"folder": "Assets/Scenes"}));
    assert_eq!(only["scripts"], json!([]));
}

#[test]
fn find_references_skips_comments_and_finds_components() {
    let fx = Fixture::new();
    fx.write(
        "Assets/Scripts/Follow.cs",
        "using UnityEngine;\n\
         // PlayerController is mentioned here only in a comment.\n\
         public class Follow : MonoBehaviour\n\
         {\n    \
             PlayerController target;\n    \
             string label = \"PlayerController\";\n\
         }\n",
    );
    let found = fx.ok(
        "script_find_references",
        json!({"symbol": "PlayerController"}),
    );
    assert_eq!(
        found["declarations"],
        json!([{"path": "Assets/Scripts/PlayerController.cs", "line": 4}])
    );
    assert_eq!(found["code_total"], 1);
    assert_eq!(
        found["code"][0],
        json!({
            "path": "Assets/Scripts/Follow.cs",
            "line": 5,
            "column": 5,
            "text": "PlayerController target;"
        })
    );
    assert_eq!(
        found["components"],
        json!([{"asset": "Assets/Scenes/Main.scene", "object_id": PLAYER, "object_path": "Player"}])
    );

    fx.ok(
        "gameobject_remove_component",
        json!({"id": PLAYER, "component_type": "PlayerController"}),
    );
    let edited = fx.ok(
        "script_find_references",
        json!({"symbol": "PlayerController"}),
    );
    assert_eq!(
        edited["components"],
        json!([]),
        "open scenes are searched as edited"
    );

    let field = fx.ok(
        "script_find_references",
        json!({"symbol": "jumpHeight", "include_assets": false}),
    );
    assert_eq!(field["code_total"], 2);
    assert_eq!(field["declarations"], json!([]));
    let message = fx.error(
        "script_find_references",
        json!({"symbol": "Player Controller"}),
        "validation",
    );
    assert!(message.contains("not a C# name"), "{message}");
}

#[test]
fn check_passes_the_sample_and_finds_mistakes() {
    let fx = Fixture::new();
    let clean = fx.ok("script_check", json!({}));
    assert_eq!(clean["files_checked"], 3);
    assert_eq!(clean["error_count"], 0);
    assert_eq!(clean["diagnostics"], json!([]));

    fx.write(
        "Assets/Scripts/Broken.cs",
        "using UnityEngine;\npublic class Broken : MonoBehaviour\n{\n    void Update()\n    {\n        Debug.Log(\"}\");\n}\n",
    );
    fx.write(
        "Assets/Scripts/Wrong.cs",
        "public class Enemy : MonoBehaviour\n{\n}\n",
    );
    fx.write(
        "Assets/Other/Rotator.cs",
        "using UnityEngine;\npublic class Rotator : MonoBehaviour { }\n",
    );
    let check = fx.ok("script_check", json!({}));
    let found = codes(&check);
    let expected = [
        ("Assets/Other/Rotator.cs", "CS0101"),
        ("Assets/Scripts/Broken.cs", "CS1513"),
        ("Assets/Scripts/Rotator.cs", "CS0101"),
        ("Assets/Scripts/Wrong.cs", "file_name"),
        ("Assets/Scripts/Wrong.cs", "CS0246"),
    ];
    for (path, code) in expected {
        assert!(
            found.contains(&(path.to_owned(), code.to_owned())),
            "missing {code} in {path}: {check:#}"
        );
    }
    assert_eq!(check["error_count"], 5, "{check:#}");
    let broken = check["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "CS1513")
        .unwrap();
    assert_eq!(broken["line"], 3);
    assert!(broken["message"].as_str().unwrap().contains("never closed"));

    let one = fx.ok("script_check", json!({"path": "Assets/Scripts/Wrong.cs"}));
    assert_eq!(one["files_checked"], 1);
    assert_eq!(one["error_count"], 2);
    let message = fx.error(
        "script_check",
        json!({"path": "Assets/Nope.cs"}),
        "validation",
    );
    assert!(message.contains("does not exist"), "{message}");
}

#[test]
fn check_warns_about_empty_unity_messages() {
    let fx = Fixture::new();
    fx.ok("script_create", json!({"class_name": "Spawner"}));
    let check = fx.ok("script_check", json!({"path": "Assets/Scripts/Spawner.cs"}));
    assert_eq!(check["error_count"], 0);
    assert_eq!(check["warning_count"], 2, "{check:#}");
    let lines: Vec<u64> = check["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6, 11]);
    assert_eq!(check["diagnostics"][0]["severity"], "warning");
    assert_eq!(check["diagnostics"][0]["code"], "UNT0001");
}
