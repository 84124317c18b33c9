//! What the hub is told of an external server: how to reach it (a command over stdio, a URL
//! over Streamable HTTP), what its tools are called here, and how long a call may take. The
//! builder for host binaries, and the `[[external]]` table of a config file.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// How the hub reaches an external server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// A program the hub starts, speaking MCP over its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// The folder it runs in (default: this process's).
        cwd: Option<PathBuf>,
    },
    /// A server at a URL, over MCP's Streamable HTTP.
    Http {
        /// The endpoint, such as `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
        /// The environment variable holding a bearer token, sent as `Authorization: Bearer …`
        /// (read each time the hub connects, so that a rotated token is picked up).
        bearer_env: Option<String>,
    },
}

/// Which revision of MCP the hub speaks to an external server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Revision {
    /// Asks with `server/discover` for 2026-07-28 and falls back to the 2025-11-25 handshake
    /// when the server does not know it (the default).
    #[default]
    Auto,
    /// 2025-11-25: `initialize`, a session.
    V2025_11_25,
    /// 2026-07-28: `server/discover`, stateless requests.
    V2026_07_28,
}

impl Revision {
    fn parse(text: &str) -> Option<Revision> {
        match text {
            "auto" => Some(Revision::Auto),
            "2025-11-25" => Some(Revision::V2025_11_25),
            "2026-07-28" => Some(Revision::V2026_07_28),
            _ => None,
        }
    }
}

/// An external MCP server whose tools the hub serves as this binary's own.
///
/// ```
/// use buril::hub::External;
///
/// let everything = External::command("everything", "npx", ["-y", "@modelcontextprotocol/server-everything"])
///     .timeout(std::time::Duration::from_secs(30))
///     .enable(true);
/// assert_eq!(everything.prefix(), "everything_");
/// let remote = External::url("remote", "http://127.0.0.1:3001/mcp").bearer_env("REMOTE_TOKEN");
/// assert_eq!(remote.name(), "remote");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct External {
    name: String,
    transport: Transport,
    prefix: Option<String>,
    timeout: Option<Duration>,
    handshake: Duration,
    enable: bool,
    revision: Revision,
    implements: bool,
}

/// How long a server may take to answer its handshake, by default.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

impl External {
    /// A server the hub starts as `command` with `args`, over stdio. `name` names it (in
    /// `mcp_list_servers`, errors and logs) and, followed by `_`, prefixes its tools' names.
    pub fn command(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        External::new(
            name,
            Transport::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
        )
    }

    /// A server at `url`, over Streamable HTTP.
    pub fn url(name: impl Into<String>, url: impl Into<String>) -> Self {
        External::new(
            name,
            Transport::Http {
                url: url.into(),
                headers: BTreeMap::new(),
                bearer_env: None,
            },
        )
    }

    fn new(name: impl Into<String>, transport: Transport) -> Self {
        External {
            name: name.into(),
            transport,
            prefix: None,
            timeout: None,
            handshake: DEFAULT_HANDSHAKE_TIMEOUT,
            enable: false,
            revision: Revision::Auto,
            implements: false,
        }
    }

    /// A variable added to the environment of the server's process (stdio only).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Stdio { env, .. } = &mut self.transport {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// The folder the server's process runs in (stdio only).
    pub fn cwd(mut self, folder: impl Into<PathBuf>) -> Self {
        if let Transport::Stdio { cwd, .. } = &mut self.transport {
            *cwd = Some(folder.into());
        }
        self
    }

    /// A header sent with every request (HTTP only).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Http { headers, .. } = &mut self.transport {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// The environment variable holding a bearer token (HTTP only).
    pub fn bearer_env(mut self, variable: impl Into<String>) -> Self {
        if let Transport::Http { bearer_env, .. } = &mut self.transport {
            *bearer_env = Some(variable.into());
        }
        self
    }

    /// What the server's tool names are prefixed with here (default: its name and `_`; may be
    /// empty when its names follow buril's rule already).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// How long a call of one of its tools may take before it is answered `timeout` (and
    /// cancelled on the server). Default: the dispatcher's timeouts alone.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long it may take to start and answer the handshake before the attempt fails (and
    /// is made again with backoff). Default: 30 s.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.handshake = timeout;
        self
    }

    /// Whether its tools are enabled from the start. Default: no, a third party's tools stay
    /// off until a rule enables them (`--enable family:NAME`, an `enable` pattern).
    pub fn enable(mut self, enable: bool) -> Self {
        self.enable = enable;
        self
    }

    /// Whether its tools may implement the tools declared here and done elsewhere
    /// (`#[tool(editor)]`: the Unity editor's host is such a server). A tool of the server named
    /// like such a declaration is then not served as the server's own: the declaration's calls
    /// are forwarded to it ([`editor`](super::editor)). Default: no.
    pub fn implements_declarations(mut self, implements: bool) -> Self {
        self.implements = implements;
        self
    }

    /// Whether its tools may implement declarations ([`implements_declarations`](Self::implements_declarations)).
    pub fn implements(&self) -> bool {
        self.implements
    }

    /// The revision of MCP spoken to it. Default: [`Revision::Auto`].
    pub fn revision(mut self, revision: Revision) -> Self {
        self.revision = revision;
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How it is reached.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// What its tools' names are prefixed with here.
    pub fn prefix(&self) -> String {
        self.prefix
            .clone()
            .unwrap_or_else(|| format!("{}_", self.name))
    }

    /// The timeout of its tools' calls, if it has one.
    pub fn call_timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// How long its handshake may take.
    pub fn handshake_limit(&self) -> Duration {
        self.handshake
    }

    /// Whether its tools are enabled from the start.
    pub fn enabled(&self) -> bool {
        self.enable
    }

    /// The revision spoken to it.
    pub fn protocol(&self) -> Revision {
        self.revision
    }

    /// What is wrong with this description, if anything: the name must be a family (lowercase
    /// snake case), the prefix a family and `_` (or empty), the command or URL not empty.
    pub fn check(&self) -> Result<(), ExternalError> {
        let error = |reason: String| ExternalError {
            server: self.name.clone(),
            reason,
        };
        if !buril_names::is_valid_family(&self.name) {
            return Err(error(format!(
                "the name must be lowercase snake case (a tool family, such as `{}`), as it \
                 prefixes the server's tools",
                suggested_family(&self.name)
            )));
        }
        let prefix = self.prefix();
        if !prefix.is_empty()
            && !prefix
                .strip_suffix('_')
                .is_some_and(buril_names::is_valid_family)
        {
            return Err(error(format!(
                "the prefix `{prefix}` must be a family and `_` (such as `{}_`), or empty",
                suggested_family(&prefix)
            )));
        }
        match &self.transport {
            Transport::Stdio { command, .. } if command.trim().is_empty() => {
                Err(error("the command is empty".to_owned()))
            }
            Transport::Http { url, .. }
                if !(url.starts_with("http://") || url.starts_with("https://")) =>
            {
                Err(error(format!(
                    "the URL `{url}` must start with `http://` or `https://`"
                )))
            }
            _ => Ok(()),
        }
    }
}

fn suggested_family(text: &str) -> String {
    let snake = buril_names::to_snake_case(text);
    if snake.starts_with(|c: char| c.is_ascii_lowercase()) {
        snake
    } else {
        format!("server_{snake}")
    }
}

/// Why an external server cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExternalError {
    /// The server's name.
    pub server: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for ExternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the external server `{}`: {}", self.server, self.reason)
    }
}

impl std::error::Error for ExternalError {}

/// An `[[external]]` table of a config file, or the input of `mcp_register_external`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalTable {
    /// The server's name: a lowercase snake case family, which prefixes its tools' names.
    pub name: String,
    /// The program to start (stdio); give this or `url`.
    #[serde(default)]
    pub command: Option<String>,
    /// The program's arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to the program's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The folder the program runs in.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// The server's Streamable HTTP endpoint; give this or `command`.
    #[serde(default)]
    pub url: Option<String>,
    /// Headers sent with every request (HTTP).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The environment variable holding a bearer token (HTTP).
    #[serde(default)]
    pub bearer_env: Option<String>,
    /// What the server's tool names are prefixed with (default: its name and `_`).
    #[serde(default)]
    pub prefix: Option<String>,
    /// How long a call of one of its tools may take, in seconds.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// How long it may take to start and answer the handshake, in seconds (default 30).
    #[serde(default)]
    pub connect_timeout: Option<f64>,
    /// Whether its tools are enabled from the start (default: off, as a third party's).
    #[serde(default)]
    pub enable: bool,
    /// The revision of MCP spoken to it: `auto` (default), `2025-11-25` or `2026-07-28`.
    #[serde(default)]
    pub protocol: Option<String>,
}

impl ExternalTable {
    /// The server this table describes, checked.
    pub fn into_external(self) -> Result<External, ExternalError> {
        let error = |reason: &str| ExternalError {
            server: self.name.clone(),
            reason: reason.to_owned(),
        };
        let mut external = match (&self.command, &self.url) {
            (Some(command), None) => {
                if !self.headers.is_empty() || self.bearer_env.is_some() {
                    return Err(error(
                        "`headers` and `bearer_env` are for a server at a `url`, not a `command`",
                    ));
                }
                let mut external = External::command(&self.name, command, self.args.clone());
                for (key, value) in &self.env {
                    external = external.env(key, value);
                }
                if let Some(cwd) = &self.cwd {
                    external = external.cwd(cwd);
                }
                external
            }
            (None, Some(url)) => {
                if !self.args.is_empty() || !self.env.is_empty() || self.cwd.is_some() {
                    return Err(error(
                        "`args`, `env` and `cwd` are for a server started by `command`, not one \
                         at a `url`",
                    ));
                }
                let mut external = External::url(&self.name, url);
                for (key, value) in &self.headers {
                    external = external.header(key, value);
                }
                if let Some(variable) = &self.bearer_env {
                    external = external.bearer_env(variable);
                }
                external
            }
            (Some(_), Some(_)) => return Err(error("give a `command` or a `url`, not both")),
            (None, None) => {
                return Err(error(
                    "give a `command` (a program to start over stdio) or a `url` (Streamable \
                     HTTP)",
                ));
            }
        };
        if let Some(prefix) = self.prefix {
            external = external.with_prefix(prefix);
        }
        if let Some(seconds) = self.timeout {
            match Duration::try_from_secs_f64(seconds) {
                Ok(timeout) if seconds > 0.0 => external = external.timeout(timeout),
                _ => {
                    return Err(error(&format!(
                        "`timeout` must be a positive number of seconds, not {seconds}"
                    )));
                }
            }
        }
        if let Some(seconds) = self.connect_timeout {
            match Duration::try_from_secs_f64(seconds) {
                Ok(timeout) if seconds > 0.0 => external = external.connect_timeout(timeout),
                _ => {
                    return Err(error(&format!(
                        "`connect_timeout` must be a positive number of seconds, not {seconds}"
                    )));
                }
            }
        }
        if let Some(protocol) = &self.protocol {
            let revision = Revision::parse(protocol).ok_or_else(|| {
                error(&format!(
                    "`protocol` is `auto`, `2025-11-25` or `2026-07-28`, not `{protocol}`"
                ))
            })?;
            external = external.revision(revision);
        }
        external = external.enable(self.enable);
        external.check()?;
        Ok(external)
    }
}

/// The `[[external]]` tables as servers, each mistake named with the table's place; a
/// relative `cwd` is taken from the config file's folder.
pub(crate) fn from_tables(
    tables: Vec<toml::Table>,
    folder: Option<&Path>,
    errors: &mut Vec<String>,
) -> Vec<External> {
    let mut externals: Vec<External> = Vec::new();
    for (at, table) in tables.into_iter().enumerate() {
        let place = format!("`[[external]]` number {}", at + 1);
        let mut table: ExternalTable = match table.try_into() {
            Ok(table) => table,
            Err(error) => {
                errors.push(format!("{place}: {error}"));
                continue;
            }
        };
        if let (Some(cwd), Some(folder)) = (&table.cwd, folder)
            && cwd.is_relative()
        {
            table.cwd = Some(folder.join(cwd));
        }
        match table.into_external() {
            Ok(external) if externals.iter().any(|e| e.name() == external.name()) => {
                errors.push(format!(
                    "{place}: another `[[external]]` is named `{}` already",
                    external.name()
                ));
            }
            Ok(external) => externals.push(external),
            Err(error) => errors.push(format!("{place}: {error}")),
        }
    }
    externals
}

/// The `[[external]]` tables of a config file (the rest of the file is the server's): what a
/// one-shot command (`list`, `call`) connects to. A missing file has none.
#[doc(hidden)]
pub fn from_config_file(path: &Path) -> Result<Vec<External>, String> {
    #[derive(Deserialize)]
    struct Tables {
        #[serde(default)]
        external: Vec<toml::Table>,
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
    };
    let tables: Tables =
        toml::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    let mut errors = Vec::new();
    let externals = from_tables(tables.external, path.parent(), &mut errors);
    if errors.is_empty() {
        Ok(externals)
    } else {
        Err(format!("{}: {}", path.display(), errors.join("; ")))
    }
}

/// A server given on the command line as `NAME=URL` (Streamable HTTP) or `NAME=COMMAND ARG…`
/// (a program over stdio; the words split at spaces: a config file's `[[external]]` takes
/// arguments with spaces).
#[doc(hidden)]
pub fn from_flag(text: &str) -> Result<External, String> {
    let Some((name, target)) = text.split_once('=') else {
        return Err(format!(
            "`--external {text}`: write `NAME=URL` or `NAME=COMMAND ARG…`"
        ));
    };
    let target = target.trim();
    let external = if target.starts_with("http://") || target.starts_with("https://") {
        External::url(name.trim(), target)
    } else {
        let mut words = target.split_whitespace();
        let Some(command) = words.next() else {
            return Err(format!("`--external {text}`: the command is empty"));
        };
        External::command(name.trim(), command, words)
    };
    external.check().map_err(|error| error.to_string())?;
    Ok(external)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Result<External, String> {
        let table: ExternalTable = toml::from_str(text).map_err(|e| e.to_string())?;
        table.into_external().map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_reads_as_a_server() {
        let external = table(
            "name = \"everything\"\ncommand = \"npx\"\nargs = [\"server-everything\"]\ntimeout = 2.5\n",
        )
        .unwrap();
        assert_eq!(external.prefix(), "everything_");
        assert_eq!(external.call_timeout(), Some(Duration::from_millis(2500)));
        assert!(!external.enabled());
        let external = table(
            "name = \"remote\"\nurl = \"http://127.0.0.1:1/mcp\"\nprefix = \"\"\nenable = true\n",
        )
        .unwrap();
        assert_eq!(external.prefix(), "");
        assert!(external.enabled());
    }

    #[test]
    fn mistakes_are_named() {
        for (text, said) in [
            ("name = \"x\"\n", "give a `command`"),
            (
                "name = \"x\"\ncommand = \"a\"\nurl = \"http://h\"\n",
                "not both",
            ),
            ("name = \"Bad-Name\"\ncommand = \"a\"\n", "`bad_name`"),
            (
                "name = \"x\"\nurl = \"ftp://h\"\n",
                "must start with `http://`",
            ),
            (
                "name = \"x\"\ncommand = \"a\"\ntimeout = 0\n",
                "positive number",
            ),
            (
                "name = \"x\"\ncommand = \"a\"\nprotocol = \"2024\"\n",
                "`auto`",
            ),
            (
                "name = \"x\"\ncommand = \"a\"\nprefix = \"X-\"\n",
                "must be a family",
            ),
            (
                "name = \"x\"\ncommand = \"a\"\nheaders = {a = \"b\"}\n",
                "`headers`",
            ),
            ("name = \"x\"\ncommand = \"a\"\nnope = 1\n", "unknown field"),
        ] {
            let error = table(text).unwrap_err();
            assert!(error.contains(said), "{text:?}: {error}");
        }
    }
}
