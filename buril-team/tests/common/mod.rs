//! A sample project per test, served by a dispatcher that also holds an agent team.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use buril::{Dispatcher, Policy};
use buril_team::{Model, RunStatus, ScriptedModel, Team, TeamBuilder};
use serde_json::Value;
use tempfile::TempDir;
use tools::Project;

/// Long enough for anything these tests wait on; a test that waits this long has failed.
pub const WAIT: Duration = Duration::from_secs(20);

/// A sample project in a temporary folder, with a team and a dispatcher holding both.
pub struct Fixture {
    pub dir: TempDir,
    pub team: Team,
    pub dispatcher: Dispatcher,
}

impl Fixture {
    /// The sample project and a team with the `tools` crate's specialists and `model` as the
    /// `default` endpoint.
    pub fn new(model: impl Model) -> Fixture {
        Fixture::with(Team::builder().model("default", model))
    }

    /// The sample project and the team `builder` makes (traces go to the project folder).
    pub fn with(builder: TeamBuilder) -> Fixture {
        Fixture::with_policy(builder, Policy::new())
    }

    /// As [`with`](Self::with), with a policy.
    pub fn with_policy(builder: TeamBuilder, policy: Policy) -> Fixture {
        let dir = TempDir::new().expect("a temporary folder");
        let project = Project::open_or_create(dir.path()).expect("the sample project");
        let team = builder.trace_dir(dir.path()).build().expect("a valid team");
        let dispatcher = Dispatcher::builder()
            .state(project)
            .state(team.clone())
            .policy(policy)
            .build();
        team.attach(&dispatcher);
        Fixture {
            dir,
            team,
            dispatcher,
        }
    }

    /// The project folder.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the project folder.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// The envelope of a call.
    pub fn call(&self, name: &str, input: Value) -> Value {
        buril_test_support::call_on(&self.dispatcher, name, input)
    }

    /// The data of a call that must succeed.
    pub fn ok(&self, name: &str, input: Value) -> Value {
        let envelope = self.call(name, input);
        assert_eq!(envelope["ok"], true, "{name} failed: {envelope:#}");
        envelope["data"].clone()
    }

    /// Hands off through the `agent_team_handoff` tool, as a director would; the handle.
    pub fn handoff(&self, input: Value) -> String {
        let data = self.ok("agent_team_handoff", input);
        data["handle"].as_str().expect("a handle").to_owned()
    }

    /// Waits for the run to end.
    pub fn wait(&self, handle: &str) -> RunStatus {
        self.team
            .wait_for_blocking(handle, WAIT)
            .unwrap_or_else(|error| panic!("{error}"))
    }
}

/// A sample project with a dispatcher and no team, for replays against a fresh project.
pub fn fresh_project() -> (TempDir, Dispatcher) {
    let dir = TempDir::new().expect("a temporary folder");
    let project = Project::open_or_create(dir.path()).expect("the sample project");
    let dispatcher = Dispatcher::builder().state(project).build();
    (dir, dispatcher)
}

/// A scripted model shared with the test, to look at what it was asked.
pub fn shared(model: ScriptedModel) -> Arc<ScriptedModel> {
    Arc::new(model)
}
