//! Agent teams over buril tools: a director hands work to specialists, each seeing only the
//! tools of its view; every run is a task with a handle, followed like any task of
//! [`buril::tasks`]; every run can be recorded as a trace and replayed, with no model, as a
//! regression test.
//!
//! The verbs are tools themselves, in the `agent_team` family, so they are listed, callable
//! over MCP and get C# and TypeScript bindings like any other tool:
//!
//! | tool | what it does |
//! | --- | --- |
//! | `agent_team_list_specialists` | the specialists, their views resolved to tools, their input and output schemas |
//! | `agent_team_handoff` | `{specialist, brief, tool_view?, model?, temperature?}` → a handle, at once |
//! | `agent_team_query` | a run's status, partial output (the calls so far), tool-call count, duration, report |
//! | `agent_team_cancel` | cancels a run cooperatively |
//! | `agent_team_record` | writes a run's trace as versioned JSON, atomically |
//! | `agent_team_replay` | re-issues a trace's calls against the current tools and reports a match or the precise drift |
//!
//! A host builds a [`Team`] and hands it to its dispatcher as state:
//!
//! ```
//! use std::time::Duration;
//! use buril_team::{HandoffRequest, ScriptedModel, Specialist, Team};
//! use serde_json::json;
//!
//! /// Says hello to `name`.
//! #[buril::tool(off_thread)]
//! fn greet_say(
//!     /// Who to greet.
//!     name: String,
//! ) -> String {
//!     format!("hello, {name}")
//! }
//!
//! let model = ScriptedModel::new()
//!     .call("greet_say", json!({"name": "Ada"}))
//!     .report("Greeted Ada.");
//! let team = Team::builder()
//!     .specialist(Specialist::new("greeter", "Greets people.").tool_view(["greet_*"]))
//!     .model("default", model)
//!     .build()
//!     .unwrap();
//! let dispatcher = buril::Dispatcher::builder().state(team.clone()).build();
//!
//! // What a director does, over MCP or any other transport.
//! let handoff = dispatcher
//!     .invoke(
//!         "agent_team_handoff",
//!         json!({"specialist": "greeter", "brief": "Greet Ada."}),
//!         buril::CallOptions::default(),
//!     )
//!     .into_envelope();
//! let handle = handoff["data"]["handle"].as_str().unwrap();
//! let run = team.wait_for_blocking(handle, Duration::from_secs(10)).unwrap();
//! assert_eq!(run.report.as_deref(), Some("Greeted Ada."));
//! assert_eq!(run.tool_calls, 1);
//! ```
//!
//! # Pieces
//!
//! - Specialists ([`Specialist`]): declared in code with [`specialist!`], added with
//!   [`TeamBuilder::specialist`], or loaded from a config file ([`TeamConfig`]).
//! - Tool views ([`buril::ToolView`]): `family_*`, an exact name, or `*`; resolved at handoff
//!   time; enforced by the dispatcher on every call ([`buril::CallOptions::view`]).
//! - Runs: each is a task of the team's [`Tasks`](buril::tasks::Tasks) (in memory by
//!   default; [`TeamBuilder::tasks`] gives it a store that outlives the process or is shared
//!   by replicas), in the state [`RunState`]: `running`, `done`, `errored`, `blocked` or
//!   `cancelled`.
//! - Models ([`Model`]): [`OpenAiCompatible`] for OpenAI-compatible chat-completions servers,
//!   [`ScriptedModel`] for tests.
//! - Traces ([`Trace`]) and replay ([`replay()`], [`assert_replays`], the `replay`
//!   subcommand in [`cli`]).
//! - The headless API: [`Team::handoff`] and [`Team::wait_for`].

#![warn(missing_docs)]

pub mod cli;
mod http;
mod model;
mod replay;
mod runner;
mod specialist;
mod team;
mod tools;
pub mod trace;

#[doc(hidden)]
pub mod __private {
    pub use linkme;
}

use std::path::Path;

use buril::Dispatcher;

pub use crate::model::{
    Model, ModelError, ModelFuture, ModelReply, ModelRequest, OpenAiCompatible, Report,
    ScriptedModel, Step, ToolCall, Turn,
};
pub use crate::replay::{
    Drift, ReplayError, ReplayOptions, ReplayReport, ReplayResult, replay, replay_file,
};
pub use crate::specialist::{
    ConfigError, ModelConfig, SPECIALISTS, Specialist, SpecialistDef, TeamConfig,
};
pub use crate::team::{
    CallSummary, Handoff, HandoffRequest, REPORT_PROTOCOL, Recording, RunState, RunStatus, Team,
    TeamBuilder, TeamError, TeamReplayError, TurnRecord, WaitError, resolve_view,
};
pub use crate::tools::{SpecialistInfo, SpecialistList, TraceInfo, TraceList, ViewTool};
pub use crate::trace::{CallRecord, DirectorCall, TRACE_VERSION, Trace, TraceError};

/// Replays the trace at `path` through `dispatcher` and panics with the drift (which call,
/// which field, both values; a missing tool; a changed schema) unless every call answers as
/// recorded. For regression suites under `cargo test`:
///
/// ```no_run
/// #[test]
/// fn the_jacket_rig_still_replays() {
///     let dispatcher = buril::Dispatcher::builder().build();
///     buril_team::assert_replays("tests/traces/jacket_rig.json", &dispatcher);
/// }
/// ```
#[track_caller]
pub fn assert_replays(path: impl AsRef<Path>, dispatcher: &Dispatcher) -> ReplayReport {
    assert_replays_with(path, dispatcher, &ReplayOptions::default())
}

/// [`assert_replays`] with options (pointers to ignore, a call timeout).
#[track_caller]
pub fn assert_replays_with(
    path: impl AsRef<Path>,
    dispatcher: &Dispatcher,
    options: &ReplayOptions,
) -> ReplayReport {
    let path = path.as_ref();
    match replay_file(path, dispatcher, options) {
        Ok(report) if report.is_match() => report,
        Ok(report) => panic!("{}: {}", path.display(), report.message),
        Err(error) => panic!("{}: the trace cannot be replayed: {error}", path.display()),
    }
}
