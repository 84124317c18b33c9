//! End-to-end runs over the example tools with the scripted model: handoffs through the tools,
//! views resolved and enforced, the blocked, errored and cancelled paths, model overrides, the
//! headless API and the specialists' listing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Fixture, WAIT, shared};
use buril::policy::ToolPattern;
use buril::{Context, Policy, ToolError};
use buril_team::RunState;
use buril_team::{
    HandoffRequest, ModelReply, ScriptedModel, Specialist, Team, TeamError, ToolCall,
};
use buril_test_support::wait_until;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

#[test]
fn a_director_hands_off_to_the_scene_inspector_and_gets_its_report() {
    let model = shared(
        ScriptedModel::new()
            .call("scene_list", json!({}))
            .calls([
                ("gameobject_find", json!({"name": "Player"})),
                ("gameobject_get", json!({"id": 4})),
            ])
            .report_with_artifact("The player is object 4.", json!({"player": 4})),
    );
    let fx = Fixture::new(Arc::clone(&model));
    let started = fx.ok(
        "agent_team_handoff",
        json!({
            "specialist": "scene-inspector",
            "brief": "Find the player and describe it.",
        }),
    );
    assert_eq!(started["status"], "running", "{started}");
    assert_eq!(started["specialist"], "scene-inspector");
    assert_eq!(started["model"], "default");
    assert_eq!(started["missing"], json!([]));
    let tools: Vec<&str> = started["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"scene_list") && tools.contains(&"gameobject_find"));
    assert!(!tools.iter().any(|t| t.starts_with("asset_")), "{tools:?}");
    let handle = started["handle"].as_str().unwrap();
    assert!(
        handle.starts_with("task_") && handle.len() == 37,
        "{handle}"
    );

    let run = fx.wait(handle);
    assert_eq!(run.status, RunState::Done, "{run:?}");
    assert_eq!(run.report.as_deref(), Some("The player is object 4."));
    assert_eq!(run.artifact, Some(json!({"player": 4})));
    assert_eq!(run.tool_calls, 3);
    assert_eq!(run.error, None);
    let called: Vec<&str> = run.calls.iter().map(|c| c.tool.as_str()).collect();
    assert_eq!(called, ["scene_list", "gameobject_find", "gameobject_get"]);
    assert!(run.calls.iter().all(|c| c.ok && c.attempt == 1));

    // The same, polled through the tool.
    let polled = fx.ok("agent_team_query", json!({"handle": handle}));
    assert_eq!(polled["status"], "done");
    assert_eq!(polled["tool_calls"], 3);
    assert!(polled["duration_ms"].is_u64());

    // The model saw the view's tools in the OpenAI profile, the brief, the specialist's
    // prompt, and each call's envelope.
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let first = &requests[0];
    assert_eq!(first.brief, "Find the player and describe it.");
    assert!(first.system_prompt.starts_with("You inspect the scenes"));
    assert!(first.system_prompt.contains("JSON object"));
    assert_eq!(first.model, None, "the endpoint's own model");
    let offered: Vec<&str> = first
        .tools
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, tools);
    assert!(first.tools.iter().all(|t| t["type"] == "function"));
    let last = &requests[2];
    assert_eq!(last.history.len(), 5, "{:#?}", last.history);
    let buril_team::Turn::Result { tool, envelope, .. } = &last.history[4] else {
        panic!("{:?}", last.history[4]);
    };
    assert_eq!(tool, "gameobject_get");
    assert_eq!(envelope["data"]["name"], "Player");
}

#[test]
fn a_view_pattern_that_matches_nothing_blocks_the_handoff() {
    let model = shared(ScriptedModel::new().report("never asked"));
    let fx = Fixture::new(Arc::clone(&model));
    let started = fx.ok(
        "agent_team_handoff",
        json!({
            "specialist": "asset-librarian",
            "brief": "Rig the jacket.",
            "tool_view": ["asset_*", "clothing_*", "prefab_apply"],
        }),
    );
    assert_eq!(started["status"], "blocked", "{started}");
    assert_eq!(started["missing"], json!(["clothing_*", "prefab_apply"]));
    let report = started["report"].as_str().unwrap();
    assert!(
        report.contains("`clothing_*`") && report.contains("`prefab_apply`"),
        "{report}"
    );

    let run = fx.wait(started["handle"].as_str().unwrap());
    assert_eq!(run.status, RunState::Blocked);
    assert_eq!(run.tool_calls, 0);
    assert!(model.requests().is_empty(), "the model was never asked");
}

#[test]
fn a_disabled_tool_counts_as_missing_from_the_view() {
    // `asset_delete` is dangerous, so off by default: naming it blocks.
    let fx = Fixture::new(ScriptedModel::new());
    let started = fx.ok(
        "agent_team_handoff",
        json!({"specialist": "asset-librarian", "brief": "Delete.", "tool_view": ["asset_delete"]}),
    );
    assert_eq!(started["status"], "blocked");
    assert_eq!(started["missing"], json!(["asset_delete"]));
    // A family pattern leaves it out of the tools offered.
    let started = fx.ok(
        "agent_team_handoff",
        json!({"specialist": "asset-librarian", "brief": "List.", "tool_view": ["asset_*"]}),
    );
    assert!(
        !started["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("asset_delete"))
    );
}

#[test]
fn a_call_outside_the_view_is_refused_by_the_dispatcher_and_blocks_the_run() {
    let model = shared(
        ScriptedModel::new()
            .call("scene_list", json!({}))
            // Not in the view: the model was never offered it, and calls it anyway.
            .call("gameobject_create", json!({"name": "Intruder"}))
            .report("never reached"),
    );
    let fx = Fixture::new(Arc::clone(&model));
    let handle = fx.handoff(json!({
        "specialist": "scene-inspector",
        "brief": "Look around.",
        "tool_view": ["scene_list", "scene_list_gameobjects"],
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Blocked, "{run:?}");
    let report = run.report.unwrap();
    assert!(
        report.contains("`gameobject_create`") && report.contains("outside"),
        "{report}"
    );
    assert_eq!(run.calls.len(), 2);
    assert_eq!(run.calls[1].error_type.as_deref(), Some("disabled"));
    assert_eq!(run.calls[1].attempt, 1, "a refused call is not retried");
    assert_eq!(model.remaining(), 1, "the model was not asked again");
    // Hidden and refused: the tool never ran.
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(offered, ["scene_list", "scene_list_gameobjects"]);
    let found = fx.ok("gameobject_find", json!({"name": "Intruder"}));
    assert_eq!(found["total_found"], 0);
}

#[test]
fn a_call_to_an_absent_tool_blocks_the_run() {
    let fx = Fixture::new(
        ScriptedModel::new()
            .call("clothing_rig", json!({"garment": "Jacket"}))
            .report("never reached"),
    );
    let handle = fx.handoff(json!({
        "specialist": "asset-librarian",
        "brief": "Rig the jacket.",
        "tool_view": ["*"],
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Blocked);
    assert!(
        run.report
            .unwrap()
            .contains("`clothing_rig`, which is not in the registry"),
        "{:?}",
        run.error
    );
    assert_eq!(run.calls[0].error_type.as_deref(), Some("not_found"));
}

#[test]
fn a_failing_call_is_retried_once_then_its_error_reaches_the_report_verbatim() {
    let fx = Fixture::new(
        ScriptedModel::new()
            .call("asset_read", json!({"path": "Assets/Garments/Jacket.fbx"}))
            .report("never reached"),
    );
    // The error the tool gives, verbatim.
    let direct = fx.call("asset_read", json!({"path": "Assets/Garments/Jacket.fbx"}));
    assert_eq!(direct["ok"], false);
    let message = direct["error"].as_str().unwrap().to_owned();

    let handle = fx.handoff(json!({
        "specialist": "asset-librarian",
        "brief": "Read the jacket.",
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored, "{run:?}");
    assert_eq!(run.error.as_deref(), Some(message.as_str()));
    let report = run.report.unwrap();
    assert!(report.ends_with(&message), "{report}");
    assert!(report.contains("retried once"), "{report}");
    assert_eq!(run.tool_calls, 2);
    let attempts: Vec<u32> = run.calls.iter().map(|c| c.attempt).collect();
    assert_eq!(attempts, [1, 2]);

    // Errored in the query tool too, with the error verbatim.
    let polled = fx.ok("agent_team_query", json!({"handle": handle}));
    assert_eq!(polled["status"], "errored");
    assert_eq!(polled["error"], message.as_str());
}

/// Calls of `flakytest_once` per key.
static FLAKY: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// What `flakytest_once` answers.
#[derive(Serialize, JsonSchema)]
struct Attempt {
    /// Which call this was for the key.
    attempt: usize,
}

/// Fails the first time it is called with a key, and succeeds after.
#[buril::tool(off_thread)]
fn flakytest_once(
    /// Calls are counted per key.
    key: String,
) -> Result<Attempt, ToolError> {
    let mut counts = FLAKY.lock().unwrap();
    let count = counts
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_default();
    *count += 1;
    if *count == 1 {
        Err(ToolError::runtime("the first call always fails"))
    } else {
        Ok(Attempt { attempt: *count })
    }
}

#[test]
fn a_call_that_fails_once_succeeds_on_its_retry() {
    let fx = Fixture::with(
        Team::builder()
            .specialist(
                Specialist::new("flaky-tester", "Calls flaky tools.").tool_view(["flakytest_*"]),
            )
            .model(
                "default",
                ScriptedModel::new()
                    .call("flakytest_once", json!({"key": "retry-test"}))
                    .report("worked the second time"),
            ),
    );
    let handle = fx.handoff(json!({"specialist": "flaky-tester", "brief": "Try."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Done, "{run:?}");
    assert_eq!(run.tool_calls, 2);
    assert!(!run.calls[0].ok && run.calls[1].ok);
    assert_eq!(run.calls[1].attempt, 2);
}

/// Whether `slowtest_hold` saw its cancellation.
static SAW_CANCEL: AtomicBool = AtomicBool::new(false);
/// How many `slowtest_hold` calls started.
static STARTED: AtomicUsize = AtomicUsize::new(0);
/// Whether `slowtest_hold` returned.
static HOLD_ENDED: AtomicBool = AtomicBool::new(false);
/// Opened by the test to let `slowtest_hold` return once it saw its cancellation.
static HOLD_GATE: Gate = Gate::new();

/// Shut until the test opens it.
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
}

impl Gate {
    const fn new() -> Self {
        Gate {
            open: Mutex::new(false),
            opened: Condvar::new(),
        }
    }

    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Waits until the gate is open, or `WAIT` passed.
    fn pass(&self) {
        let open = self.open.lock().unwrap();
        drop(
            self.opened
                .wait_timeout_while(open, WAIT, |open| !*open)
                .unwrap(),
        );
    }
}

/// How long `slowtest_wait` waited.
#[derive(Serialize, JsonSchema)]
struct Waited {
    /// Milliseconds.
    ms: u64,
}

/// Waits `ms` milliseconds, checking its context for cancellation, on the main thread.
#[buril::tool]
fn slowtest_wait(
    /// How long to wait.
    ms: u64,
    ctx: &Context,
) -> Result<Waited, ToolError> {
    wait(ms, ctx, |_| {})
}

/// As `slowtest_wait`, counting its starts and remembering whether it saw a cancellation; once
/// it saw one, it returns only when the test opens its gate.
#[buril::tool]
fn slowtest_hold(
    /// How long to wait.
    ms: u64,
    ctx: &Context,
) -> Result<Waited, ToolError> {
    STARTED.fetch_add(1, Ordering::SeqCst);
    let waited = wait(ms, ctx, |_| SAW_CANCEL.store(true, Ordering::SeqCst));
    if waited.is_err() {
        HOLD_GATE.pass();
    }
    HOLD_ENDED.store(true, Ordering::SeqCst);
    waited
}

/// The body of the slow tools: a sync tool that takes its time and looks at its context for a
/// cancellation every few milliseconds, as a tool doing real work would. The pauses are the
/// tool's behaviour under test, not a wait for something.
fn wait(ms: u64, ctx: &Context, on_cancel: impl Fn(&Context)) -> Result<Waited, ToolError> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(ms) {
        if ctx.is_cancelled() {
            on_cancel(ctx);
            return Err(ToolError::cancelled());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(Waited { ms })
}

#[test]
fn cancelling_mid_run_reaches_the_running_tool_and_nothing_is_retried() {
    let model = shared(
        ScriptedModel::new()
            // The tool waits until cancelled; its time only bounds that.
            .call("slowtest_hold", json!({"ms": WAIT.as_millis() as u64}))
            .report("never reached"),
    );
    let fx = Fixture::with(
        Team::builder()
            .specialist(Specialist::new("waiter", "Waits.").tool_view(["slowtest_*"]))
            .model("default", Arc::clone(&model)),
    );
    let handle = fx.handoff(json!({"specialist": "waiter", "brief": "Wait."}));
    wait_until("the tool's start", || STARTED.load(Ordering::SeqCst) == 1);
    // The tool holds the main thread; the cancel tool runs off it.
    let cancel = fx.ok("agent_team_cancel", json!({"handle": handle}));
    assert_eq!(cancel["handle"], handle.as_str());
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Cancelled, "{run:?}");
    // The run ends as soon as the dispatcher gives up on the call, with the tool still there:
    // it sees the cancellation at its next check of its context, and then stays until let go.
    assert!(
        !HOLD_ENDED.load(Ordering::SeqCst),
        "the run ended only once its tool did"
    );
    wait_until("the tool's sight of the cancellation", || {
        SAW_CANCEL.load(Ordering::SeqCst)
    });
    HOLD_GATE.open();
    wait_until("the tool's end", || HOLD_ENDED.load(Ordering::SeqCst));
    assert_eq!(run.tool_calls, 1, "no retry after a cancellation");
    assert_eq!(run.calls[0].error_type.as_deref(), Some("cancelled"));
    assert_eq!(model.remaining(), 1, "the model was not asked again");
    assert!(run.report.unwrap().starts_with("cancelled"));
    // Cancelling again changes nothing.
    let again = fx.ok("agent_team_cancel", json!({"handle": handle}));
    assert_eq!(again["status"], "cancelled");
}

#[test]
fn a_failing_model_or_one_that_never_reports_errors_the_run() {
    let fx = Fixture::new(ScriptedModel::new().fail("rate limited (429)"));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored);
    assert_eq!(
        run.error.as_deref(),
        Some("the model failed: rate limited (429)")
    );

    let endless = ScriptedModel::new()
        .call("console_read", json!({}))
        .call("console_read", json!({}))
        .call("console_read", json!({}));
    let fx = Fixture::with(Team::builder().model("default", endless).max_steps(2));
    let handle = fx.handoff(json!({"specialist": "console-reader", "brief": "Read."}));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Errored);
    assert_eq!(run.tool_calls, 2);
    assert!(run.error.unwrap().contains("within 2 model steps"));
}

#[test]
fn a_handoff_may_override_the_model_and_temperature() {
    let default = shared(ScriptedModel::new().report("default"));
    let alt = shared(
        ScriptedModel::new()
            .report("alt, its own model")
            .report("alt, another model"),
    );
    let fallback = shared(ScriptedModel::new().report("fallback"));
    let fx = Fixture::with(
        Team::builder()
            .model("default", Arc::clone(&default))
            .model("alt", Arc::clone(&alt))
            .default_model(Arc::clone(&fallback)),
    );
    let run = |input: Value| {
        let handle = fx.handoff(input);
        fx.wait(&handle).report.unwrap()
    };
    let brief = |model: Option<&str>, temperature: Option<f64>| json!({"specialist": "console-reader", "brief": "Read.", "model": model, "temperature": temperature});
    assert_eq!(run(brief(None, None)), "default");
    assert_eq!(run(brief(Some("alt"), Some(0.3))), "alt, its own model");
    assert_eq!(
        run(brief(Some("alt/big-model"), None)),
        "alt, another model"
    );
    assert_eq!(run(brief(Some("anthropic/sonnet"), Some(0.0))), "fallback");

    assert_eq!(default.requests()[0].temperature, None);
    let alt = alt.requests();
    assert_eq!(
        (alt[0].model.clone(), alt[0].temperature),
        (None, Some(0.3))
    );
    assert_eq!(alt[1].model.as_deref(), Some("big-model"));
    let fallback = fallback.requests();
    assert_eq!(fallback[0].model.as_deref(), Some("anthropic/sonnet"));
    assert_eq!(fallback[0].temperature, Some(0.0));

    // The handoff names the model it was given.
    let started = fx.ok("agent_team_handoff", brief(Some("alt/big-model"), None));
    assert_eq!(started["model"], "alt/big-model");
}

#[test]
fn bad_handoffs_are_validation_errors_naming_the_fix() {
    let fx = Fixture::with(Team::builder().model("default", ScriptedModel::new()));
    let cases = [
        (
            json!({"specialist": "clothing-rigger", "brief": "Rig."}),
            "no specialist is named `clothing-rigger`; the specialists are: asset-librarian, console-reader, editor-operator, scene-inspector",
        ),
        (
            json!({"specialist": "console-reader", "brief": "Read.", "tool_view": ["Console_*"]}),
            "tool_view: `Console_*` is not a tool pattern",
        ),
        (
            json!({"specialist": "console-reader", "brief": "Read.", "tool_view": []}),
            "tool_view is empty",
        ),
        (
            json!({"specialist": "console-reader", "brief": "Read.", "temperature": 3.5}),
            "temperature 3.5 is out of range",
        ),
        (
            json!({"specialist": "console-reader", "brief": "Read.", "model": "gpt-x"}),
            "no model endpoint answers to `gpt-x`",
        ),
    ];
    for (input, expected) in cases {
        let envelope = fx.call("agent_team_handoff", input.clone());
        assert_eq!(envelope["type"], "validation", "{input}: {envelope}");
        let error = envelope["error"].as_str().unwrap();
        assert!(error.starts_with(expected), "{input}: {error}");
    }
    let envelope = fx.call(
        "agent_team_query",
        json!({"handle": "task_00000000000000000000000000000000"}),
    );
    assert_eq!(envelope["type"], "validation");
    let envelope = fx.call(
        "agent_team_cancel",
        json!({"handle": "task_00000000000000000000000000000000"}),
    );
    assert_eq!(envelope["type"], "validation");
    // The input is closed, like every tool's.
    let envelope = fx.call(
        "agent_team_handoff",
        json!({"specialist": "console-reader", "brief": "Read.", "tool_veiw": ["*"]}),
    );
    assert_eq!(envelope["type"], "validation");
}

#[test]
fn specialists_are_listed_with_their_resolved_views_and_schemas() {
    let fx = Fixture::with(
        Team::builder()
            .model("default", ScriptedModel::new())
            .specialist(
                Specialist::new("jacket-rigger", "Rigs garments.")
                    .tool_view(["clothing_*", "asset_list"])
                    .artifact_schema(
                        json!({"type": "object", "properties": {"prefab": {"type": "string"}}}),
                    ),
            ),
    );
    let listed = fx.ok("agent_team_list_specialists", json!({}));
    let specialists = listed["specialists"].as_array().unwrap();
    let names: Vec<&str> = specialists
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "asset-librarian",
            "console-reader",
            "editor-operator",
            "jacket-rigger",
            "scene-inspector"
        ]
    );
    let inspector = &specialists[4];
    assert_eq!(
        inspector["tool_view"],
        json!(["scene_*", "gameobject_get", "gameobject_find"])
    );
    let tools: Vec<&str> = inspector["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "gameobject_find",
            "gameobject_get",
            "scene_close",
            "scene_create",
            "scene_list",
            "scene_list_gameobjects",
            "scene_open",
            "scene_render_map",
            "scene_save",
            "scene_set_active"
        ]
    );
    assert_eq!(inspector["missing"], json!([]));
    assert!(inspector["tools"][0].get("input_schema").is_none());
    assert_eq!(
        inspector["input_schema"]["properties"]["specialist"]["const"],
        "scene-inspector"
    );
    assert_eq!(
        inspector["input_schema"]["required"],
        json!(["specialist", "brief"])
    );
    assert!(inspector["output_schema"]["properties"]["report"].is_object());

    let rigger = &specialists[3];
    assert_eq!(rigger["missing"], json!(["clothing_*"]));
    assert_eq!(
        rigger["output_schema"]["properties"]["artifact"]["anyOf"][0]["properties"]["prefab"]["type"],
        "string"
    );

    let verbose = fx.ok(
        "agent_team_list_specialists",
        json!({"include_tool_schemas": true}),
    );
    let tool = &verbose["specialists"][1]["tools"][0];
    assert_eq!(tool["name"], "console_read");
    assert_eq!(tool["input_schema"]["type"], "object");
    assert!(tool["description"].as_str().unwrap().len() > 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_headless_api_hands_off_and_waits() {
    let fx = Fixture::new(
        ScriptedModel::new()
            .respond(|request| {
                // A step computed from the request: the brief names the object to find.
                let name = request
                    .brief
                    .rsplit(' ')
                    .next()
                    .unwrap()
                    .trim_end_matches('.');
                Ok(ModelReply::ToolCalls(vec![ToolCall::new(
                    "find-1",
                    "gameobject_find",
                    json!({"name": name}),
                )]))
            })
            .respond(|request| {
                let buril_team::Turn::Result { envelope, .. } = request.history.last().unwrap()
                else {
                    unreachable!()
                };
                let id = &envelope["data"]["results"][0]["id"];
                Ok(ModelReply::Report(buril_team::Report::parse(&format!(
                    r#"{{"report": "found it", "artifact": {{"id": {id}}}}}"#
                ))))
            }),
    );
    let handle = fx
        .team
        .handoff(HandoffRequest::new("scene-inspector", "Find the Ground.").temperature(0.1))
        .await
        .unwrap();
    let run = fx.team.wait_for(&handle, WAIT).await.unwrap();
    assert_eq!(run.status, RunState::Done);
    assert_eq!(run.report.as_deref(), Some("found it"));
    assert_eq!(run.artifact, Some(json!({"id": 3})));

    // A run still going at the timeout, then an unknown handle.
    let slow = Fixture::with(
        Team::builder()
            .specialist(Specialist::new("waiter", "Waits.").tool_view(["slowtest_*"]))
            .model(
                "default",
                // Until cancelled: its time only bounds the wait.
                ScriptedModel::new().call("slowtest_wait", json!({"ms": WAIT.as_millis() as u64})),
            ),
    );
    let handle = slow
        .team
        .handoff(HandoffRequest::new("waiter", "Wait."))
        .await
        .unwrap();
    match slow.team.wait_for(&handle, Duration::from_millis(50)).await {
        Err(buril_team::WaitError::Timeout(run)) => assert_eq!(run.status, RunState::Running),
        other => panic!("{other:?}"),
    }
    slow.team.cancel(&handle).await.unwrap();
    assert_eq!(
        slow.team.wait_for(&handle, WAIT).await.unwrap().status,
        RunState::Cancelled
    );
    assert!(matches!(
        slow.team
            .wait_for("task_00000000000000000000000000000000", WAIT)
            .await,
        Err(buril_team::WaitError::UnknownHandle(_))
    ));

    // Without a dispatcher attached, the headless API says so.
    let detached = Team::builder()
        .model("default", ScriptedModel::new())
        .build()
        .unwrap();
    assert_eq!(
        detached
            .handoff(HandoffRequest::new("console-reader", "Read."))
            .await,
        Err(TeamError::NoDispatcher)
    );
}

#[test]
fn teams_refuse_bad_specialists_and_load_more_from_config_files() {
    let error = Team::builder()
        .specialist(Specialist::new("Bad Name", "x"))
        .specialist(Specialist::new("scene-inspector", "a second one"))
        .specialist(Specialist::new("viewless", "no view").tool_view(Vec::<String>::new()))
        .build()
        .unwrap_err();
    let text = error.to_string();
    assert!(text.contains("`Bad Name` is not kebab case"), "{text}");
    assert!(
        text.contains("two specialists are named `scene-inspector`"),
        "{text}"
    );
    assert!(text.contains("`viewless` has an empty tool view"), "{text}");

    let dir = tempfile::TempDir::new().unwrap();
    let toml = dir.path().join("team.toml");
    std::fs::write(
        &toml,
        r#"
[[specialist]]
name = "prefab-checker"
description = "Checks prefabs."
tool_view = ["asset_search", "asset_read"]
model = "local/qwen2.5"
system_prompt = "Check prefabs."

[[model]]
name = "local"
base_url = "http://127.0.0.1:9/v1"
model = "llama3.2"
api_key_env = "LOCAL_KEY"
"#,
    )
    .unwrap();
    let team = Team::builder().config_file(&toml).unwrap().build().unwrap();
    let checker = team.specialist("prefab-checker").unwrap();
    assert_eq!(checker.tool_view, ["asset_search", "asset_read"]);
    assert_eq!(checker.model, "local/qwen2.5");
    assert_eq!(team.model_names(), ["local"]);

    let json = dir.path().join("team.json");
    std::fs::write(
        &json,
        r#"{"specialists": [{"name": "j-one", "description": "From JSON.", "tool_view": ["*"], "model": "default"}]}"#,
    )
    .unwrap();
    let team = Team::builder()
        .without_linked_specialists()
        .config_file(&json)
        .unwrap()
        .build()
        .unwrap();
    let names: Vec<&str> = team.specialists().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["j-one"]);

    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[specialist]]\nname = \"x\"\ndescriptio = \"typo\"\n",
    )
    .unwrap();
    let error = Team::builder().config_file(&bad).err().unwrap();
    assert!(error.to_string().contains("descriptio"), "{error}");
}

/// A tool that asks its caller mid-call (`asset_delete` is `confirm`: it asks the user to allow
/// each call) is answered by the scripted model's answers, in order, and the run records what
/// came of it: allowed, the file goes; declined, the call fails `cancelled` and the file stays.
#[test]
fn the_scripted_model_answers_the_questions_tools_ask() {
    let enabled = Policy::new().enable("asset_delete".parse::<ToolPattern>().unwrap());
    let model = shared(
        ScriptedModel::new()
            .answer(json!({"action": "accept", "content": {"confirm": true}}))
            .answer(json!({"action": "decline"}))
            .call("asset_delete", json!({"path": "Assets/Materials/Red.mat"}))
            .call(
                "asset_delete",
                json!({"path": "Assets/Materials/Ground.mat"}),
            )
            .report("Deleted one of the two."),
    );
    let fx = Fixture::with_policy(
        Team::builder().model("default", Arc::clone(&model)),
        enabled,
    );
    let handle = fx.handoff(json!({
        "specialist": "asset-librarian",
        "brief": "Delete the two materials.",
        "tool_view": ["asset_delete"],
    }));
    let run = fx.wait(&handle);
    assert_eq!(run.status, RunState::Done, "{run:?}");
    assert!(run.calls[0].ok, "{run:?}");
    assert!(!run.calls[1].ok, "{run:?}");
    assert_eq!(run.calls[1].error_type.as_deref(), Some("cancelled"));
    assert!(!fx.path("Assets/Materials/Red.mat").exists());
    assert!(fx.path("Assets/Materials/Ground.mat").is_file());
    let questions = model.questions();
    assert_eq!(questions.len(), 2, "{questions:?}");
    assert_eq!(questions[0].0, "buril_confirm");
    let message = questions[0].1.params()["message"].as_str().unwrap();
    assert!(
        message.contains("`asset_delete`") && message.contains("Red.mat"),
        "{message}"
    );
}
