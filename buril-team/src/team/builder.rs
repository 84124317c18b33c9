//! Building a team: specialists (declared, added or from a config), model endpoints, the tasks
//! its runs are and the limits of its runs.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use buril::WeakDispatcher;
use buril::tasks::Tasks;

use super::error::TeamError;
use super::state::{Team, TeamState};
use crate::model::Model;
use crate::specialist::{ConfigError, SPECIALISTS, Specialist, TeamConfig};

impl Team {
    /// Configures a team.
    pub fn builder() -> TeamBuilder {
        TeamBuilder::default()
    }
}

/// Builds a [`Team`].
pub struct TeamBuilder {
    linked: bool,
    specialists: Vec<Specialist>,
    models: Vec<(String, Arc<dyn Model>)>,
    default_model: Option<Arc<dyn Model>>,
    tasks: Option<Tasks>,
    runtime: Option<tokio::runtime::Handle>,
    trace_dir: PathBuf,
    max_steps: usize,
    call_timeout: Option<Duration>,
    errors: Vec<String>,
}

impl Default for TeamBuilder {
    fn default() -> Self {
        TeamBuilder {
            linked: true,
            specialists: Vec::new(),
            models: Vec::new(),
            default_model: None,
            tasks: None,
            runtime: None,
            trace_dir: PathBuf::from("."),
            max_steps: 32,
            call_timeout: None,
            errors: Vec::new(),
        }
    }
}

impl TeamBuilder {
    /// Leaves out the specialists declared with [`specialist!`](crate::specialist!).
    pub fn without_linked_specialists(mut self) -> Self {
        self.linked = false;
        self
    }

    /// Adds a specialist.
    pub fn specialist(mut self, specialist: Specialist) -> Self {
        self.specialists.push(specialist);
        self
    }

    /// Adds the specialists and model endpoints of a config.
    pub fn config(mut self, config: TeamConfig) -> Self {
        self.specialists.extend(config.specialists);
        for entry in config.models {
            match entry.client() {
                Ok(client) => self.models.push((entry.name.clone(), Arc::new(client))),
                Err(error) => self.errors.push(error.to_string()),
            }
        }
        self
    }

    /// Adds the specialists and model endpoints of a config file (TOML, or JSON by its
    /// extension).
    pub fn config_file(self, path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        Ok(self.config(TeamConfig::load(path)?))
    }

    /// Adds a model endpoint under `name`.
    pub fn model(mut self, name: impl Into<String>, model: impl Model) -> Self {
        self.models.push((name.into(), Arc::new(model)));
        self
    }

    /// The endpoint for model names that name no endpoint.
    pub fn default_model(mut self, model: impl Model) -> Self {
        self.default_model = Some(Arc::new(model));
        self
    }

    /// Runs handoffs as tasks of `tasks`: give the server's (or any store shared by the
    /// processes that follow the runs) so that a run's handle is followed like any task's
    /// (`tasks/get`, `task_get`, `tools tasks get`) and outlives the process that asked for it.
    /// Default: tasks of its own, in this process's memory.
    pub fn tasks(mut self, tasks: Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Runs the handoffs on the runtime behind `handle` (which must have IO and time enabled,
    /// for models over HTTP). Default: a runtime of the team's own, two worker threads named
    /// `buril-team`, started by the first handoff.
    pub fn runtime(mut self, handle: tokio::runtime::Handle) -> Self {
        self.runtime = Some(handle);
        self
    }

    /// The folder that `agent_team_record` and `agent_team_replay` paths are relative to.
    /// Default: the current folder.
    pub fn trace_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.trace_dir = dir.into();
        self
    }

    /// How many times a run may ask its model for the next step. Default: 32.
    pub fn max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// The timeout of each tool call a specialist makes. Default: the dispatcher's.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// The team; fails on an invalid specialist (a name that is not kebab case, an empty
    /// description, a view that does not parse), a name given twice, or a bad config entry.
    pub fn build(self) -> Result<Team, TeamError> {
        let mut errors = self.errors;
        let linked = SPECIALISTS
            .iter()
            .filter(|_| self.linked)
            .map(Specialist::from);
        let mut specialists = BTreeMap::new();
        for specialist in linked.chain(self.specialists) {
            if let Err(error) = specialist.check() {
                errors.push(error);
                continue;
            }
            let name = specialist.name.clone();
            if specialists.insert(name.clone(), specialist).is_some() {
                errors.push(format!("two specialists are named `{name}`"));
            }
        }
        let mut models = BTreeMap::new();
        for (name, model) in self.models {
            if name.is_empty() || name.contains('/') {
                errors.push(format!(
                    "`{name}` cannot name a model endpoint: use a non-empty name without `/`"
                ));
            } else if models.insert(name.clone(), model).is_some() {
                errors.push(format!("two model endpoints are named `{name}`"));
            }
        }
        if !errors.is_empty() {
            return Err(TeamError::Config(errors.join("; ")));
        }
        Ok(Team {
            state: Arc::new(TeamState {
                specialists,
                models,
                default_model: self.default_model,
                tasks: self.tasks.unwrap_or_else(Tasks::in_memory),
                runs: Mutex::new(HashMap::new()),
                started: std::sync::atomic::AtomicU64::new(0),
                runtime: self
                    .runtime
                    .map(super::runtime::RunRuntime::host)
                    .unwrap_or_default(),
                dispatcher: RwLock::new(WeakDispatcher::default()),
                trace_dir: self.trace_dir,
                max_steps: self.max_steps,
                call_timeout: self.call_timeout,
            }),
        })
    }
}
