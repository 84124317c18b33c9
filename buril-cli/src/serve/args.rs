//! The `serve` subcommand's flags, as clap defines them.

use std::path::PathBuf;

use clap::{Arg, ArgAction, Command, value_parser};

use buril_mcp::server::{DEFAULT_CONFIG_FILE, DEFAULT_OUTPUT_DIR};

pub(super) fn command() -> Command {
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
            Arg::new("header-timeout")
                .long("header-timeout")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help(
                    "With --http: how long a client has to send a request's headers (and an \
                     idle connection its next request); past it, 408 and the connection closed \
                     [default: 10]",
                ),
        )
        .arg(
            Arg::new("body-timeout")
                .long("body-timeout")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help(
                    "With --http: how long a client has to send a request's body once its \
                     headers came; past it, 408 and the connection closed [default: 30]",
                ),
        )
        .arg(
            Arg::new("idle-session")
                .long("idle-session")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help(
                    "With --http: how long a 2025-11-25 session may send nothing before it \
                     ends [default: 300]",
                ),
        )
        .arg(
            Arg::new("drain")
                .long("drain")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help(
                    "At SIGTERM or Ctrl-C, how long calls and tasks in flight have to finish \
                     before they are cancelled (with --http, no new connection is accepted \
                     meanwhile); over stdio, also when the input ends [default: 10]",
                ),
        )
        .arg(
            Arg::new("max-connections")
                .long("max-connections")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .help(
                    "With --http: how many connections are served at once; one more is \
                     answered 503 with Retry-After [default: 1024]",
                ),
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
