//! [`ServerOptions`]: how a server behaves.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::defaults::{
    DEFAULT_KEEP_RESULTS, DEFAULT_MAX_RESULT_BYTES, DEFAULT_OUTPUT_DIR, DEFAULT_PAGE_SIZE,
};

/// Receives the server's messages for people (a config file that does not parse, the address
/// it listens on). The default prints them to standard error.
pub type MessageSink = Arc<dyn Fn(&str) + Send + Sync>;

/// How a server behaves: its identity, which tools are on, timeouts, large results, paging
/// and HTTP origins.
#[derive(Clone)]
pub struct ServerOptions {
    pub(crate) name: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) enable: Vec<String>,
    pub(crate) disable: Vec<String>,
    pub(crate) allow_dangerous: bool,
    pub(crate) config: Option<(PathBuf, bool)>,
    pub(crate) config_poll: Duration,
    pub(crate) timeout: Option<Duration>,
    pub(crate) tool_timeouts: Vec<(String, Duration)>,
    pub(crate) max_result_bytes: usize,
    pub(crate) output_dir: PathBuf,
    pub(crate) keep_results: Option<Duration>,
    pub(crate) page_size: usize,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) no_auth: bool,
    pub(crate) auth: Option<super::auth::AuthOptions>,
    pub(crate) trace_content: bool,
    pub(crate) messages: MessageSink,
    pub(crate) request_state_key: Option<Vec<u8>>,
    pub(crate) skills_dir: Option<PathBuf>,
    pub(crate) tasks: Option<buril_core::tasks::Tasks>,
    pub(crate) input_watch: Duration,
    pub(crate) fast_paths: bool,
    pub(crate) http_limits: super::http_limits::HttpLimits,
    /// Whether `/studio/` is served (feature `studio`).
    #[cfg(feature = "studio")]
    pub(crate) studio: bool,
    /// Other MCP servers whose tools are served too (feature `hub`).
    #[cfg(feature = "hub")]
    pub(crate) externals: Vec<crate::hub::External>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            name: None,
            version: None,
            enable: Vec::new(),
            disable: Vec::new(),
            allow_dangerous: false,
            config: None,
            config_poll: Duration::from_millis(500),
            timeout: None,
            tool_timeouts: Vec::new(),
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            output_dir: PathBuf::from(DEFAULT_OUTPUT_DIR),
            keep_results: Some(DEFAULT_KEEP_RESULTS),
            page_size: DEFAULT_PAGE_SIZE,
            allowed_origins: Vec::new(),
            no_auth: false,
            auth: None,
            trace_content: false,
            messages: Arc::new(|message| eprintln!("{message}")),
            request_state_key: None,
            skills_dir: None,
            tasks: None,
            input_watch: super::watch::DEFAULT_INPUT_WATCH,
            fast_paths: super::defaults::fast_paths_by_default(),
            http_limits: super::http_limits::HttpLimits::new(),
            #[cfg(feature = "studio")]
            studio: false,
            #[cfg(feature = "hub")]
            externals: Vec::new(),
        }
    }
}

impl fmt::Debug for ServerOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerOptions")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("enable", &self.enable)
            .field("disable", &self.disable)
            .field("allow_dangerous", &self.allow_dangerous)
            .field("config", &self.config)
            .field("timeout", &self.timeout)
            .field("tool_timeouts", &self.tool_timeouts)
            .field("max_result_bytes", &self.max_result_bytes)
            .field("output_dir", &self.output_dir)
            .field("keep_results", &self.keep_results)
            .field("page_size", &self.page_size)
            .field("allowed_origins", &self.allowed_origins)
            .field("input_watch", &self.input_watch)
            .finish_non_exhaustive()
    }
}

impl ServerOptions {
    /// The defaults: dangerous tools off, no config file, 60 s timeouts, results past
    /// 100 000 bytes written to `.buril/outputs`, 100 tools a page.
    pub fn new() -> Self {
        ServerOptions::default()
    }

    /// Serves the studio at `/studio/` of the HTTP endpoint (feature `studio`): a page to see,
    /// try and steer the tools, their settings and tasks. Every request needs a token: any the
    /// server's authorization accepts, or, when it authorizes nobody, a random one of the
    /// studio's own ([`HttpServer::studio_url`](super::HttpServer::studio_url) has it). A server
    /// that authorizes nobody serves the studio on loopback addresses only. Default: off.
    #[cfg(feature = "studio")]
    pub fn studio(mut self, on: bool) -> Self {
        self.studio = on;
        self
    }

    /// The name the server gives clients. Default: the executable's file name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The version the server gives clients. Default: buril's version.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Turns on the tools matching `rule`, dangerous ones included: a name or alias, a glob
    /// (`*`, `scene_*`) or a family (`family:scene`). Checked when the server is built.
    pub fn enable(mut self, rule: impl Into<String>) -> Self {
        self.enable.push(rule.into());
        self
    }

    /// Turns off the tools matching `rule` (as for [`enable`](Self::enable)); disabling wins.
    pub fn disable(mut self, rule: impl Into<String>) -> Self {
        self.disable.push(rule.into());
        self
    }

    /// Turns every dangerous tool on.
    pub fn allow_dangerous(mut self, allow: bool) -> Self {
        self.allow_dangerous = allow;
        self
    }

    /// Reads rules and timeouts from this TOML file, which must exist when the server is
    /// built, and applies its edits while the server runs.
    pub fn config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config = Some((path.into(), true));
        self
    }

    /// Like [`config_file`](Self::config_file), but the file may be missing (no rules) and
    /// may appear later.
    pub fn optional_config_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.config = Some((path.into(), false));
        self
    }

    /// How often the config file is checked for edits. Default: 500 ms.
    pub fn config_poll_interval(mut self, interval: Duration) -> Self {
        self.config_poll = interval.max(Duration::from_millis(10));
        self
    }

    /// The timeout of every call without a more specific one. Default: the dispatcher's, or
    /// [`DEFAULT_TIMEOUT`](super::defaults::DEFAULT_TIMEOUT).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The timeout of one tool, by name or alias.
    pub fn tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.push((tool.into(), timeout));
        self
    }

    /// Results whose JSON is longer than this are written to a file; 0 never writes one.
    /// Default: [`DEFAULT_MAX_RESULT_BYTES`].
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.max_result_bytes = bytes;
        self
    }

    /// The key that seals the `requestState` of `input_required` results (MCP 2026-07-28: a
    /// tool asking the client for input): at least 32 bytes. Every replica serving one address
    /// needs the same key, so that any of them accepts the next round of a call; by default
    /// each process makes a random one. The CLI reads it from `BURIL_REQUEST_STATE_KEY`.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.request_state_key = Some(key.into());
        self
    }

    /// Where the tasks of task tools (`#[tool(task)]`) are kept and how they run; by default
    /// in memory, with the default settings. Give a [`FileStore`](buril_core::tasks::FileStore) or
    /// a `RedisStore` (feature `redis`) so that tasks outlive the process, or are shared by
    /// several servers.
    pub fn tasks(mut self, tasks: buril_core::tasks::Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Serves the skills in `dir` (each `dir/<name>/SKILL.md`, as the codegen writes them:
    /// `codegen --out bindings` makes `bindings/skills`) over MCP's skills extension
    /// (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`, and the files as
    /// `skill://<name>/SKILL.md` resources. Read once, when the server starts.
    pub fn skills_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.skills_dir = Some(dir.into());
        self
    }

    /// Where large results are written; a relative folder is taken from the current folder.
    /// Default: [`DEFAULT_OUTPUT_DIR`].
    pub fn output_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.output_dir = dir.into();
        self
    }

    /// How long a result written to a file is kept: each time the server writes one, it
    /// removes the files it wrote (named `TOOL-MILLIS-N.json`) that are older than this, and
    /// nothing else in the folder. `None` keeps them all. Default: [`DEFAULT_KEEP_RESULTS`].
    pub fn keep_results(mut self, keep: Option<Duration>) -> Self {
        self.keep_results = keep;
        self
    }

    /// How many tools one page of `tools/list` holds (at least 1). Default: 100.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// Serves HTTP on an address other machines can reach although nobody is authorized:
    /// without it, binding anything but a loopback address refuses to start (anyone who
    /// reaches the port could call every enabled tool). The server says so when it starts.
    pub fn serve_without_authorization(mut self, yes: bool) -> Self {
        self.no_auth = yes;
        self
    }

    /// Authorizes HTTP callers: an OAuth 2.1 resource server (JWT access tokens of an issuer,
    /// feature `oauth`) or static bearer tokens, with the scopes each tool needs. Added to the
    /// config file's `[auth]` table (a value here wins; tokens and scope rules add up). Over
    /// stdio nobody is asked for a token: its one client started the process.
    pub fn authorization(mut self, auth: super::auth::AuthOptions) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Records each call's arguments and result on its span (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`, as JSON), for whoever receives the spans. Off by default:
    /// they may hold secrets and be large.
    pub fn trace_content(mut self, yes: bool) -> Self {
        self.trace_content = yes;
        self
    }

    /// Also accepts HTTP requests from this browser origin (`https://app.example:443`,
    /// `http://localhost:*`), besides the loopback ones. Requests without an `Origin` header
    /// (clients that are not browsers) are always accepted.
    pub fn allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// How long the stdio transport, having written its answers with no call running, watches
    /// its input before its thread sleeps (default 50 µs; zero: not at all). A client that
    /// sends its next request within that time is read without waking a sleeping thread,
    /// which on a virtual machine costs tens of microseconds each way: calls made one after
    /// another answer in about half the time (BENCHMARKS.md). What it costs: up to
    /// that much CPU after each batch of answers that no request follows. Used only when
    /// standard input is a pipe (as when an MCP client starts the server), never over HTTP.
    pub fn input_watch(mut self, watch: Duration) -> Self {
        self.input_watch = watch;
        self
    }

    /// Whether plain calls may be answered without the SDK's machinery around them (the fast
    /// paths: `fast_path/`). Default: yes, unless the environment variable `BURIL_FAST_PATHS`
    /// is `off`. For the tests that run every server both ways; the answers are the same.
    #[doc(hidden)]
    pub fn fast_paths(mut self, on: bool) -> Self {
        self.fast_paths = on;
        self
    }

    /// What the Streamable HTTP server gives slow, idle and surplus clients: the time to send a
    /// request's headers, and how many connections it serves at once
    /// ([`HttpLimits`](super::HttpLimits); `--header-timeout`, `--max-connections`).
    pub fn http_limits(mut self, limits: super::http_limits::HttpLimits) -> Self {
        self.http_limits = limits;
        self
    }

    /// Serves the tools of another MCP server too (feature `hub`): see [`crate::hub`]. Its
    /// tools stay off until enabled (its own `enable`, or a rule such as
    /// `enable("family:everything")`). The config file's `[[external]]` tables add more.
    #[cfg(feature = "hub")]
    pub fn external(mut self, external: crate::hub::External) -> Self {
        self.externals.push(external);
        self
    }

    /// Where the server's messages for people go. Default: standard error.
    pub fn messages(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.messages = Arc::new(sink);
        self
    }
}

/// `path` made absolute against the current folder.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
