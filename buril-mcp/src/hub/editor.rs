//! The Unity editor through the hub: its host (the Unity package's `BurilEditorHost`) is an MCP
//! server on loopback, announced in the project's `Library/Buril/editor.json` with a token;
//! [`follow`] watches that file and keeps the editor connected as the hub's server `unity`.
//!
//! - The editor's tools that implement a tool declared here (`#[tool(editor)]`) are not served
//!   as the editor's own: the declaration's calls, validated here, are forwarded to them
//!   ([`buril_core::editor`]), once their contract hash (`_meta["buril/tool-metadata"]`) is the
//!   declaration's. A class generated from an older contract is refused by name with both
//!   hashes; a declaration the editor does not implement answers `unavailable` naming it.
//! - Its other tools (written in C# alone) are a third party's, as any external server's:
//!   served with the schemas the editor gives, validated here, off until enabled (the
//!   server's `enable`, a rule such as `--enable family:myfamily`).
//! - A domain reload: the host says it is reloading, then comes back with a new generation; the
//!   hub connects again, lists the tools anew (clients get `notifications/tools/list_changed`),
//!   and a call of a declared tool made meanwhile waits for it, at most
//!   [`EditorOptions::wait`], before it answers `unavailable`. A call the host says it did not
//!   run (it was queued for the main thread when the reload began) is sent again. An editor
//!   that exits, or whose connection drops mid-call, gives `unavailable` at once.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Map, Value};

use super::Hub;
use super::connection::Status;
use super::external::{External, Revision};
use super::forward;
use buril_core::context::Context;
use buril_core::editor::{self as declared, EditorLink};
use buril_core::provided::BoxFuture;
use buril_core::{ErrorKind, Registry, ToolError};

/// The hub's name for the editor: its own tools' provider.
pub const SERVER: &str = "unity";

/// The endpoint file under a project's folder.
pub const ENDPOINT_FILE: &str = "Library/Buril/editor.json";

/// How an editor is followed: its project, how long a call waits for it, how often the
/// endpoint file is read.
#[derive(Debug, Clone)]
pub struct EditorOptions {
    project: PathBuf,
    wait: Duration,
    poll: Duration,
    enable: bool,
}

impl EditorOptions {
    /// The editor of the Unity project in `project` (the folder that holds `Assets` and
    /// `Library`).
    pub fn new(project: impl Into<PathBuf>) -> Self {
        EditorOptions {
            project: project.into(),
            wait: Duration::from_secs(30),
            poll: Duration::from_millis(100),
            enable: false,
        }
    }

    /// How long a call of a declared editor tool waits for an editor that is reloading its
    /// scripts, or connecting, before it answers `unavailable`. Default: 30 s.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// How often the endpoint file is read. Default: 100 ms.
    pub fn poll(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    /// Whether the editor's own tools (written in C# alone) are enabled from the start.
    /// Default: no, as any third party's.
    pub fn enable(mut self, enable: bool) -> Self {
        self.enable = enable;
        self
    }

    /// The endpoint file: `Library/Buril/editor.json` under the project.
    pub fn endpoint_file(&self) -> PathBuf {
        self.project.join(ENDPOINT_FILE)
    }
}

/// What the editor's host writes to its endpoint file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Endpoint {
    url: String,
    token: String,
    #[serde(default)]
    pid: u32,
    #[serde(default)]
    generation: u64,
    #[serde(default)]
    state: String,
}

/// Where the editor is, as the endpoint file says.
#[derive(Debug, Clone, PartialEq)]
enum Seen {
    /// No editor: why.
    Absent(String),
    /// Reloading its scripts.
    Reloading,
    /// Serving, in this generation of its domain.
    Ready(u64),
}

/// An editor followed by the hub (see the [module](self)).
pub struct Editor {
    hub: Arc<Hub>,
    options: EditorOptions,
    seen: tokio::sync::watch::Sender<Seen>,
}

static FOLLOWED: OnceLock<Arc<Editor>> = OnceLock::new();

/// Follows the editor of `options`' project for the hub of `registry`: connects it whenever its
/// endpoint file says it serves, and makes it the link of the tools declared with
/// `#[tool(editor)]`. One editor per process: a second call answers the first's.
pub fn follow(registry: &'static Registry, options: EditorOptions) -> Arc<Editor> {
    let editor = FOLLOWED.get_or_init(|| {
        let editor = Arc::new(Editor {
            hub: Hub::of(registry),
            options,
            seen: tokio::sync::watch::Sender::new(Seen::Absent(
                "no editor has been seen yet".to_owned(),
            )),
        });
        editor.hub.runtime().spawn(Arc::clone(&editor).watch());
        declared::connect(Arc::new(Link(Arc::clone(&editor))));
        editor
    });
    Arc::clone(editor)
}

impl Editor {
    /// The options it follows its editor with.
    pub fn options(&self) -> &EditorOptions {
        &self.options
    }

    /// Whether an editor is connected and its tools listed now.
    pub fn is_connected(&self) -> bool {
        matches!(*self.seen.borrow(), Seen::Ready(_))
            && self
                .hub
                .status(SERVER)
                .is_some_and(|status| status.status == Status::Connected)
    }

    /// Waits, at most `timeout`, until an editor is connected and its tools listed (as a
    /// one-shot command does before it looks its tools up); answers whether one is. Blocks the
    /// calling thread (not an async task's).
    pub fn wait_connected(&self, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        loop {
            if self.is_connected() {
                return true;
            }
            if matches!(*self.seen.borrow(), Seen::Absent(_)) && self.first_look_done() {
                return false;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether the endpoint file has been read once.
    fn first_look_done(&self) -> bool {
        !matches!(&*self.seen.borrow(), Seen::Absent(why) if why == "no editor has been seen yet")
    }

    /// Reads the endpoint file every `poll` and keeps the hub's connection to what it says.
    async fn watch(self: Arc<Self>) {
        let file = self.options.endpoint_file();
        let mut connected: Option<Endpoint> = None;
        loop {
            let now = match read_endpoint(&file) {
                Err(why) => Seen::Absent(why),
                Ok(endpoint) if !alive(endpoint.pid) => Seen::Absent(format!(
                    "the editor that wrote {} (process {}) has exited",
                    file.display(),
                    endpoint.pid
                )),
                Ok(endpoint) if endpoint.state == "reloading" => Seen::Reloading,
                Ok(endpoint) => {
                    let generation = endpoint.generation;
                    if connected.as_ref() != Some(&endpoint) {
                        self.hub.remove(SERVER);
                        let external = External::url(SERVER, endpoint.url.clone())
                            .header("Authorization", format!("Bearer {}", endpoint.token))
                            .with_prefix("")
                            .revision(Revision::V2025_11_25)
                            .implements_declarations(true)
                            .enable(self.options.enable);
                        match self.hub.add(external) {
                            Ok(()) => connected = Some(endpoint),
                            Err(error) => {
                                tracing::warn!(target: "buril::hub", "the editor: {error}");
                            }
                        }
                    }
                    Seen::Ready(generation)
                }
            };
            match &now {
                Seen::Absent(_) if connected.take().is_some() => {
                    self.hub.remove(SERVER);
                }
                Seen::Reloading => {
                    if let Some(connection) = self.hub.servers().get(SERVER) {
                        self.hub.registry.set_unavailable(
                            &connection.provider,
                            Some("the Unity editor is reloading its scripts".to_owned()),
                        );
                    }
                }
                _ => {}
            }
            self.seen.send_if_modified(|seen| {
                let changed = *seen != now;
                *seen = now;
                changed
            });
            tokio::time::sleep(self.options.poll).await;
        }
    }

    /// A call of the declared tool `tool` with its validated `input`: forwarded once the
    /// editor serves and implements it under the same contract, waiting through a reload.
    async fn call(
        &self,
        ctx: Context,
        tool: &'static str,
        input: Value,
    ) -> Result<Value, ToolError> {
        let Some(hash) = self
            .hub
            .registry
            .get(tool)
            .and_then(|found| found.as_linked())
            .map(|linked| linked.metadata_hash().to_owned())
        else {
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!("no tool `{tool}` is declared here"),
            ));
        };
        let arguments = match input {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let until = Instant::now() + self.options.wait;
        let mut seen = self.seen.subscribe();
        loop {
            let state = seen.borrow_and_update().clone();
            if let Seen::Absent(why) = &state
                && self.first_look_done()
            {
                return Err(declared::unavailable(tool, why));
            }
            let connection = self.hub.servers().get(SERVER).cloned();
            let mut changes = connection.as_ref().map(|c| c.changes.subscribe());
            let ready = matches!(state, Seen::Ready(_))
                && connection
                    .as_ref()
                    .is_some_and(|c| c.status().status == Status::Connected);
            if let (true, Some(connection)) = (ready, &connection) {
                let implementation = connection
                    .implementations
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(tool)
                    .cloned();
                let Some(implementation) = implementation else {
                    return Err(declared::unavailable(
                        tool,
                        &format!(
                            "the connected editor does not implement it: regenerate the Unity \
                             package (`codegen --unity-package`) and subclass its class for \
                             `{tool}` in the editor"
                        ),
                    ));
                };
                if implementation.hash.as_deref() != Some(hash.as_str()) {
                    return Err(declared::unavailable(
                        tool,
                        &format!(
                            "the editor's class for it was generated from another contract (the \
                             editor's {}, this build's {hash}): regenerate the Unity package and \
                             let the editor reload",
                            implementation.hash.as_deref().unwrap_or("none")
                        ),
                    ));
                }
                match forward::forward(&connection.link, tool.to_owned(), arguments.clone(), &ctx)
                    .await
                {
                    Ok(result) => {
                        return forward::into_data(SERVER, result, implementation.structured);
                    }
                    // Queued for the main thread when a reload began: it did not run.
                    Err(error) if forward::did_not_run(&error) => {}
                    // Refused at the door of a domain going away: its host answers every call
                    // it started before it stops listening, so this one did not run either.
                    Err(error)
                        if error.kind() == ErrorKind::Unavailable
                            && self.reloaded_since(&state) => {}
                    Err(error) => return Err(error),
                }
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(declared::unavailable(
                    tool,
                    &format!(
                        "the editor did not serve again within {:.1} s (it was {})",
                        self.options.wait.as_secs_f64(),
                        match state {
                            Seen::Reloading => "reloading its scripts",
                            _ => "connecting",
                        }
                    ),
                ));
            }
            let changed = async {
                match changes.as_mut() {
                    Some(changes) => {
                        let _ = changes.changed().await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = seen.changed() => {}
                () = changed => {}
                () = tokio::time::sleep(left.min(Duration::from_millis(50))) => {}
                () = ctx.cancelled() => return Err(ToolError::cancelled()),
            }
        }
    }
}

impl Editor {
    /// Whether the endpoint file says, now, that the editor seen as `state` has begun to
    /// reload, or has reloaded, since.
    fn reloaded_since(&self, state: &Seen) -> bool {
        let Seen::Ready(generation) = state else {
            return false;
        };
        read_endpoint(&self.options.endpoint_file()).is_ok_and(|endpoint| {
            alive(endpoint.pid)
                && (endpoint.state == "reloading" || endpoint.generation != *generation)
        })
    }
}

/// The declared editor tools' link: their calls go to the followed editor.
struct Link(Arc<Editor>);

impl EditorLink for Link {
    fn call(&self, ctx: Context, tool: &'static str, input: Value) -> BoxFuture {
        let editor = Arc::clone(&self.0);
        Box::pin(async move { editor.call(ctx, tool, input).await })
    }
}

fn read_endpoint(file: &Path) -> Result<Endpoint, String> {
    let text = std::fs::read_to_string(file).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => {
            format!("no editor is connected ({} does not exist)", file.display())
        }
        _ => format!("{} cannot be read: {error}", file.display()),
    })?;
    serde_json::from_str(&text).map_err(|error| format!("{} is not valid: {error}", file.display()))
}

/// Whether the process `pid` is running (where that can be told; elsewhere, yes).
fn alive(pid: u32) -> bool {
    if pid == 0 {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        Path::new("/proc").join(pid.to_string()).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}
