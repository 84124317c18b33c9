//! A run's spans, as OpenTelemetry's semantic conventions for generative AI name them: one
//! `invoke_agent` around the run, a `chat` per model call and an `execute_tool` per tool call
//! inside it, captured by a `tracing` subscriber of the test's own (its own test binary: the
//! subscriber is the process's global one).

mod common;

use std::sync::Arc;

use buril_team::RunState;
use buril_team::ScriptedModel;
use buril_test_support::capture::{Captured, Seen};
use common::{Fixture, shared};
use serde_json::json;

#[test]
fn a_run_is_an_invoke_agent_span_with_chat_and_execute_tool_spans_inside() {
    let captured = Captured::global_of(Some(
        tracing_subscriber::filter::Targets::new()
            .with_target("buril_team::genai", tracing::Level::INFO),
    ));

    let model = shared(
        ScriptedModel::new()
            .call("scene_list", json!({}))
            .call("scene_open", json!({"path": "Assets/Scenes/Nowhere.scene"}))
            .report("done"),
    );
    let fx = Fixture::new(Arc::clone(&model));
    let handle = fx.handoff(json!({"specialist": "scene-inspector", "brief": "Look around."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored, "{run:?}");

    let spans = captured.spans.lock().unwrap().clone();
    let named = |name: &str| -> Vec<(u64, Seen)> {
        spans
            .iter()
            .filter(|(_, seen)| seen.name == name)
            .map(|(id, seen)| (*id, seen.clone()))
            .collect()
    };
    let agents = named("invoke_agent");
    assert_eq!(agents.len(), 1, "{spans:#?}");
    let (agent_id, agent) = &agents[0];
    assert_eq!(agent.fields["otel.name"], "invoke_agent scene-inspector");
    assert_eq!(agent.fields["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent.fields["gen_ai.agent.name"], "scene-inspector");
    assert_eq!(agent.fields["gen_ai.provider.name"], "openai");
    // The second call fails twice (retried once): the run errs.
    assert_eq!(agent.fields["error.type"], "errored");

    let chats = named("chat");
    assert_eq!(
        chats.len(),
        2,
        "two model steps before the run ended: {chats:#?}"
    );
    for (_, chat) in &chats {
        assert_eq!(chat.parent, Some(*agent_id));
        assert_eq!(chat.fields["gen_ai.operation.name"], "chat");
        assert_eq!(chat.fields["gen_ai.response.finish_reasons"], "tool_calls");
    }

    let tools = named("execute_tool");
    let brief: Vec<(String, String, Option<String>)> = tools
        .iter()
        .map(|(_, seen)| {
            (
                seen.fields["otel.name"].clone(),
                seen.fields["buril.attempt"].clone(),
                seen.fields.get("error.type").cloned(),
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            ("execute_tool scene_list".to_owned(), "1".to_owned(), None),
            (
                "execute_tool scene_open".to_owned(),
                "1".to_owned(),
                Some("tool_error".to_owned())
            ),
            (
                "execute_tool scene_open".to_owned(),
                "2".to_owned(),
                Some("tool_error".to_owned())
            ),
        ]
    );
    for (_, tool) in &tools {
        assert_eq!(tool.parent, Some(*agent_id));
        assert_eq!(tool.fields["gen_ai.operation.name"], "execute_tool");
        assert!(tool.fields.contains_key("gen_ai.tool.call.id"));
    }
}
