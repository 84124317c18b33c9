//! The team: specialists, models, jobs, runs and their traces, and the dispatcher their calls
//! go through.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

use buril::{
    Dispatcher, JobId, JobOutcome, JobStatus, Jobs, PatternError, ToolDescriptor, ToolError,
    ToolView, WeakDispatcher,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::{Model, ModelRequest};
use crate::replay::{self, ReplayError, ReplayOptions, ReplayReport};
use crate::runner::Runner;
use crate::specialist::{ConfigError, SPECIALISTS, Specialist, TeamConfig};
use crate::trace::{DirectorCall, TRACE_VERSION, Trace, TraceError, schema_hash};

/// What every model is told after the specialist's own system prompt: how to end.
pub const REPORT_PROTOCOL: &str = "Work only through the tools you are given. When the work is \
     done, answer without calling a tool: your report for the director, as plain text, or as a \
     JSON object {\"report\": \"...\", \"artifact\": {...}} when there are structured results \
     to hand back.";

/// A director → specialist handoff: who, what, with which tools and which model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TeamHandoffRequest")]
pub struct HandoffRequest {
    /// The specialist, by name (`agent_team_list_specialists` lists them).
    pub specialist: String,
    /// The work, in full: the specialist knows nothing else of the conversation.
    pub brief: String,
    /// The tools the specialist may see and call: patterns such as `scene_*`, `asset_list`,
    /// or `*` for every tool. Resolved now, at handoff time. Default: the specialist's own
    /// view.
    #[serde(default)]
    pub tool_view: Option<Vec<String>>,
    /// The model, instead of the specialist's default: a model endpoint's name (`local`), an
    /// endpoint and a model (`local/qwen2.5-coder`), or a model of the default endpoint.
    #[serde(default)]
    pub model: Option<String>,
    /// The sampling temperature, 0 to 2. Default: the model's.
    #[serde(default)]
    pub temperature: Option<f64>,
}

impl HandoffRequest {
    /// A handoff of `brief` to `specialist`, with the specialist's view and model.
    pub fn new(specialist: impl Into<String>, brief: impl Into<String>) -> Self {
        HandoffRequest {
            specialist: specialist.into(),
            brief: brief.into(),
            tool_view: None,
            model: None,
            temperature: None,
        }
    }

    /// The tool view, instead of the specialist's.
    pub fn tool_view<I>(mut self, patterns: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.tool_view = Some(patterns.into_iter().map(Into::into).collect());
        self
    }

    /// The model, instead of the specialist's.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }
}

/// What a handoff answers at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamHandoff")]
pub struct Handoff {
    /// The run's handle, for `agent_team_query`, `agent_team_cancel` and `agent_team_record`.
    pub handle: String,
    /// `running`, or `blocked` when the view names tools that are missing.
    pub status: JobStatus,
    /// The specialist.
    pub specialist: String,
    /// The model, as named.
    pub model: String,
    /// The tools the view resolved to, sorted.
    pub tools: Vec<String>,
    /// The view's patterns that match no available tool (the reason for `blocked`).
    pub missing: Vec<String>,
    /// Why the run is blocked, when it is.
    pub report: Option<String>,
}

/// One call of a run, in brief.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamCallSummary")]
pub struct CallSummary {
    /// The tool called.
    pub tool: String,
    /// Whether it answered `ok: true`.
    pub ok: bool,
    /// The failure's `type`, when it failed.
    pub error_type: Option<String>,
    /// 1, or 2 for a retry.
    pub attempt: u32,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
}

/// A run as it is now: what `agent_team_query` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamRun")]
pub struct RunStatus {
    /// The run's handle.
    pub handle: String,
    /// `running`, `done`, `errored`, `blocked` or `cancelled`.
    pub status: JobStatus,
    /// The specialist.
    pub specialist: String,
    /// The model, as named.
    pub model: String,
    /// How many tool calls the run made so far (retries included).
    pub tool_calls: u64,
    /// How long the run took, or has been running, in milliseconds.
    pub duration_ms: u64,
    /// The partial output: every call so far, in order.
    pub calls: Vec<CallSummary>,
    /// The final report, once the run ended; for a failed run, what went wrong, with the
    /// error verbatim.
    pub report: Option<String>,
    /// The report's structured results, if any.
    pub artifact: Option<Value>,
    /// Why the run did not finish its work, verbatim.
    pub error: Option<String>,
}

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
    /// The team has no dispatcher for its calls: [`Team::attach`] one.
    NoDispatcher,
    /// A specialist or config entry is not valid.
    Config(String),
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
        }
    }
}

impl std::error::Error for TeamError {}

impl TeamError {
    /// The error as a tool reports it: `validation` for what the caller can fix, `runtime`
    /// otherwise.
    pub fn into_tool_error(self) -> ToolError {
        match self {
            TeamError::NoDispatcher | TeamError::Config(_) => ToolError::runtime(self.to_string()),
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
        }
    }
}

impl std::error::Error for WaitError {}

/// What recording a run wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "TeamRecording")]
pub struct Recording {
    /// The run's handle.
    pub handle: String,
    /// The file written.
    pub path: String,
    /// The run's status when recorded.
    pub status: JobStatus,
    /// How many calls the trace holds.
    pub calls: usize,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// A run's trace, growing as the run goes.
pub(crate) struct Run {
    trace: Mutex<Trace>,
}

impl Run {
    pub(crate) fn trace(&self) -> MutexGuard<'_, Trace> {
        self.trace.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An agent team: specialists, the models behind them, the runs of handoffs (as [`Jobs`]),
/// their traces, and the dispatcher the specialists' tool calls go through.
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
/// [`TeamBuilder::model`] (`local`: that endpoint, asking for its own default model); an
/// endpoint's name, a slash and a model (`local/qwen2.5`: that endpoint, asking for
/// `qwen2.5`); anything else goes to the [`default_model`](TeamBuilder::default_model)
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
    inner: Arc<TeamInner>,
}

struct TeamInner {
    specialists: BTreeMap<String, Specialist>,
    models: BTreeMap<String, Arc<dyn Model>>,
    default_model: Option<Arc<dyn Model>>,
    jobs: Jobs,
    runs: Mutex<HashMap<String, Arc<Run>>>,
    dispatcher: RwLock<WeakDispatcher>,
    trace_dir: PathBuf,
    max_steps: usize,
    call_timeout: Option<Duration>,
}

impl fmt::Debug for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Team")
            .field(
                "specialists",
                &self.inner.specialists.keys().collect::<Vec<_>>(),
            )
            .field("models", &self.inner.models.keys().collect::<Vec<_>>())
            .field("default_model", &self.inner.default_model.is_some())
            .field("trace_dir", &self.inner.trace_dir)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Team`].
pub struct TeamBuilder {
    linked: bool,
    specialists: Vec<Specialist>,
    models: Vec<(String, Arc<dyn Model>)>,
    default_model: Option<Arc<dyn Model>>,
    jobs: Option<Jobs>,
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
            jobs: None,
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

    /// Runs handoffs as jobs of `jobs` (to share them with other long-running tools).
    /// Default: jobs of its own, with handles like `team_8f4a2c1`.
    pub fn jobs(mut self, jobs: Jobs) -> Self {
        self.jobs = Some(jobs);
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
            inner: Arc::new(TeamInner {
                specialists,
                models,
                default_model: self.default_model,
                jobs: self.jobs.unwrap_or_else(|| Jobs::with_prefix("team")),
                runs: Mutex::new(HashMap::new()),
                dispatcher: RwLock::new(WeakDispatcher::default()),
                trace_dir: self.trace_dir,
                max_steps: self.max_steps,
                call_timeout: self.call_timeout,
            }),
        })
    }
}

/// The tools of `dispatcher` that `view` lets through and its policy allows, sorted by name,
/// and the view's patterns that match none of the allowed tools.
pub fn resolve_view(
    dispatcher: &Dispatcher,
    view: &ToolView,
) -> (Vec<&'static ToolDescriptor>, Vec<String>) {
    let policy = dispatcher.policy();
    let available: Vec<&'static ToolDescriptor> = dispatcher
        .registry()
        .iter()
        .filter(|tool| policy.allows(tool))
        .collect();
    let tools = available
        .iter()
        .copied()
        .filter(|tool| view.allows(tool.name()))
        .collect();
    let missing = view
        .patterns()
        .iter()
        .filter(|pattern| !available.iter().any(|tool| pattern.matches(tool.name())))
        .map(ToString::to_string)
        .collect();
    (tools, missing)
}

impl Team {
    /// Configures a team.
    pub fn builder() -> TeamBuilder {
        TeamBuilder::default()
    }

    /// Sets the dispatcher that the headless API ([`handoff`](Self::handoff),
    /// [`replay`](Self::replay)) sends calls through. The team holds it weakly, so a
    /// dispatcher holding the team as state is still dropped; a running handoff keeps it alive
    /// until it ends.
    pub fn attach(&self, dispatcher: &Dispatcher) {
        *self
            .inner
            .dispatcher
            .write()
            .unwrap_or_else(|e| e.into_inner()) = dispatcher.downgrade();
    }

    /// The attached dispatcher, if it is still alive.
    pub fn dispatcher(&self) -> Option<Dispatcher> {
        self.inner
            .dispatcher
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .upgrade()
    }

    /// The specialists, sorted by name.
    pub fn specialists(&self) -> impl Iterator<Item = &Specialist> {
        self.inner.specialists.values()
    }

    /// The specialist named `name`.
    pub fn specialist(&self, name: &str) -> Option<&Specialist> {
        self.inner.specialists.get(name)
    }

    /// The names of the model endpoints, sorted.
    pub fn model_names(&self) -> Vec<&str> {
        self.inner.models.keys().map(String::as_str).collect()
    }

    /// The jobs the runs are.
    pub fn jobs(&self) -> &Jobs {
        &self.inner.jobs
    }

    /// The folder relative trace paths are resolved in.
    pub fn trace_dir(&self) -> &Path {
        &self.inner.trace_dir
    }

    /// The endpoint and model id for a model name (see [Models](Team#models)).
    fn resolve_model(&self, name: &str) -> Result<(Arc<dyn Model>, Option<String>), TeamError> {
        let models = &self.inner.models;
        if let Some(model) = models.get(name) {
            return Ok((Arc::clone(model), None));
        }
        if let Some((endpoint, id)) = name.split_once('/')
            && !id.is_empty()
            && let Some(model) = models.get(endpoint)
        {
            return Ok((Arc::clone(model), Some(id.to_owned())));
        }
        match &self.inner.default_model {
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

    fn runs(&self) -> MutexGuard<'_, HashMap<String, Arc<Run>>> {
        self.inner.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(&self, handle: &str) -> Option<Arc<Run>> {
        self.runs().get(handle).cloned()
    }

    /// Hands `request` off: resolves the specialist, the view (now, against `dispatcher`'s
    /// registry and policy) and the model, starts the run as a job and answers at once. A
    /// view with a pattern that matches no available tool gives a run that is already
    /// `blocked`, with a handle like any other.
    pub fn start(
        &self,
        dispatcher: &Dispatcher,
        request: HandoffRequest,
    ) -> Result<Handoff, TeamError> {
        let specialist =
            self.specialist(&request.specialist)
                .ok_or_else(|| TeamError::UnknownSpecialist {
                    name: request.specialist.clone(),
                    known: self.inner.specialists.keys().cloned().collect(),
                })?;
        let patterns = request
            .tool_view
            .clone()
            .unwrap_or_else(|| specialist.tool_view.clone());
        if patterns.is_empty() {
            return Err(TeamError::EmptyView);
        }
        let view = ToolView::parse(&patterns).map_err(TeamError::View)?;
        if let Some(t) = request.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return Err(TeamError::Temperature(t));
        }
        let model_name = request
            .model
            .clone()
            .unwrap_or_else(|| specialist.model.clone());
        let (model, model_id) = self.resolve_model(&model_name)?;

        let (tools, missing) = resolve_view(dispatcher, &view);
        let profile = model.profile();
        let mut notes = Vec::new();
        let mut definitions = Vec::new();
        for tool in &tools {
            match buril::profile::definition(profile, tool) {
                Ok(definition) => definitions.push(definition),
                Err(error) => notes.push(format!(
                    "`{}` is not offered to the model: the {profile} profile cannot express \
                     it: {error}",
                    tool.name()
                )),
            }
        }
        let trace = Trace {
            version: TRACE_VERSION,
            handle: String::new(),
            specialist: specialist.name.clone(),
            brief: request.brief.clone(),
            model: model_name.clone(),
            temperature: request.temperature,
            tool_view: patterns,
            director: None,
            calls: Vec::new(),
            report: None,
            artifact: None,
            error: None,
            status: JobStatus::Running,
            duration_ms: 0,
            tool_calls: 0,
            schemas: tools
                .iter()
                .map(|tool| (tool.name().to_owned(), schema_hash(tool.input_schema())))
                .collect(),
            notes,
        };
        let label = format!("{}: {}", specialist.name, first_line(&request.brief));
        let tool_names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();

        let (handle, status, report) = if missing.is_empty() {
            let model_request = ModelRequest {
                specialist: specialist.name.clone(),
                model: model_id,
                temperature: request.temperature,
                system_prompt: system_prompt(&specialist.system_prompt),
                brief: request.brief.clone(),
                tools: definitions,
                history: Vec::new(),
            };
            let team = self.clone();
            let dispatcher = dispatcher.clone();
            let view = Arc::new(view);
            let id = self.inner.jobs.spawn(label, move |job| {
                let run = team.register(job.id(), trace);
                Runner {
                    job,
                    dispatcher,
                    model,
                    request: model_request,
                    view,
                    run,
                    max_steps: team.inner.max_steps,
                    call_timeout: team.inner.call_timeout,
                }
                .run()
            });
            (id, JobStatus::Running, None)
        } else {
            let reason = format!(
                "blocked: the tool view {view} needs tools that are not available: {} \
                 matches no tool the host offers",
                missing
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let id = self
                .inner
                .jobs
                .finished(label, JobOutcome::blocked(reason.clone()));
            let run = self.register(&id, trace);
            let mut trace = run.trace();
            trace.status = JobStatus::Blocked;
            trace.report = Some(reason.clone());
            trace.error = Some(reason.clone());
            (id, JobStatus::Blocked, Some(reason))
        };
        let handoff = Handoff {
            handle: handle.to_string(),
            status,
            specialist: specialist.name.clone(),
            model: model_name,
            tools: tool_names,
            missing,
            report,
        };
        if let Some(run) = self.run(handle.as_str()) {
            run.trace().director = Some(DirectorCall {
                tool: "agent_team_handoff".to_owned(),
                input: serde_json::to_value(&request).unwrap_or(Value::Null),
                envelope: json!({"ok": true, "data": handoff}),
            });
        }
        Ok(handoff)
    }

    fn register(&self, id: &JobId, mut trace: Trace) -> Arc<Run> {
        trace.handle = id.to_string();
        let run = Arc::new(Run {
            trace: Mutex::new(trace),
        });
        let mut runs = self.runs();
        // Forget the runs whose jobs were forgotten.
        let jobs = &self.inner.jobs;
        runs.retain(|handle, _| jobs.get(handle).is_some());
        runs.insert(id.to_string(), Arc::clone(&run));
        run
    }

    /// [`start`](Self::start) through the attached dispatcher; answers with the run's handle.
    pub async fn handoff(&self, request: HandoffRequest) -> Result<String, TeamError> {
        let dispatcher = self.dispatcher().ok_or(TeamError::NoDispatcher)?;
        self.start(&dispatcher, request)
            .map(|handoff| handoff.handle)
    }

    /// The run with handle `handle`, as it is now.
    pub fn query(&self, handle: &str) -> Option<RunStatus> {
        let run = self.run(handle)?;
        let job = self.inner.jobs.get(handle)?;
        let trace = run.trace();
        Some(RunStatus {
            handle: handle.to_owned(),
            status: job.status,
            specialist: trace.specialist.clone(),
            model: trace.model.clone(),
            tool_calls: job.tool_calls,
            duration_ms: u64::try_from(job.duration.as_millis()).unwrap_or(u64::MAX),
            calls: trace
                .calls
                .iter()
                .map(|call| {
                    let ok = call.envelope.get("ok") == Some(&Value::Bool(true));
                    CallSummary {
                        tool: call.tool.clone(),
                        ok,
                        error_type: call
                            .envelope
                            .get("type")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        attempt: call.attempt,
                        duration_ms: call.duration_ms,
                    }
                })
                .collect(),
            report: trace.report.clone(),
            artifact: trace.artifact.clone(),
            error: trace.error.clone().or(job.error),
        })
    }

    /// Cancels the run cooperatively: the call in flight sees it through its context, and no
    /// further call or retry is made. Returns the run as it is right after (it may still be
    /// `running` while it stops); `None` for an unknown handle.
    pub fn cancel(&self, handle: &str) -> Option<RunStatus> {
        self.run(handle)?;
        self.inner.jobs.cancel(handle)?;
        self.query(handle)
    }

    /// Waits until the run ends, or `timeout` passes. Works from any executor.
    pub async fn wait_for(&self, handle: &str, timeout: Duration) -> Result<RunStatus, WaitError> {
        let unknown = || WaitError::UnknownHandle(handle.to_owned());
        self.run(handle).ok_or_else(unknown)?;
        self.inner
            .jobs
            .wait(handle, timeout)
            .await
            .ok_or_else(unknown)?;
        let run = self.query(handle).ok_or_else(unknown)?;
        if run.status.is_finished() {
            Ok(run)
        } else {
            Err(WaitError::Timeout(Box::new(run)))
        }
    }

    /// [`wait_for`](Self::wait_for), blocking the calling thread (not for async code).
    pub fn wait_for_blocking(
        &self,
        handle: &str,
        timeout: Duration,
    ) -> Result<RunStatus, WaitError> {
        let unknown = || WaitError::UnknownHandle(handle.to_owned());
        self.run(handle).ok_or_else(unknown)?;
        self.inner
            .jobs
            .wait_for(handle, timeout)
            .ok_or_else(unknown)?;
        let run = self.query(handle).ok_or_else(unknown)?;
        if run.status.is_finished() {
            Ok(run)
        } else {
            Err(WaitError::Timeout(Box::new(run)))
        }
    }

    /// The run's trace as it is now (complete once the run ended).
    pub fn trace(&self, handle: &str) -> Option<Trace> {
        let run = self.run(handle)?;
        let mut trace = run.trace().clone();
        if let Some(job) = self.inner.jobs.get(handle) {
            // A run whose work died (a panic) ends as its job did.
            if trace.status == JobStatus::Running && job.status.is_finished() {
                trace.status = job.status;
                trace.error = trace.error.or(job.error);
            }
            trace.tool_calls = job.tool_calls;
            trace.duration_ms = u64::try_from(job.duration.as_millis()).unwrap_or(u64::MAX);
        }
        Some(trace)
    }

    /// Writes the run's trace to `path` (as given: absolute, or relative to the current
    /// folder), atomically; `Ok(None)` for an unknown handle.
    pub fn record(&self, handle: &str, path: &Path) -> Result<Option<Recording>, TraceError> {
        let Some(trace) = self.trace(handle) else {
            return Ok(None);
        };
        let bytes = trace.write(path)?;
        Ok(Some(Recording {
            handle: handle.to_owned(),
            path: path.display().to_string(),
            status: trace.status,
            calls: trace.calls.len(),
            bytes,
        }))
    }

    /// Replays the trace at `path` through the attached dispatcher ([`replay`](crate::replay())).
    pub fn replay(
        &self,
        path: &Path,
        options: &ReplayOptions,
    ) -> Result<ReplayReport, TeamReplayError> {
        let dispatcher = self.dispatcher().ok_or(TeamReplayError::NoDispatcher)?;
        replay::replay_file(path, &dispatcher, options).map_err(TeamReplayError::Replay)
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
        Ok(self.inner.trace_dir.join(path))
    }
}

/// Why [`Team::replay`] could not run.
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

fn system_prompt(own: &str) -> String {
    if own.trim().is_empty() {
        REPORT_PROTOCOL.to_owned()
    } else {
        format!("{}\n\n{REPORT_PROTOCOL}", own.trim_end())
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 80 {
        let cut: String = line.chars().take(79).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}
