//! Why a handoff, building a team, waiting for a run or replaying through the team failed.

use std::fmt;

use buril::ToolError;
use buril::policy::PatternError;

use super::wire::RunStatus;
use crate::replay::ReplayError;

/// Why a handoff, or building a team, failed.
#[derive(Debug, Clone, PartialEq)]
pub enum TeamError {
    /// No specialist has that name.
    UnknownSpecialist {
        /// The name asked for.
        name: String,
        /// The specialists there are.
        known: Vec<String>,
    },
    /// A tool view pattern does not parse.
    View(PatternError),
    /// The view has no patterns.
    EmptyView,
    /// No model endpoint answers to that name, and there is no default endpoint.
    UnknownModel {
        /// The name asked for.
        name: String,
        /// The endpoints there are.
        known: Vec<String>,
    },
    /// The temperature is not between 0 and 2.
    Temperature(f64),
    /// The team has no dispatcher for its calls: [`Team::attach`](crate::Team::attach) one.
    NoDispatcher,
    /// A specialist or config entry is not valid.
    Config(String),
    /// No run has that handle (in this process, or in the team's task store).
    UnknownHandle(String),
    /// The run's task expired: it ended longer ago than its TTL.
    Expired(String),
    /// The team's task store could not be used; the words say why.
    Store(String),
}

impl fmt::Display for TeamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamError::UnknownSpecialist { name, known } => write!(
                f,
                "no specialist is named `{name}`; the specialists are: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
            TeamError::View(error) => write!(f, "tool_view: {error}"),
            TeamError::EmptyView => {
                f.write_str("tool_view is empty; name tools or families, or `*` for every tool")
            }
            TeamError::UnknownModel { name, known } => write!(
                f,
                "no model endpoint answers to `{name}` and the team has no default endpoint; \
                 the endpoints are: {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
            TeamError::Temperature(t) => {
                write!(
                    f,
                    "temperature {t} is out of range; use a number from 0 to 2"
                )
            }
            TeamError::NoDispatcher => f.write_str(
                "the team has no dispatcher for its calls; attach one with Team::attach",
            ),
            TeamError::Config(message) => f.write_str(message),
            TeamError::UnknownHandle(handle) => write!(
                f,
                "no run has the handle `{handle}`; `agent_team_handoff` answers with the handle \
                 of each run it starts"
            ),
            TeamError::Expired(handle) => write!(
                f,
                "the run `{handle}` ended longer ago than its task is kept, and is forgotten"
            ),
            TeamError::Store(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for TeamError {}

impl TeamError {
    /// The error as a tool reports it: `validation` for what the caller can fix, `runtime`
    /// otherwise.
    pub fn into_tool_error(self) -> ToolError {
        match self {
            TeamError::NoDispatcher | TeamError::Config(_) | TeamError::Store(_) => {
                ToolError::runtime(self.to_string())
            }
            other => ToolError::invalid(other.to_string()),
        }
    }
}

/// Why waiting for a run gave up.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitError {
    /// No run has that handle.
    UnknownHandle(String),
    /// The run was still going at the timeout; here it is as it was.
    Timeout(Box<RunStatus>),
    /// The run's task is gone (expired), or the task store could not be used.
    Store(String),
}

impl From<TeamError> for WaitError {
    fn from(error: TeamError) -> Self {
        match error {
            TeamError::UnknownHandle(handle) => WaitError::UnknownHandle(handle),
            other => WaitError::Store(other.to_string()),
        }
    }
}

impl fmt::Display for WaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitError::UnknownHandle(handle) => write!(f, "no run has the handle `{handle}`"),
            WaitError::Timeout(run) => write!(
                f,
                "the run `{}` was still running after the timeout ({} tool calls so far)",
                run.handle, run.tool_calls
            ),
            WaitError::Store(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for WaitError {}

/// Why [`Team::replay`](crate::Team::replay) could not run.
#[derive(Debug)]
pub enum TeamReplayError {
    /// The team has no dispatcher attached.
    NoDispatcher,
    /// The replay failed.
    Replay(ReplayError),
}

impl fmt::Display for TeamReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TeamReplayError::NoDispatcher => TeamError::NoDispatcher.fmt(f),
            TeamReplayError::Replay(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for TeamReplayError {}
