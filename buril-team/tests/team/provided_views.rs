//! A specialist's tool view matches tools provided at run time (an external server's, through
//! the hub): `cascadeur_*` resolves to the provider's tools, the model is offered them, and the
//! run calls them through the dispatcher.

use std::time::Duration;

use buril::provided::{Args, ProvidedTool, Provider};
use buril::{DispatcherBuilder, Registry, ToolMeta};
use buril_team::{RunState, ScriptedModel, Specialist, Team, resolve_view};
use serde_json::json;

#[test]
fn a_view_of_a_providers_family_resolves_to_its_tools_and_runs_them() {
    let registry = Registry::leaked(buril::registry().linked().iter().copied()).unwrap();
    let cascadeur = Provider::new("cascadeur");
    cascadeur.set_enabled(true);
    let mut meta = ToolMeta::new("cascadeur_keyframe_run");
    meta.description = "Runs the keyframe solver on a clip.".into();
    let keyframe = ProvidedTool::new(
        meta,
        json!({"type": "object", "properties": {"clip": {"type": "string"}}, "required": ["clip"]}),
    )
    .original_name("keyframe_run")
    .output_schema(json!({"type": "object", "properties": {"frames": {"type": "integer"}}}))
    .handler(|_ctx, args: Args| async move {
        let clip = args.into_value()["clip"].as_str().unwrap_or_default().len();
        Ok(json!({"frames": clip * 10}))
    })
    .build()
    .unwrap();
    assert!(registry.provide(&cascadeur, vec![keyframe]).is_empty());

    let team = Team::builder()
        .specialist(Specialist::new("animator", "Animates clips.").tool_view(["cascadeur_*"]))
        .model(
            "default",
            ScriptedModel::new()
                .call("cascadeur_keyframe_run", json!({"clip": "walk"}))
                .report("Solved the walk."),
        )
        .build()
        .unwrap();
    let dispatcher = DispatcherBuilder::default()
        .registry(registry)
        .state(team.clone())
        .build();
    team.attach(&dispatcher);

    let view = buril::ToolView::parse(["cascadeur_*"]).unwrap();
    let (tools, missing) = resolve_view(&dispatcher, &view);
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["cascadeur_keyframe_run"]);
    assert!(missing.is_empty());

    let handoff = dispatcher
        .invoke(
            "agent_team_handoff",
            json!({"specialist": "animator", "brief": "Solve the walk."}),
            buril::CallOptions::default(),
        )
        .into_envelope();
    assert_eq!(
        handoff["data"]["tools"],
        json!(["cascadeur_keyframe_run"]),
        "{handoff}"
    );
    let handle = handoff["data"]["handle"].as_str().unwrap();
    let run = team
        .wait_for_blocking(handle, Duration::from_secs(10))
        .unwrap();
    assert_eq!(run.status, RunState::Done, "{run:?}");
    assert!(run.calls[0].ok, "{run:?}");
    assert_eq!(run.report.as_deref(), Some("Solved the walk."));
}
