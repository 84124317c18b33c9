//! The `serve` subcommand's flags turned into the server's options: rules, timeouts,
//! authorization, the task store, the address.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::ArgMatches;

use buril_core::middleware::ScopeRules;
use buril_mcp::server::DEFAULT_CONFIG_FILE;
use buril_mcp::server::HttpLimits;
use buril_mcp::server::ServerOptions;
use buril_mcp::server::{AuthOptions, JwksSource};

/// The options with the task store and settings of `--tasks`, `--task-ttl` and
/// `--task-lease` (opened here: a Redis store connects now, so that a wrong URL stops the
/// server before it serves).
pub(super) async fn with_tasks(
    options: ServerOptions,
    matches: &ArgMatches,
) -> Result<ServerOptions, String> {
    use buril_core::tasks::{FileStore, MemoryStore, TaskSettings, TaskStore, Tasks};
    let seconds = |name: &str| positive_seconds(matches, name);
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
async fn redis_store(
    url: &str,
) -> Result<std::sync::Arc<dyn buril_core::tasks::TaskStore>, String> {
    let store = buril_mcp::RedisStore::connect(url)
        .await
        .map_err(|error| format!("cannot use {url} for tasks: {error}"))?;
    Ok(std::sync::Arc::new(store))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(
    url: &str,
) -> Result<std::sync::Arc<dyn buril_core::tasks::TaskStore>, String> {
    Err(format!(
        "cannot use {url} for tasks: this binary was built without buril's `redis` feature"
    ))
}

/// The options from the flags, and the HTTP address if serving HTTP; the server's messages
/// go to `messages`.
pub(super) fn options(
    matches: &ArgMatches,
    messages: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(ServerOptions, Option<SocketAddr>), String> {
    let mut options = ServerOptions::new().messages(messages);
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
        options = options.external(buril_mcp::hub::from_flag(flag)?);
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
    if let Some(timeout) = positive_seconds(matches, "timeout")? {
        options = options.timeout(timeout);
    }
    let mut limits = HttpLimits::new();
    if let Some(timeout) = positive_seconds(matches, "header-timeout")? {
        limits = limits.header_timeout(timeout);
    }
    if let Some(timeout) = positive_seconds(matches, "body-timeout")? {
        limits = limits.body_timeout(timeout);
    }
    if let Some(idle) = positive_seconds(matches, "idle-session")? {
        limits = limits.idle_session(idle);
    }
    if let Some(&seconds) = matches.get_one::<f64>("drain") {
        match Duration::try_from_secs_f64(seconds) {
            Ok(drain) if seconds >= 0.0 => limits = limits.drain(drain),
            _ => return Err("--drain takes a number of seconds, 0 or more".into()),
        }
    }
    if let Some(&connections) = matches.get_one::<usize>("max-connections") {
        if connections == 0 {
            return Err("--max-connections takes a number of connections, at least 1".into());
        }
        limits = limits.max_connections(connections);
    }
    options = options.http_limits(limits);
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

/// The flag `name`'s number of seconds, which must be positive.
fn positive_seconds(matches: &ArgMatches, name: &str) -> Result<Option<Duration>, String> {
    match matches.get_one::<f64>(name) {
        None => Ok(None),
        Some(&seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(duration) if seconds > 0.0 => Ok(Some(duration)),
            _ => Err(format!("--{name} takes a positive number of seconds")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::parse_addr;

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
