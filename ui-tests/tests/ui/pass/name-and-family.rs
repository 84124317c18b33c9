/// Hands the task to another agent of the team.
#[buril::tool(family = "agent_team")]
fn agent_team_handoff() {}

/// Opens a scene file.
#[buril::tool(name = "scene_open")]
fn open_scene_file() {}

fn main() {
    let registry = buril::registry();
    let handoff = registry.get("agent_team_handoff").unwrap();
    assert_eq!(handoff.family(), "agent_team");
    assert_eq!(registry.get("scene_open").unwrap().family(), "scene");
    assert!(registry.get("open_scene_file").is_none());
    assert_eq!(registry.families(), ["agent_team", "scene"]);
}
