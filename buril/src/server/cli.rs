//! The `serve` subcommand, as a CLI [`Extension`].

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::task::{Context, Poll};
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use super::auth::{AuthOptions, JwksSource};
use super::defaults::{DEFAULT_CONFIG_FILE, DEFAULT_OUTPUT_DIR};
use super::error::ServerError;
use super::options::ServerOptions;
use super::serve::Server;
use crate::cli::{Extension, Invocation};
use crate::dispatch::DispatcherBuilder;
use crate::middleware::{AuditLog, ScopeRules};

/// The `serve` subcommand over the binary's tools, with default dispatcher settings:
/// `cli.extend(buril::server::extension())`.
///
/// A host whose tools need state uses [`extension_with`].
pub fn extension() -> Extension {
    extension_with(|builder| builder)
}

/// The `serve` subcommand, with the dispatcher configured by `configure` (host state,
/// timeouts, policy):
///
/// ```no_run
/// # struct Project;
/// fn main() -> std::process::ExitCode {
///     buril::cli::Cli::new()
///         .extend(buril::server::extension_with(|dispatcher| dispatcher.state(Project)))
///         .run()
/// }
/// ```
pub fn extension_with(
    configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder + 'static,
) -> Extension {
    Extension::new(command(), move |invocation| run(invocation, configure))
}

fn command() -> Command {
    Command::new("serve")
        .about("Serves the tools over MCP: over stdio, or over Streamable HTTP with --http.")
        .arg(Arg::new("http").long("http").value_name("ADDR").help(
            "Serve Streamable HTTP at http://ADDR/mcp instead of stdio. ADDR is PORT \
                     (on 127.0.0.1), HOST:PORT or [IPV6]:PORT; port 0 picks a free one",
        ))
        .arg(
            Arg::new("no-auth")
                .long("no-auth")
                .action(ArgAction::SetTrue)
                .help(
                    "Serve HTTP on an address other machines can reach although nobody is \
                     authorized (without it such an address refuses to start)",
                ),
        )
        .arg(
            Arg::new("studio")
                .long("studio")
                .action(ArgAction::SetTrue)
                .hide(!cfg!(feature = "studio"))
                .help(
                    "Serve the studio at /studio/ too: a page to see, try and steer the tools, \
                     their settings and tasks (over HTTP: --http, default 127.0.0.1 on a free \
                     port). Without other authorization the server makes a token for it, which \
                     its MCP endpoint needs too; `tools studio` is the same",
                ),
        )
        .arg(
            Arg::new("audit")
                .long("audit")
                .action(ArgAction::SetTrue)
                .help(
                    "Log one line per call (target buril::audit, INFO: who, tool, outcome, \
                     duration, input size; never the input)",
                ),
        )
        .arg(
            Arg::new("trace-content")
                .long("trace-content")
                .action(ArgAction::SetTrue)
                .help(
                    "Record each call's arguments and result on its span \
                     (gen_ai.tool.call.arguments/result); off: they may hold secrets",
                ),
        )
        .arg(
            Arg::new("log-format")
                .long("log-format")
                .value_name("FORMAT")
                .value_parser(["text", "json"])
                .help(
                    "How `tracing` events go to standard error: text (with BURIL_LOG set), or \
                     json, one object per line (at INFO unless BURIL_LOG says otherwise)",
                ),
        )
        .arg(
            Arg::new("auth-issuer")
                .long("auth-issuer")
                .value_name("URL")
                .help(
                    "Authorize HTTP callers by JWT access tokens of this OAuth authorization \
                     server (its issuer identifier; keys from its metadata). Overrides \
                     [auth] issuer",
                ),
        )
        .arg(
            Arg::new("auth-resource")
                .long("auth-resource")
                .value_name("URI")
                .help(
                    "The URI clients reach this server at, which tokens must be issued for \
                     (RFC 8707) [default: http://ADDR/mcp, loopback only]",
                ),
        )
        .arg(
            Arg::new("auth-jwks")
                .long("auth-jwks")
                .value_name("URL|FILE")
                .help("The issuer's keys (JWKS), instead of its metadata's jwks_uri"),
        )
        .arg(
            Arg::new("auth-scope")
                .long("auth-scope")
                .value_name("SCOPE")
                .action(ArgAction::Append)
                .help("A scope every call needs (repeatable); per family and tool in [auth]"),
        )
        .arg(
            Arg::new("config")
                .long("config")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help(format!(
                    "TOML file of rules and timeouts, applied again whenever it changes \
                     [default: {DEFAULT_CONFIG_FILE}, if present]"
                )),
        )
        .arg(
            Arg::new("enable")
                .long("enable")
                .value_name("PATTERN")
                .action(ArgAction::Append)
                .help(
                    "Enable tools, dangerous ones included: a name, a glob (scene_*) or a \
                     family (family:scene); repeatable",
                ),
        )
        .arg(
            Arg::new("disable")
                .long("disable")
                .value_name("PATTERN")
                .action(ArgAction::Append)
                .help("Disable tools (a name, glob or family:NAME); repeatable; wins over enable"),
        )
        .arg(
            Arg::new("exit-with-parent")
                .long("exit-with-parent")
                .action(ArgAction::SetTrue)
                .help(
                    "Stop when the process that started the server ends, however it ends (an \
                     editor that crashed); Linux and macOS",
                ),
        )
        .arg(
            Arg::new("allow-dangerous")
                .long("allow-dangerous")
                .action(ArgAction::SetTrue)
                .help("Enable every dangerous tool"),
        )
        .arg(
            Arg::new("timeout")
                .long("timeout")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help("Timeout of every call without its own [default: 60]"),
        )
        .arg(
            Arg::new("max-result-bytes")
                .long("max-result-bytes")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help(
                    "Write results whose JSON is longer than N bytes to a file and answer with \
                     its path; 0 never does [default: 100000]",
                ),
        )
        .arg(
            Arg::new("output-dir")
                .long("output-dir")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help(format!(
                    "Folder for large results [default: {DEFAULT_OUTPUT_DIR}]"
                )),
        )
        .arg(
            Arg::new("skills")
                .long("skills")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help(
                    "Serve the skills in DIR (DIR/<name>/SKILL.md, as `codegen` writes them) over \
                     MCP's skills extension",
                ),
        )
        .arg(Arg::new("tasks").long("tasks").value_name("STORE").help(
            "Where the tasks of task tools are kept: `memory`, `file:DIR` (shared by \
                     the processes of one machine), or a Redis URL, `redis://HOST:PORT/DB` \
                     (shared by every server that uses it; feature `redis`) [default: memory, \
                     or BURIL_TASKS]",
        ))
        .arg(
            Arg::new("task-ttl")
                .long("task-ttl")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help("How long a task is kept after it ends [default: 3600]"),
        )
        .arg(
            Arg::new("task-lease")
                .long("task-lease")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help(
                    "How long a server's word that it still runs a task holds; a task whose \
                     server stopped renewing it fails this long (and 5 s) after [default: 15]",
                ),
        )
        .arg(
            Arg::new("page-size")
                .long("page-size")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help("Tools per page of tools/list [default: 100]"),
        )
        .arg(
            Arg::new("allowed-origin")
                .long("allowed-origin")
                .value_name("ORIGIN")
                .action(ArgAction::Append)
                .help(
                    "Also accept HTTP requests from this browser origin (e.g. \
                     https://app.example:443); loopback origins always are; repeatable",
                ),
        )
}

/// What the server thread hands the thread that owns standard output and error.
enum Message {
    Out(Vec<u8>),
    Err(String),
    Done(Result<(), ServerError>),
}

fn run(
    invocation: Invocation<'_>,
    configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder,
) -> ExitCode {
    let Invocation {
        matches,
        registry,
        out,
        err,
    } = invocation;
    let (tx, mut rx) = unbounded_channel::<Message>();
    let (options, http) = match options(matches, tx.clone()) {
        Ok(parsed) => parsed,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return ExitCode::from(2);
        }
    };
    let dispatcher = configure(DispatcherBuilder::default().registry(registry)).build();
    if matches.get_flag("audit") {
        // Outermost of the host's layers: it sees what they refuse.
        dispatcher.add_outer_layer(AuditLog::new());
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .thread_name("buril-server")
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(err, "error: cannot start the server's runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let options = match runtime.block_on(with_tasks(options, matches)) {
        Ok(options) => options,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return ExitCode::from(2);
        }
    };
    let server = match Server::new(dispatcher, options) {
        Ok(server) => server,
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            return ExitCode::from(2);
        }
    };
    // The CLI holds the locks of standard output and error on this thread, so the server runs
    // on another and sends this one what to write.
    let done = tx.clone();
    let stop = tx.clone();
    let writer = ChannelWriter(tx.clone());
    let thread = std::thread::Builder::new()
        .name("buril-serve".into())
        .spawn(move || {
            let result = runtime.block_on(async move {
                match http {
                    Some(addr) => {
                        let bound = server.bind_http(addr).await?;
                        let _ = tx.send(Message::Err(format!(
                            "buril: serving MCP over Streamable HTTP at {}",
                            bound.url()
                        )));
                        #[cfg(feature = "studio")]
                        if let Some(url) = bound.studio_url() {
                            let _ = tx.send(Message::Err(format!("buril: the studio is at {url}")));
                        }
                        bound.run().await
                    }
                    None => server.serve_io(tokio::io::stdin(), writer).await,
                }
            });
            let _ = done.send(Message::Done(result));
            runtime.shutdown_timeout(Duration::from_millis(200));
        });
    if let Err(error) = thread {
        let _ = writeln!(err, "error: cannot start the server's thread: {error}");
        return ExitCode::FAILURE;
    }
    if matches.get_flag("exit-with-parent") {
        watch_parent(stop);
    }
    while let Some(message) = rx.blocking_recv() {
        match message {
            Message::Out(bytes) => {
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    // The client closed its end: nobody is listening any more.
                    return ExitCode::SUCCESS;
                }
            }
            Message::Err(text) => {
                let _ = writeln!(err, "{text}");
            }
            Message::Done(Ok(())) => return ExitCode::SUCCESS,
            Message::Done(Err(error)) => {
                let _ = writeln!(err, "error: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    // The server thread ended without a word: it panicked.
    ExitCode::FAILURE
}

/// `--exit-with-parent`: a thread that ends the server when this process's parent ends (on
/// Unix the process is then adopted by another, and its parent id changes). Over stdio the
/// parent's end closes the input, which ends the server anyway; over HTTP nothing else would.
fn watch_parent(stop: tokio::sync::mpsc::UnboundedSender<Message>) {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        let _ = std::thread::Builder::new()
            .name("buril-parent".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_millis(500));
                    if std::os::unix::process::parent_id() != parent {
                        let _ = stop.send(Message::Err(
                            "buril: the process that started this server ended; stopping".into(),
                        ));
                        let _ = stop.send(Message::Done(Ok(())));
                        return;
                    }
                }
            });
    }
    #[cfg(not(unix))]
    {
        let _ = stop.send(Message::Err(
            "buril: warning: --exit-with-parent is not supported on this system; stop the \
             server when its parent ends"
                .into(),
        ));
    }
}

/// The options with the task store and settings of `--tasks`, `--task-ttl` and
/// `--task-lease` (opened here: a Redis store connects now, so that a wrong URL stops the
/// server before it serves).
async fn with_tasks(options: ServerOptions, matches: &ArgMatches) -> Result<ServerOptions, String> {
    use crate::tasks::{FileStore, MemoryStore, TaskSettings, TaskStore, Tasks};
    let seconds = |name: &str| -> Result<Option<Duration>, String> {
        match matches.get_one::<f64>(name) {
            None => Ok(None),
            Some(&seconds) => match Duration::try_from_secs_f64(seconds) {
                Ok(duration) if seconds > 0.0 => Ok(Some(duration)),
                _ => Err(format!("--{name} takes a positive number of seconds")),
            },
        }
    };
    let mut settings = TaskSettings::new();
    if let Some(ttl) = seconds("task-ttl")? {
        settings = settings.ttl(ttl);
    }
    if let Some(lease) = seconds("task-lease")? {
        settings = settings.lease(lease);
    }
    let spec = matches
        .get_one::<String>("tasks")
        .cloned()
        .or_else(|| {
            std::env::var("BURIL_TASKS")
                .ok()
                .filter(|s| !s.trim().is_empty())
        })
        .unwrap_or_else(|| "memory".to_owned());
    let store: std::sync::Arc<dyn TaskStore> = if spec == "memory" {
        std::sync::Arc::new(MemoryStore::new())
    } else if let Some(dir) = spec.strip_prefix("file:") {
        std::sync::Arc::new(FileStore::open(dir).map_err(|error| error.to_string())?)
    } else if spec.starts_with("redis://")
        || spec.starts_with("rediss://")
        || spec.starts_with("unix:")
    {
        redis_store(&spec).await?
    } else {
        return Err(format!(
            "--tasks takes `memory`, `file:DIR` or a Redis URL (`redis://HOST:PORT/DB`), not `{spec}`"
        ));
    };
    Ok(options.tasks(Tasks::with_settings(store, settings)))
}

#[cfg(feature = "redis")]
async fn redis_store(url: &str) -> Result<std::sync::Arc<dyn crate::tasks::TaskStore>, String> {
    let store = crate::tasks::RedisStore::connect(url)
        .await
        .map_err(|error| format!("cannot use {url} for tasks: {error}"))?;
    Ok(std::sync::Arc::new(store))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(url: &str) -> Result<std::sync::Arc<dyn crate::tasks::TaskStore>, String> {
    Err(format!(
        "cannot use {url} for tasks: this binary was built without buril's `redis` feature"
    ))
}

/// The options from the flags, and the HTTP address if serving HTTP.
fn options(
    matches: &ArgMatches,
    tx: UnboundedSender<Message>,
) -> Result<(ServerOptions, Option<SocketAddr>), String> {
    let mut options =
        ServerOptions::new().messages(move |text| drop(tx.send(Message::Err(text.to_owned()))));
    options = match matches.get_one::<PathBuf>("config") {
        Some(path) => options.config_file(path),
        None => options.optional_config_file(DEFAULT_CONFIG_FILE),
    };
    for rule in matches.get_many::<String>("enable").into_iter().flatten() {
        options = options.enable(rule);
    }
    // `--external` is the command line's own (global) flag.
    #[cfg(feature = "hub")]
    for flag in matches.get_many::<String>("external").into_iter().flatten() {
        options = options.external(crate::hub::from_flag(flag)?);
    }
    for rule in matches.get_many::<String>("disable").into_iter().flatten() {
        options = options.disable(rule);
    }
    options = options.allow_dangerous(matches.get_flag("allow-dangerous"));
    options = options.serve_without_authorization(matches.get_flag("no-auth"));
    options = options.trace_content(matches.get_flag("trace-content"));
    if let Some(auth) = auth_options(matches) {
        options = options.authorization(auth);
    }
    if let Some(&seconds) = matches.get_one::<f64>("timeout") {
        match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if seconds > 0.0 => options = options.timeout(timeout),
            _ => return Err("--timeout takes a positive number of seconds".into()),
        }
    }
    if let Some(&bytes) = matches.get_one::<usize>("max-result-bytes") {
        options = options.max_result_bytes(bytes);
    }
    if let Some(dir) = matches.get_one::<PathBuf>("output-dir") {
        options = options.output_dir(dir);
    }
    if let Some(dir) = matches.get_one::<PathBuf>("skills") {
        options = options.skills_dir(dir);
    }
    if let Some(key) = std::env::var_os("BURIL_REQUEST_STATE_KEY") {
        options = options.request_state_key(key.into_encoded_bytes());
    }
    if let Some(&size) = matches.get_one::<usize>("page-size") {
        if size == 0 {
            return Err("--page-size takes a number of tools, at least 1".into());
        }
        options = options.page_size(size);
    }
    for origin in matches
        .get_many::<String>("allowed-origin")
        .into_iter()
        .flatten()
    {
        options = options.allowed_origin(origin);
    }
    let http = matches
        .get_one::<String>("http")
        .map(|text| parse_addr(text))
        .transpose()?;
    if matches.get_flag("studio") {
        #[cfg(not(feature = "studio"))]
        return Err("--studio: this binary was built without buril's `studio` feature".into());
        // The studio is served over HTTP: on a free loopback port unless `--http` says.
        #[cfg(feature = "studio")]
        return Ok((
            options.studio(true),
            http.or(Some(SocketAddr::from(([127, 0, 0, 1], 0)))),
        ));
    }
    Ok((options, http))
}

/// The `--auth-*` flags, when any is given.
fn auth_options(matches: &ArgMatches) -> Option<AuthOptions> {
    let issuer = matches.get_one::<String>("auth-issuer");
    let resource = matches.get_one::<String>("auth-resource");
    let jwks = matches.get_one::<String>("auth-jwks");
    let scopes: Vec<&String> = matches
        .get_many::<String>("auth-scope")
        .into_iter()
        .flatten()
        .collect();
    if issuer.is_none() && resource.is_none() && jwks.is_none() && scopes.is_empty() {
        return None;
    }
    let mut auth = AuthOptions::new();
    if let Some(issuer) = issuer {
        auth = auth.issuer(issuer);
    }
    if let Some(resource) = resource {
        auth = auth.resource(resource);
    }
    if let Some(jwks) = jwks {
        auth = auth.jwks(
            if jwks.starts_with("https://") || jwks.starts_with("http://") {
                JwksSource::Url(jwks.clone())
            } else {
                JwksSource::File(PathBuf::from(jwks))
            },
        );
    }
    let mut rules = ScopeRules::new();
    for scope in scopes {
        rules = rules.every(scope);
    }
    Some(auth.scopes(rules))
}

/// `PORT` or `:PORT` (on 127.0.0.1), `localhost:PORT`, `IP:PORT` or `[IPV6]:PORT`.
fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    let port_only = text.strip_prefix(':').unwrap_or(text);
    if let Ok(port) = port_only.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    text.parse().map_err(|_| {
        format!(
            "`{text}` is not an address to listen on: use PORT, HOST:PORT or [IPV6]:PORT, e.g. \
             127.0.0.1:8080"
        )
    })
}

/// Standard output for the server thread: every write goes to the thread that owns it.
struct ChannelWriter(UnboundedSender<Message>);

impl AsyncWrite for ChannelWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(match self.0.send(Message::Out(buf.to_vec())) {
            Ok(()) => Ok(buf.len()),
            Err(_) => Err(std::io::ErrorKind::BrokenPipe.into()),
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_texts_read_as_one_line() {
        // A string continued on its next line without the `\` keeps that line's indentation.
        for arg in command().get_arguments() {
            for help in [arg.get_help(), arg.get_long_help()].into_iter().flatten() {
                let text = help.to_string();
                assert!(!text.contains("  "), "--{}'s help: {text:?}", arg.get_id());
            }
        }
    }

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("8080").unwrap().to_string(), "127.0.0.1:8080");
        assert_eq!(parse_addr(":0").unwrap().to_string(), "127.0.0.1:0");
        assert_eq!(
            parse_addr("localhost:9000").unwrap().to_string(),
            "127.0.0.1:9000"
        );
        assert_eq!(parse_addr("[::1]:7").unwrap().to_string(), "[::1]:7");
        assert!(parse_addr("example.com:80").is_err());
    }
}
