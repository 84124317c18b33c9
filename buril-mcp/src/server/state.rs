//! What every session of one server shares: the dispatcher, the layered settings, the tool
//! definitions, and who to tell when the tool list changes.

use super::input::RequestStates;
use rmcp::handler::server::skill_catalog::SkillCatalog;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use rmcp::model::Tool;

use super::auth::AuthOptions;
use super::config::{self, Rules, Settings, Stamp};
use super::defaults::DEFAULT_TIMEOUT;
use super::error::ServerError;
use super::notify::Listeners;
use super::options::{MessageSink, ServerOptions, absolute};
use buril_core::Registry;
use buril_core::ToolDescriptor;
use buril_core::policy::Policy;
use buril_core::profile::{self, Profile};
use buril_core::{Dispatcher, Timeouts};

/// How much a frame may exceed the dispatcher's `max_input_bytes`: the JSON-RPC request
/// around a tool's arguments.
const FRAME_OVERHEAD: usize = 64 * 1024;

pub(crate) struct ServerState {
    pub dispatcher: Dispatcher,
    pub registry: &'static Registry,
    pub name: String,
    pub version: String,
    pub page_size: usize,
    pub max_result_bytes: usize,
    pub output_dir: PathBuf,
    pub keep_results: Option<Duration>,
    pub allowed_origins: Vec<String>,
    /// Whether HTTP may be served beyond loopback without authorization (`--no-auth`).
    pub no_auth: bool,
    /// How HTTP callers are authorized (the options' over the config file's `[auth]`), read
    /// when the server starts.
    pub auth: Option<AuthOptions>,
    /// Whether call spans record the arguments and results (`gen_ai.tool.call.*`).
    pub trace_content: bool,
    /// How long the stdio transport watches its input after writing (`ServerOptions::input_watch`).
    pub input_watch: Duration,
    /// Whether plain calls may take the fast paths (`fast_path/`).
    pub fast_paths: bool,
    /// The HTTP server's limits for slow, idle and surplus clients.
    pub http_limits: super::http_limits::HttpLimits,
    /// Cancelled when the HTTP server stops and its drain time has passed: the plain calls
    /// still running are cancelled (and answer so).
    pub stopped: tokio_util::sync::CancellationToken,
    /// Whether `/studio/` is served.
    #[cfg(feature = "studio")]
    pub studio: bool,
    pub listeners: Listeners,
    /// The HTTP sessions whose plain calls are answered without the SDK's session worker.
    pub http_sessions: super::http_sessions::Sessions,
    /// Seals the state of calls that ask the client for input between rounds.
    pub request_states: RequestStates,
    /// The skills served over the skills extension (none: the extension is not declared).
    pub skills: Option<SkillCatalog>,
    /// The tasks of task tools (and of the `task_*` tools that follow them).
    pub tasks: buril_core::tasks::Tasks,
    /// Whether some tool is a task tool: the tasks extension is declared only then.
    pub task_tools: bool,
    /// Whether some tool has an app: MCP Apps is declared only then.
    pub app_tools: bool,
    /// The tasks as a caller with no session sees them, made once for every such call.
    pub task_access: Arc<dyn buril_core::frontend::CallerTasks>,
    messages: MessageSink,
    /// The host's policy when the server was built: the bottom layer.
    base: Policy,
    /// The host's timeouts when the server was built: the bottom layer.
    base_timeouts: Timeouts,
    /// The options' rules and timeouts.
    options: Settings,
    config: Option<ConfigSource>,
    live: Mutex<Live>,
    watching: AtomicBool,
}

struct ConfigSource {
    path: PathBuf,
    poll: Duration,
}

/// What changes at run time.
struct Live {
    /// The config file's layer.
    file: Settings,
    /// The file as it was when last read.
    stamp: Stamp,
    /// The tools enabled now, sorted.
    enabled: Vec<&'static str>,
}

impl ServerState {
    pub fn new(dispatcher: Dispatcher, options: ServerOptions) -> Result<ServerState, ServerError> {
        let registry = dispatcher.registry();
        let mut errors = Vec::new();
        let mut rules = Rules {
            allow_dangerous: options.allow_dangerous,
            ..Rules::default()
        };
        let config = options.config.as_ref().map(|(path, _)| ConfigSource {
            path: absolute(path),
            poll: options.config_poll,
        });
        let (file, stamp) = match &options.config {
            Some((path, required)) => {
                let stamp = Stamp::of(path);
                match config::read(path, registry).map_err(ServerError::Config)? {
                    Some(settings) => (settings, stamp),
                    None if *required => {
                        return Err(ServerError::Config(format!(
                            "the config file {} does not exist",
                            path.display()
                        )));
                    }
                    None => (Settings::default(), stamp),
                }
            }
            None => (Settings::default(), Stamp::default()),
        };
        // The prefixes of external servers' tools, which rules may name before they are served.
        #[cfg(feature = "hub")]
        let prefixes: Vec<String> = options
            .externals
            .iter()
            .chain(&file.externals)
            .map(crate::hub::External::prefix)
            .collect();
        #[cfg(not(feature = "hub"))]
        let prefixes: Vec<String> = Vec::new();
        for (texts, into) in [
            (&options.enable, &mut rules.enable),
            (&options.disable, &mut rules.disable),
        ] {
            for text in texts {
                match config::resolve(text, registry, &prefixes) {
                    Ok(patterns) => into.extend(patterns),
                    Err(error) => errors.push(error),
                }
            }
        }
        let mut timeouts = std::collections::HashMap::new();
        for (name, timeout) in &options.tool_timeouts {
            match config::timed_tool(name, registry, &prefixes) {
                Some(tool) => {
                    timeouts.insert(tool, *timeout);
                }
                None => errors.push(config::unknown_tool(name, registry, "a timeout")),
            }
        }
        if !errors.is_empty() {
            return Err(ServerError::Config(errors.join("; ")));
        }
        let tasks = options
            .tasks
            .clone()
            .unwrap_or_else(buril_core::tasks::Tasks::in_memory);
        // Checked now, so that a tool MCP cannot describe stops the server as it starts; built
        // when first listed (a server of 10,000 tools held a second copy of every schema
        // before any client asked for one).
        for tool in registry.iter() {
            buril_core::frontend::check_mcp(&tool)
                .map_err(|error| ServerError::Config(error.to_string()))?;
        }
        let auth = match (options.auth.clone(), file.auth.clone()) {
            (None, None) => None,
            (given, from_file) => Some(
                given
                    .unwrap_or_default()
                    .over(from_file.unwrap_or_default()),
            ),
        };
        #[cfg(feature = "hub")]
        {
            let externals: Vec<crate::hub::External> = options
                .externals
                .iter()
                .chain(&file.externals)
                .cloned()
                .collect();
            let refused = crate::hub::Hub::of(registry).sync(externals);
            if !refused.is_empty() {
                let refused: Vec<String> = refused.iter().map(ToString::to_string).collect();
                return Err(ServerError::Config(refused.join("; ")));
            }
        }
        let name = options.name.clone().unwrap_or_else(executable_name);
        let state = ServerState {
            base: (*dispatcher.policy()).clone(),
            base_timeouts: dispatcher.timeouts(),
            dispatcher,
            registry,
            name,
            version: options
                .version
                .clone()
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
            page_size: options.page_size.max(1),
            max_result_bytes: options.max_result_bytes,
            output_dir: absolute(&options.output_dir),
            keep_results: options.keep_results,
            allowed_origins: options.allowed_origins.clone(),
            no_auth: options.no_auth,
            auth,
            trace_content: options.trace_content,
            input_watch: options.input_watch,
            fast_paths: options.fast_paths,
            http_limits: options.http_limits,
            stopped: tokio_util::sync::CancellationToken::new(),
            #[cfg(feature = "studio")]
            studio: options.studio,
            listeners: Listeners::default(),
            http_sessions: Default::default(),
            request_states: RequestStates::new(options.request_state_key.as_deref())
                .map_err(ServerError::Config)?,
            skills: match &options.skills_dir {
                Some(dir) => Some(SkillCatalog::from_dir(dir).map_err(|error| {
                    ServerError::Config(format!(
                        "the skills in {} cannot be served: {error}",
                        dir.display()
                    ))
                })?),
                None => None,
            },
            tasks: tasks.clone(),
            task_access: Arc::new(buril_core::frontend::TaskAccess::new(tasks, None)),
            task_tools: registry.iter().any(|tool| tool.meta().task.is_task()),
            app_tools: registry.iter().any(|tool| tool.meta().ui.is_some()),
            messages: Arc::clone(&options.messages),
            options: Settings {
                rules,
                timeout: options.timeout,
                timeouts,
                auth: None,
                #[cfg(feature = "hub")]
                externals: options.externals.clone(),
            },
            config,
            live: Mutex::new(Live {
                file,
                stamp,
                enabled: Vec::new(),
            }),
            watching: AtomicBool::new(false),
        };
        state.apply(&mut state.live());
        Ok(state)
    }

    /// The config file the server reads, if any.
    #[cfg(feature = "studio")]
    pub fn config_path(&self) -> Option<&std::path::Path> {
        self.config.as_ref().map(|source| source.path.as_path())
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the dispatcher's policy and timeouts from the layers; answers whether the enabled
    /// set changed.
    fn apply(&self, live: &mut Live) -> bool {
        let policy = live
            .file
            .rules
            .apply(self.options.rules.apply(self.base.clone()));
        self.dispatcher.set_timeouts(layered_timeouts(
            &live.file,
            &self.options,
            &self.base_timeouts,
        ));
        let enabled: Vec<&'static str> = self
            .registry
            .iter()
            .filter(|tool| policy.allows(tool))
            .map(|tool| tool.static_name())
            .collect();
        self.dispatcher.set_policy(policy);
        let changed = live.enabled != enabled;
        live.enabled = enabled;
        changed
    }

    pub fn enabled_tools(&self) -> Vec<&'static str> {
        self.live().enabled.clone()
    }

    /// The largest message a client may send, over stdio (one line) or HTTP (one body): the
    /// largest input the dispatcher accepts plus the JSON-RPC request around it.
    pub fn max_frame_bytes(&self) -> usize {
        let max_input = self.dispatcher.input_limits().max_bytes;
        max_input.saturating_add(FRAME_OVERHEAD)
    }

    /// The MCP definition of the tool named `name` (by name or alias).
    pub fn definition(&self, name: &str) -> Option<Tool> {
        let tool = self.registry.get(name)?;
        Some(definition_of(&tool).clone())
    }

    /// Reads the config file again and applies it; answers whether the enabled set changed.
    pub fn reload(&self) -> Result<bool, ServerError> {
        let Some(source) = &self.config else {
            return Ok(false);
        };
        let stamp = Stamp::of(&source.path);
        let read = config::read(&source.path, self.registry);
        let mut live = self.live();
        live.stamp = stamp;
        let file = read.map_err(ServerError::Config)?.unwrap_or_default();
        if file.auth != live.file.auth {
            self.say(
                "buril: the config file's [auth] changed; authorization is read when the server \
                 starts, so the change takes effect when it restarts",
            );
        }
        live.file = file;
        #[cfg(feature = "hub")]
        {
            let externals = self
                .options
                .externals
                .iter()
                .chain(&live.file.externals)
                .cloned()
                .collect();
            for refused in crate::hub::Hub::of(self.registry).sync(externals) {
                self.say(&format!("buril: {refused}"));
            }
        }
        Ok(self.apply(&mut live))
    }

    /// [`reload`](Self::reload), then tells every client when the enabled set changed.
    pub async fn reload_and_notify(&self) -> Result<bool, ServerError> {
        let changed = self.reload()?;
        if changed {
            self.listeners.tools_changed().await;
        }
        Ok(changed)
    }

    /// Starts following the registry's tools (providers' tools coming and going: the enabled
    /// set worked out again, and every client told the list changed) and polling the config
    /// file for edits, once per server, on the current runtime. The tasks end with the server.
    pub fn watch_config(self: &Arc<Self>) {
        if self.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut changes = self.registry.changes();
        let weak: Weak<ServerState> = Arc::downgrade(self);
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                let Some(state) = weak.upgrade() else {
                    return;
                };
                state.apply(&mut state.live());
                state.listeners.tools_changed().await;
            }
        });
        let Some(source) = &self.config else {
            return;
        };
        let poll = source.poll;
        let weak: Weak<ServerState> = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(poll);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                let Some(state) = weak.upgrade() else {
                    return;
                };
                let Some(source) = &state.config else {
                    return;
                };
                if Stamp::of(&source.path) == state.live().stamp {
                    continue;
                }
                if let Err(error) = state.reload_and_notify().await {
                    state.say(&format!(
                        "buril: the config file was not applied, the previous settings stay: \
                         {error}"
                    ));
                }
            }
        });
    }

    /// Waits until each external server of the hub has connected or failed its first attempt
    /// (at most a minute), so that a client that lists the tools as it connects finds theirs,
    /// and says which failed. Nothing to wait for without the `hub` feature.
    pub async fn externals_settled(&self) {
        #[cfg(feature = "hub")]
        {
            let hub = crate::hub::Hub::of(self.registry);
            hub.settled(std::time::Duration::from_secs(60)).await;
            for status in hub.statuses() {
                if let Some(error) = &status.last_error {
                    self.say(&format!(
                        "buril: {error}; its tools are served once it answers (tried again with \
                         backoff)"
                    ));
                }
            }
        }
    }

    /// Tells the people running the server.
    pub fn say(&self, message: &str) {
        (self.messages)(message);
    }
}

/// The tool's `tools/list` entry, built the first time it is listed or asked for and kept with
/// the tool (every linked tool was checked as the server was built, every provided one as it
/// was made).
pub(crate) fn definition_of(tool: &ToolDescriptor) -> &Tool {
    cached(tool).definition.get_or_init(|| definition(tool))
}

/// What the server keeps of a tool once it worked it out, kept with the tool
/// (`ToolDescriptor::front_end_cache`).
#[derive(Default)]
pub(crate) struct Cached {
    /// Its `tools/list` entry.
    definition: OnceLock<Tool>,
    /// Whether that definition mirrors a parameter into a header, read from it the first time
    /// a stateless call over HTTP asks (`fast_path/http.rs`).
    pub(crate) mirrors_headers: OnceLock<bool>,
}

/// The server's [`Cached`] of `tool`.
pub(crate) fn cached(tool: &ToolDescriptor) -> &Cached {
    tool.front_end_cache(Cached::default)
}

/// The tool's `tools/list` entry, from the `mcp` provider profile: `{name, title?,
/// description, inputSchema, outputSchema, annotations?}`.
fn definition(tool: &ToolDescriptor) -> Tool {
    // Checked as the server was built: only a broken profile could fail here.
    let mut value = profile::render(Profile::Mcp, tool)
        .unwrap_or_else(|error| panic!("the MCP definition of a checked tool failed: {error}"))
        .value;
    // The schemas move into the definition as they are (read through serde, every map of them
    // would be built again: a quarter of the start of a server of 10,000 tools); the rest is
    // read as usual.
    let mut take = |key: &str| match value.get_mut(key) {
        Some(serde_json::Value::Object(schema)) => Some(std::mem::take(schema)),
        _ => None,
    };
    let (input, output) = (take("inputSchema"), take("outputSchema"));
    let mut definition: Tool = serde_json::from_value(value).unwrap_or_else(|error| {
        panic!(
            "the MCP definition of `{}` is not one rmcp reads: {error}",
            tool.name()
        )
    });
    if let Some(input) = input {
        definition.input_schema = Arc::new(input);
    }
    if let Some(output) = output {
        definition.output_schema = Some(Arc::new(output));
    }
    definition
}

/// The timeouts of a server's calls, from its layers: for each tool, the config file's
/// `[timeouts]` entry, the options' per-tool timeout, the options' default (`--timeout`), the
/// config file's `timeout`, the host dispatcher's own timeout for the tool, and
/// [`DEFAULT_TIMEOUT`], the first that is set.
fn layered_timeouts(file: &Settings, options: &Settings, host: &Timeouts) -> Timeouts {
    let mut timeouts = Timeouts::new();
    match options.timeout.or(file.timeout) {
        // A server-wide timeout hides the host's own, per tool as well.
        Some(timeout) => timeouts.default = Some(timeout),
        None => {
            timeouts.default = Some(host.default.unwrap_or(DEFAULT_TIMEOUT));
            timeouts.per_tool.extend(host.per_tool.clone());
        }
    }
    for layer in [options, file] {
        for (name, timeout) in &layer.timeouts {
            timeouts.per_tool.insert((*name).to_owned(), *timeout);
        }
    }
    timeouts
}

/// The executable's file name, or `buril`.
fn executable_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|path| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "buril".to_owned())
}
