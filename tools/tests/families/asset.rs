//! The `asset_` tools on a fresh sample project.

use std::sync::{Arc, Mutex};

use crate::common::{Fixture, MAIN};
use buril::context::Progress;
use buril::{CallOptions, CancelToken};
use serde_json::{Value, json};

fn paths(listing: &Value, key: &str) -> Vec<String> {
    listing[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn list_filters_by_glob_and_kind() {
    let fx = Fixture::new();
    let materials = fx.ok("asset_list", json!({"pattern": "*.mat"}));
    assert_eq!(
        paths(&materials, "assets"),
        ["Assets/Materials/Ground.mat", "Assets/Materials/Red.mat"]
    );
    assert_eq!(materials["assets"][0]["kind"], "material");

    let by_kind = fx.ok("asset_list", json!({"kinds": ["prefab", "scene"]}));
    assert_eq!(
        paths(&by_kind, "assets"),
        [
            "Assets/Prefabs/Coin.prefab",
            "Assets/Prefabs/Enemy.prefab",
            "Assets/Scenes/Main.scene"
        ]
    );
    let top = fx.ok(
        "asset_list",
        json!({"recursive": false, "kinds": ["folder"]}),
    );
    assert_eq!(top["total_count"], 4);
    let few = fx.ok("asset_list", json!({"max_results": 3}));
    assert_eq!(few["assets"].as_array().unwrap().len(), 3);
    assert_eq!(few["truncated"], true);
    assert!(few["total_count"].as_u64().unwrap() > 3);

    let message = fx.error("asset_list", json!({"folder": "Library"}), "validation");
    assert!(message.contains("outside `Assets/`"), "{message}");
    let message = fx.error(
        "asset_list",
        json!({"folder": "Assets/../.."}),
        "validation",
    );
    assert!(message.contains("leaves the project folder"), "{message}");
    fx.fails("asset_list", json!({"kinds": ["sprite"]}), "validation");
}

#[test]
fn read_returns_text_and_refuses_binaries() {
    let fx = Fixture::new();
    let read = fx.ok("asset_read", json!({"path": "Assets/Scripts/Rotator.cs"}));
    assert_eq!(read["kind"], "script");
    assert_eq!(read["content"], fx.read("Assets/Scripts/Rotator.cs"));
    assert_eq!(read["truncated"], false);

    let cut = fx.ok(
        "asset_read",
        json!({"path": "Assets/Scripts/Rotator.cs", "max_bytes": 10}),
    );
    assert_eq!(cut["content"], "using Unit");
    assert_eq!(cut["truncated"], true);

    std::fs::write(
        fx.path("Assets/logo.png"),
        [0x89, b'P', b'N', b'G', 0xff, 0xfe],
    )
    .unwrap();
    let message = fx.error(
        "asset_read",
        json!({"path": "Assets/logo.png"}),
        "validation",
    );
    assert!(message.contains("binary"), "{message}");
    let message = fx.error(
        "asset_read",
        json!({"path": "Assets/Missing.mat"}),
        "validation",
    );
    assert!(message.contains("asset_list"), "{message}");
    let message = fx.error(
        "asset_read",
        json!({"path": "Assets/Scripts"}),
        "validation",
    );
    assert!(message.contains("is a folder"), "{message}");
    let message = fx.error(
        "asset_read",
        json!({"path": "ProjectSettings/ProjectVersion.txt"}),
        "validation",
    );
    assert!(message.contains("outside `Assets/`"), "{message}");
}

#[test]
fn create_folder_is_idempotent() {
    let fx = Fixture::new();
    let first = fx.ok(
        "asset_create_folder",
        json!({"path": "Assets/Art/Textures"}),
    );
    assert_eq!(first["created"], true);
    assert!(fx.path("Assets/Art/Textures").is_dir());
    let second = fx.ok(
        "asset_create_folder",
        json!({"path": "Assets/Art/Textures/"}),
    );
    assert_eq!(second["created"], false);
    assert_eq!(second["path"], "Assets/Art/Textures");
    let message = fx.error(
        "asset_create_folder",
        json!({"path": "Assets/Materials/Red.mat"}),
        "validation",
    );
    assert!(message.contains("is a file"), "{message}");
}

#[test]
fn create_material_writes_the_file() {
    let fx = Fixture::new();
    let created = fx.ok(
        "asset_create_material",
        json!({
            "path": "Assets/Materials/Blue.mat",
            "color": {"r": 0.1, "g": 0.2, "b": 0.9},
            "properties": {"_Metallic": 0.3}
        }),
    );
    assert_eq!(created["material"]["shader"], "Standard");
    let file = fx.read_json("Assets/Materials/Blue.mat");
    assert_eq!(
        file["color"],
        json!({"r": 0.1, "g": 0.2, "b": 0.9, "a": 1.0})
    );
    assert_eq!(file["properties"]["_Metallic"], 0.3);
    assert_eq!(
        created["bytes"],
        std::fs::metadata(fx.path("Assets/Materials/Blue.mat"))
            .unwrap()
            .len()
    );

    let message = fx.error(
        "asset_create_material",
        json!({"path": "Assets/Materials/Hot.mat", "color": {"r": 255, "g": 0, "b": 0}}),
        "validation",
    );
    assert!(message.contains("`color.r` is 255"), "{message}");
    assert!(!fx.path("Assets/Materials/Hot.mat").exists());
    let message = fx.error(
        "asset_create_material",
        json!({"path": "Assets/Materials/Blue.mat"}),
        "validation",
    );
    assert!(message.contains("already exists"), "{message}");
    fx.fails(
        "asset_create_material",
        json!({"path": "Assets/Materials/X.mat", "properties": {"_Metallic": "high"}}),
        "validation",
    );
}

#[test]
fn move_keeps_references_working() {
    let fx = Fixture::new();
    let moved = fx.ok(
        "asset_move",
        json!({"from": "Assets/Materials/Red.mat", "to": "Assets/Art/Crimson.mat"}),
    );
    assert_eq!(moved["files_moved"], 1);
    assert!(!fx.path("Assets/Materials/Red.mat").exists());
    assert!(fx.path("Assets/Art/Crimson.mat").is_file());
    assert_eq!(
        moved["updated_references"],
        json!([
            "Assets/Prefabs/Coin.prefab",
            "Assets/Prefabs/Enemy.prefab",
            "Assets/Scenes/Main.scene"
        ])
    );
    let coin = fx.read_json("Assets/Prefabs/Coin.prefab");
    assert_eq!(
        coin["objects"][0]["components"][1]["properties"]["material"],
        "Assets/Art/Crimson.mat"
    );
    // The open scene changed in memory: unsaved until scene_save.
    assert!(fx.read(MAIN).contains("Assets/Materials/Red.mat"));
    assert_eq!(fx.ok("scene_list", json!({}))["scenes"][0]["dirty"], true);
    fx.ok("scene_save", json!({}));
    let main = fx.read(MAIN);
    assert!(!main.contains("Assets/Materials/Red.mat"));
    assert!(main.contains("Assets/Art/Crimson.mat"));
}

#[test]
fn moving_a_folder_carries_open_scenes_along() {
    let fx = Fixture::new();
    let moved = fx.ok(
        "asset_move",
        json!({"from": "Assets/Scenes", "to": "Assets/Levels/World1"}),
    );
    assert_eq!(moved["moved_open_scenes"], json!(["Main"]));
    assert!(fx.path("Assets/Levels/World1/Main.scene").is_file());
    let state = fx.ok("editor_state", json!({}));
    assert_eq!(
        state["open_scenes"][0]["path"],
        "Assets/Levels/World1/Main.scene"
    );
    let saved = fx.ok("scene_save", json!({}));
    assert_eq!(saved["path"], "Assets/Levels/World1/Main.scene");
    assert!(!fx.path(MAIN).exists());
    let session = fx.read_json("Library/EditorSession.json");
    assert_eq!(session["active_scene"], "Assets/Levels/World1/Main.scene");
}

#[test]
fn move_refuses_clashes_and_type_changes() {
    let fx = Fixture::new();
    let cases = [
        (
            json!({"from": "Assets/Materials/Red.mat", "to": "Assets/Materials/Ground.mat"}),
            "already exists",
        ),
        (
            json!({"from": "Assets/Materials/Red.mat", "to": "Assets/Materials/Red.prefab"}),
            "extension",
        ),
        (
            json!({"from": "Assets/Materials", "to": "Assets/Materials/Old"}),
            "into itself",
        ),
        (
            json!({"from": "Assets/Nothing.mat", "to": "Assets/Else.mat"}),
            "no asset at",
        ),
        (
            json!({"from": "Assets/Materials/Red.mat", "to": "../Red.mat"}),
            "leaves the project",
        ),
    ];
    for (input, expected) in cases {
        let message = fx.error("asset_move", input.clone(), "validation");
        assert!(message.contains(expected), "{input}: {message}");
    }
    assert!(fx.path("Assets/Materials/Red.mat").is_file());
}

#[test]
fn delete_is_off_until_enabled() {
    let fx = Fixture::new();
    let message = fx.error(
        "asset_delete",
        json!({"path": "Assets/Materials/Red.mat"}),
        "disabled",
    );
    assert!(message.contains("dangerous"), "{message}");
    assert!(fx.path("Assets/Materials/Red.mat").is_file());
}

#[test]
fn delete_removes_files_and_reports_broken_references() {
    let fx = Fixture::dangerous();
    let size = std::fs::metadata(fx.path("Assets/Materials/Red.mat"))
        .unwrap()
        .len();
    let deleted = fx.ok("asset_delete", json!({"path": "Assets/Materials/Red.mat"}));
    assert!(!fx.path("Assets/Materials/Red.mat").exists());
    assert_eq!(deleted["files_deleted"], 1);
    assert_eq!(deleted["bytes_freed"], size);
    assert_eq!(
        deleted["broken_references"],
        json!([
            "Assets/Prefabs/Coin.prefab",
            "Assets/Prefabs/Enemy.prefab",
            "Assets/Scenes/Main.scene"
        ])
    );

    let message = fx.error(
        "asset_delete",
        json!({"path": "Assets/Prefabs"}),
        "validation",
    );
    assert!(message.contains("recursive: true"), "{message}");
    assert!(fx.path("Assets/Prefabs/Coin.prefab").exists());
    let deleted = fx.ok(
        "asset_delete",
        json!({"path": "Assets/Prefabs", "recursive": true}),
    );
    assert_eq!(deleted["files_deleted"], 2);
    assert!(!fx.path("Assets/Prefabs").exists());

    let message = fx.error("asset_delete", json!({"path": MAIN}), "validation");
    assert!(message.contains("scene_close"), "{message}");
    let message = fx.error("asset_delete", json!({"path": "Assets"}), "validation");
    assert!(message.contains("`Assets` folder itself"), "{message}");
    let message = fx.error("asset_delete", json!({"path": "/tmp"}), "validation");
    assert!(message.contains("absolute"), "{message}");
    assert!(fx.path(MAIN).exists());
}

#[test]
fn search_finds_text_and_names() {
    let fx = Fixture::new();
    let found = fx.ok("asset_search", json!({"query": "rotator"}));
    assert_eq!(found["name_matches"], json!(["Assets/Scripts/Rotator.cs"]));
    let hits: Vec<(String, u64)> = found["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_owned(),
                m["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        hits.contains(&("Assets/Scripts/Rotator.cs".to_owned(), 4)),
        "{hits:?}"
    );
    assert!(
        hits.iter().any(|(p, _)| p == "Assets/Scenes/Main.scene"),
        "{hits:?}"
    );
    assert_eq!(found["files_scanned"], 8);

    let exact = fx.ok(
        "asset_search",
        json!({"query": "rotator", "case_sensitive": true, "pattern": "*.cs"}),
    );
    assert_eq!(exact["total_matches"], 0);
    let limited = fx.ok("asset_search", json!({"query": "e", "max_results": 2}));
    assert_eq!(limited["matches"].as_array().unwrap().len(), 2);
    assert_eq!(limited["truncated"], true);
    fx.fails("asset_search", json!({"query": ""}), "validation");
}

#[test]
fn search_reports_progress_for_each_file() {
    let fx = Fixture::new();
    let reports: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = Arc::clone(&reports);
    let options = CallOptions::new().progress(Arc::new(move |p| sink.lock().unwrap().push(p)));
    let outcome = fx
        .dispatcher
        .invoke("asset_search", json!({"query": "Player"}), options);
    assert!(outcome.is_ok(), "{:?}", outcome.error());
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 9, "one per file, then done");
    assert!(reports.iter().all(|r| r.tool == "asset_search"));
    assert!(reports.iter().all(|r| r.total == Some(8.0)));
    assert_eq!(reports[0].progress, 0.0);
    assert_eq!(reports[8].progress, 8.0);
    assert_eq!(
        reports[0].message.as_deref(),
        Some("Assets/Materials/Ground.mat")
    );
}

#[test]
fn search_stops_when_cancelled() {
    let fx = Fixture::new();
    let token = CancelToken::new();
    let reports: Arc<Mutex<usize>> = Arc::default();
    let (sink, cancel) = (Arc::clone(&reports), token.clone());
    let options = CallOptions::new()
        .cancel(token)
        .progress(Arc::new(move |_| {
            *sink.lock().unwrap() += 1;
            cancel.cancel();
        }));
    let envelope = fx
        .dispatcher
        .invoke("asset_search", json!({"query": "Player"}), options)
        .into_envelope();
    assert_eq!(envelope["ok"], false);
    assert_eq!(envelope["type"], "cancelled");
    assert_eq!(*reports.lock().unwrap(), 1, "kept going after the cancel");
}

#[test]
fn moves_made_in_play_mode_outlive_it() {
    let fx = Fixture::new();
    fx.ok("editor_play_mode_set", json!({"mode": "playing"}));
    fx.ok(
        "asset_move",
        json!({"from": "Assets/Scenes/Main.scene", "to": "Assets/Main.scene"}),
    );
    fx.ok("editor_play_mode_set", json!({"mode": "stopped"}));
    let state = fx.ok("editor_state", json!({}));
    assert_eq!(state["open_scenes"][0]["path"], "Assets/Main.scene");
    let saved = fx.ok("scene_save", json!({}));
    assert_eq!(saved["path"], "Assets/Main.scene");
    assert!(!fx.path(MAIN).exists());
}

#[cfg(unix)]
#[test]
fn symbolic_links_cannot_lead_outside_the_project() {
    let fx = Fixture::new();
    let outside = tempfile::TempDir::new().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.path("Assets/Linked")).unwrap();
    let message = fx.error(
        "asset_read",
        json!({"path": "Assets/Linked/secret.txt"}),
        "validation",
    );
    assert!(message.contains("symbolic link"), "{message}");
    let message = fx.error(
        "asset_create_material",
        json!({"path": "Assets/Linked/New.mat"}),
        "validation",
    );
    assert!(message.contains("symbolic link"), "{message}");
    assert!(!outside.path().join("New.mat").exists());
    let listed = fx.ok("asset_list", json!({"pattern": "*secret*"}));
    assert_eq!(listed["total_count"], 0);
}

#[test]
fn read_is_an_async_tool() {
    let tool = buril::registry().get("asset_read").unwrap();
    assert!(tool.is_async());
    assert!(tool.threading().is_off_thread());
}

/// A Unity `.meta` for an asset, holding `guid`.
fn meta_of(guid: &str) -> String {
    format!("fileFormatVersion: 2\nguid: {guid}\nNativeFormatImporter:\n  userData: \n")
}

fn guid_in(meta: &str) -> String {
    meta.lines()
        .find_map(|line| line.strip_prefix("guid: "))
        .expect("a guid line")
        .to_owned()
}

#[test]
fn meta_files_go_where_their_assets_go() {
    let fx = Fixture::dangerous();
    let red = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";
    fx.write("Assets/Materials/Red.mat.meta", &meta_of(red));
    fx.write(
        "Assets/Materials.meta",
        "fileFormatVersion: 2\nguid: 11111111111111111111111111111111\nfolderAsset: yes\n",
    );
    // `.meta` files are not assets: listings leave them out.
    let listed = fx.ok("asset_list", json!({"folder": "Assets/Materials"}));
    assert!(
        paths(&listed, "assets")
            .iter()
            .all(|path| !path.ends_with(".meta")),
        "{listed}"
    );

    // A move into folders that do not exist yet: the asset's GUID goes with it, and each new
    // folder gets a `.meta` of its own.
    fx.ok(
        "asset_move",
        json!({"from": "Assets/Materials/Red.mat", "to": "Assets/Art/Colours/Crimson.mat"}),
    );
    assert!(!fx.path("Assets/Materials/Red.mat.meta").exists());
    assert_eq!(
        guid_in(&fx.read("Assets/Art/Colours/Crimson.mat.meta")),
        red
    );
    let art = guid_in(&fx.read("Assets/Art.meta"));
    let colours = guid_in(&fx.read("Assets/Art/Colours.meta"));
    assert!(fx.read("Assets/Art.meta").contains("folderAsset: yes"));
    assert_ne!(art, colours);
    for guid in [&art, &colours] {
        assert_eq!(guid.len(), 32, "{guid}");
        assert!(guid.chars().all(|c| c.is_ascii_hexdigit()), "{guid}");
    }

    // A folder moves with its own `.meta` (and those of everything inside it).
    fx.ok(
        "asset_move",
        json!({"from": "Assets/Art", "to": "Assets/Graphics"}),
    );
    assert!(!fx.path("Assets/Art.meta").exists());
    assert_eq!(guid_in(&fx.read("Assets/Graphics.meta")), art);
    assert_eq!(
        guid_in(&fx.read("Assets/Graphics/Colours/Crimson.mat.meta")),
        red
    );

    // A new folder, and its missing parents, each with a `.meta`.
    fx.ok("asset_create_folder", json!({"path": "Assets/Audio/Music"}));
    assert!(fx.read("Assets/Audio.meta").contains("folderAsset: yes"));
    assert!(
        fx.read("Assets/Audio/Music.meta")
            .contains("folderAsset: yes")
    );
    assert_ne!(
        guid_in(&fx.read("Assets/Audio.meta")),
        guid_in(&fx.read("Assets/Audio/Music.meta"))
    );

    // Deleting an asset or a folder deletes its `.meta`: no orphan is left for the editor to
    // complain about.
    fx.ok(
        "asset_delete",
        json!({"path": "Assets/Graphics/Colours/Crimson.mat"}),
    );
    assert!(!fx.path("Assets/Graphics/Colours/Crimson.mat.meta").exists());
    fx.ok(
        "asset_delete",
        json!({"path": "Assets/Graphics", "recursive": true}),
    );
    assert!(!fx.path("Assets/Graphics.meta").exists());
    fx.ok(
        "asset_delete",
        json!({"path": "Assets/Audio", "recursive": true}),
    );
    assert!(!fx.path("Assets/Audio.meta").exists());
}
