//! The team itself: what it was built with (specialists, model endpoints, limits), the tasks
//! its runs are, the runs of this process, and the dispatcher it is attached to.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use buril::tasks::Tasks;
use buril::{Dispatcher, WeakDispatcher};

use super::error::TeamError;
use super::run::Run;
use crate::model::Model;
use crate::specialist::Specialist;

/// How many ended runs of this process keep their live trace (older ones are forgotten
/// first; their tasks stay in the task store for their TTL).
const KEEP_ENDED: usize = 256;

/// An agent team: specialists, the models behind them, the runs of handoffs (each a task of
/// its [`Tasks`]), their traces, and the dispatcher the specialists' tool calls go through.
///
/// A host builds one, gives it to its dispatcher as state (so that the `agent_team_*` tools
/// reach it), and attaches that dispatcher (for the headless API; the tools use the dispatcher
/// that runs them). Clones share everything.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use buril_team::{HandoffRequest, OpenAiCompatible, Specialist, Team};
///
/// let team = Team::builder()
///     .specialist(
///         Specialist::new("scene-inspector", "Reads scenes and their objects.")
///             .tool_view(["scene_*", "gameobject_get", "gameobject_find"]),
///     )
///     .model("default", OpenAiCompatible::new("http://127.0.0.1:11434/v1", "llama3.2"))
///     .build()?;
/// let dispatcher = buril::Dispatcher::builder().state(team.clone()).build();
/// team.attach(&dispatcher);
///
/// let handle = team
///     .handoff(HandoffRequest::new("scene-inspector", "List the scenes."))
///     .await?;
/// let run = team.wait_for(&handle, Duration::from_secs(60)).await?;
/// println!("{}", run.report.unwrap_or_default());
/// # Ok(())
/// # }
/// ```
///
/// # Models
///
/// A model name resolves, in order: the name of an endpoint given to
/// [`TeamBuilder::model`](crate::TeamBuilder::model) (`local`: that endpoint, asking for its own default model); an
/// endpoint's name, a slash and a model (`local/qwen2.5`: that endpoint, asking for
/// `qwen2.5`); anything else goes to the [`default_model`](crate::TeamBuilder::default_model)
/// endpoint, asking for the name as given.
///
/// # Failure
///
/// A run ends `blocked` when its view matches no available tool for one of its patterns, or
/// when the model calls a tool that is absent or outside the view (the dispatcher refuses the
/// call); `errored` when a call fails, is retried once, and fails again (the error reaches the
/// report verbatim), or when the model fails; `cancelled` when cancelled (never retried).
#[derive(Clone)]
pub struct Team {
    pub(super) state: Arc<TeamState>,
}

/// What every clone of a [`Team`] shares.
pub(super) struct TeamState {
    pub(super) specialists: BTreeMap<String, Specialist>,
    /// The model endpoints, by name.
    pub(super) models: BTreeMap<String, Arc<dyn Model>>,
    /// The endpoint for model names that name no endpoint.
    pub(super) default_model: Option<Arc<dyn Model>>,
    /// The tasks the runs are: in memory unless the host gives a store that outlives the
    /// process or is shared by replicas ([`TeamBuilder::tasks`](crate::TeamBuilder::tasks)).
    pub(super) tasks: Tasks,
    /// The runs of this process, by handle, in start order.
    pub(super) runs: Mutex<HashMap<String, (u64, Arc<Run>)>>,
    /// How many runs this process started.
    pub(super) started: std::sync::atomic::AtomicU64,
    /// Where the runs run.
    pub(super) runtime: super::runtime::RunRuntime,
    pub(super) dispatcher: RwLock<WeakDispatcher>,
    pub(super) trace_dir: PathBuf,
    pub(super) max_steps: usize,
    pub(super) call_timeout: Option<Duration>,
}

impl fmt::Debug for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = &self.state;
        f.debug_struct("Team")
            .field("specialists", &state.specialists.keys().collect::<Vec<_>>())
            .field("models", &state.models.keys().collect::<Vec<_>>())
            .field("default_model", &state.default_model.is_some())
            .field("trace_dir", &state.trace_dir)
            .finish_non_exhaustive()
    }
}

impl Team {
    /// Sets the dispatcher that the headless API ([`handoff`](Self::handoff),
    /// [`replay`](Self::replay)) sends calls through. The team holds it weakly, so a
    /// dispatcher holding the team as state is still dropped; a running handoff keeps it alive
    /// until it ends.
    pub fn attach(&self, dispatcher: &Dispatcher) {
        *self
            .state
            .dispatcher
            .write()
            .unwrap_or_else(|e| e.into_inner()) = dispatcher.downgrade();
    }

    /// The attached dispatcher, if it is still alive.
    pub fn dispatcher(&self) -> Option<Dispatcher> {
        self.state
            .dispatcher
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .upgrade()
    }

    /// The specialists, sorted by name.
    pub fn specialists(&self) -> impl Iterator<Item = &Specialist> {
        self.state.specialists.values()
    }

    /// The specialist named `name`.
    pub fn specialist(&self, name: &str) -> Option<&Specialist> {
        self.state.specialists.get(name)
    }

    /// The names of the model endpoints, sorted.
    pub fn model_names(&self) -> Vec<&str> {
        self.state.models.keys().map(String::as_str).collect()
    }

    /// The tasks the runs are.
    pub fn tasks(&self) -> &Tasks {
        &self.state.tasks
    }

    /// The folder relative trace paths are resolved in.
    pub fn trace_dir(&self) -> &Path {
        &self.state.trace_dir
    }

    /// `relative` inside the trace folder; refuses absolute paths and `..`, so that a model
    /// cannot write or read outside it.
    pub fn trace_path(&self, relative: &str) -> Result<PathBuf, String> {
        let path = Path::new(relative);
        if relative.trim().is_empty() {
            return Err("the path is empty".to_owned());
        }
        for component in path.components() {
            match component {
                Component::Normal(_) | Component::CurDir => {}
                _ => {
                    return Err(format!(
                        "`{relative}` must be a relative path inside the trace folder, without \
                         `..`"
                    ));
                }
            }
        }
        Ok(self.state.trace_dir.join(path))
    }

    /// The endpoint and model id for a model name (see [Models](Team#models)).
    pub(super) fn resolve_model(
        &self,
        name: &str,
    ) -> Result<(Arc<dyn Model>, Option<String>), TeamError> {
        let models = &self.state.models;
        if let Some(model) = models.get(name) {
            return Ok((Arc::clone(model), None));
        }
        if let Some((endpoint, id)) = name.split_once('/')
            && !id.is_empty()
            && let Some(model) = models.get(endpoint)
        {
            return Ok((Arc::clone(model), Some(id.to_owned())));
        }
        match &self.state.default_model {
            Some(model) => Ok((
                Arc::clone(model),
                Some(name.to_owned()).filter(|n| !n.is_empty()),
            )),
            None => Err(TeamError::UnknownModel {
                name: name.to_owned(),
                known: models.keys().cloned().collect(),
            }),
        }
    }

    fn runs(&self) -> MutexGuard<'_, HashMap<String, (u64, Arc<Run>)>> {
        self.state.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The run of this process with handle `handle`.
    pub(super) fn run(&self, handle: &str) -> Option<Arc<Run>> {
        self.runs().get(handle).map(|(_, run)| Arc::clone(run))
    }

    /// Keeps the run `handle` of this process; forgets the oldest ended runs past
    /// [`KEEP_ENDED`].
    pub(super) fn register(&self, handle: &str, run: Arc<Run>) {
        let order = self
            .state
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut runs = self.runs();
        runs.insert(handle.to_owned(), (order, run));
        let mut ended: Vec<(u64, String)> = runs
            .iter()
            .filter(|(_, (_, run))| run.trace.lock().status.is_finished())
            .map(|(handle, (order, _))| (*order, handle.clone()))
            .collect();
        if ended.len() > KEEP_ENDED {
            ended.sort();
            for (_, handle) in &ended[..ended.len() - KEEP_ENDED] {
                runs.remove(handle);
            }
        }
    }

    /// Forgets a run that never started (its task could not be stored).
    pub(super) fn forget(&self, handle: &str) {
        self.runs().remove(handle);
    }
}
