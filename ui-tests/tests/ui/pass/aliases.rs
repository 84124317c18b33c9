use buril_test_support::call;
use serde_json::json;

/// Opens a scene.
#[buril::tool(aliases = ["scene_load", "level_load"])]
fn scene_open() -> u32 {
    7
}

fn main() {
    let lookup = buril::registry().lookup("scene_load").unwrap();
    assert!(lookup.via_alias);
    assert_eq!(lookup.tool.name(), "scene_open");
    assert_eq!(lookup.tool.aliases(), ["scene_load", "level_load"]);

    let envelope = call("level_load", json!({}));
    assert_eq!(envelope["data"]["result"], 7);
    let warning = envelope["warnings"][0].as_str().unwrap();
    assert!(warning.contains("deprecated"), "{warning}");
    let envelope = call("scene_open", json!({}));
    assert!(envelope.get("warnings").is_none());
}
