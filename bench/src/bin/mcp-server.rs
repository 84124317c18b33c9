//! An MCP server for the MCP benchmark: `mcp-server buril` serves this crate's
//! `#[buril::tool]`s through `buril::server`; `mcp-server rmcp` serves the same tools written
//! with rmcp's macros through rmcp's own server. Both over stdio.
//!
//! `mcp-server buril-http` and `mcp-server rmcp-http` serve the same over Streamable HTTP on
//! `127.0.0.1:0`: buril's `Server::bind_http` (what `serve --http 127.0.0.1:0` runs), and rmcp's
//! `StreamableHttpService` behind a hyper HTTP/1.1 server. Each prints its endpoint's URL on
//! one line of standard output and serves until standard input closes.
//!
//! `mcp-server buril-many` and `mcp-server rmcp-many` serve `BENCH_TOOLS` (default 10,000)
//! synthetic tools of one shape over stdio, for the start-up and memory benchmark: buril's
//! dispatcher over a registry of hand-built descriptors, rmcp's router with as many routes.
//!
//! `mcp-server serve` is the CLI's `serve` subcommand over the same tools, as a tools binary
//! (`buril::cli::main()`) runs it, with `serve`'s own flags.
//!
//! `mcp-server floor` and `mcp-server floor-http` serve the floor over stdio and HTTP
//! (`buril_bench::floor_server`): the same function behind the least a server can do, measured
//! in the same runs as buril and rmcp.
//!
//! `mcp-server bindings DIR` writes the C# and TypeScript clients of these tools
//! (`buril_codegen::Generator` over this binary's registry) into `DIR/csharp` and
//! `DIR/typescript`, for the transport benchmark (`scripts/bench.sh transports`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use buril_bench::peer::PeerServer;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::AsyncReadExt;

/// buril's stdio options: the defaults, or with `BENCH_INPUT_WATCH_US` the input watched that
/// many microseconds after the answers are written (0: not at all), to compare the two in one
/// binary.
#[cfg(feature = "input-watch")]
fn stdio_options() -> buril::server::ServerOptions {
    let options = buril::server::ServerOptions::new();
    match std::env::var("BENCH_INPUT_WATCH_US")
        .ok()
        .and_then(|us| us.parse().ok())
    {
        Some(us) => options.input_watch(std::time::Duration::from_micros(us)),
        None => options,
    }
}

/// buril's stdio options, over a library older than the input watch.
#[cfg(not(feature = "input-watch"))]
fn stdio_options() -> buril::server::ServerOptions {
    buril::server::ServerOptions::new()
}

fn main() -> ExitCode {
    let kind = std::env::args().nth(1).unwrap_or_default();
    if kind == "bindings" {
        return bindings(std::env::args().nth(2));
    }
    if kind == "serve" {
        return buril::cli::main();
    }
    if kind == "floor" {
        return match floor_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        };
    }
    trace_if_asked();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let result: Result<(), String> = runtime.block_on(async {
        match kind.as_str() {
            "buril" => buril::server::serve_stdio(
                buril::Dispatcher::new(),
                stdio_options(),
            )
            .await
            .map_err(|e| e.to_string()),
            "rmcp" => {
                let running = PeerServer::new()
                    .serve(rmcp::transport::stdio())
                    .await
                    .map_err(|e| e.to_string())?;
                running.waiting().await.map(drop).map_err(|e| e.to_string())
            }
            "buril-many" => buril::server::serve_stdio(
                buril::Dispatcher::builder()
                    .registry(buril_bench::synthetic::registry(many()))
                    .build(),
                buril::server::ServerOptions::new(),
            )
            .await
            .map_err(|e| e.to_string()),
            "rmcp-many" => {
                let running = buril_bench::peer::ManyServer::new(many())
                    .serve(rmcp::transport::stdio())
                    .await
                    .map_err(|e| e.to_string())?;
                running.waiting().await.map(drop).map_err(|e| e.to_string())
            }
            // A buril server whose tool is another server's (this binary's `buril` or `rmcp`,
            // over stdio), served through the hub: `ext_bench_spawn`.
            "hub" | "hub-rmcp" => {
                let external = if kind == "hub" { "buril" } else { "rmcp" };
                let me = std::env::current_exe().map_err(|e| e.to_string())?;
                let options = stdio_options().external(
                    buril::hub::External::command("ext", me.display().to_string(), [external])
                        .revision(buril::hub::Revision::V2025_11_25)
                        .enable(true),
                );
                buril::server::serve_stdio(buril::Dispatcher::new(), options)
                    .await
                    .map_err(|e| e.to_string())
            }
            "buril-http" => until_stdin_closes(buril_http()).await,
            "studio-many" => until_stdin_closes(studio_many()).await,
            "floor-http" => until_stdin_closes(floor_http()).await,
            "rmcp-http" => until_stdin_closes(rmcp_http()).await,
            _ => Err(
                "usage: mcp-server (buril|serve|rmcp|floor|buril-many|rmcp-many|hub|hub-rmcp|buril-http|rmcp-http|floor-http|studio-many|bindings DIR)"
                    .to_owned(),
            ),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// How many synthetic tools `buril-many` and `rmcp-many` serve: `BENCH_TOOLS`, default 10,000.
fn many() -> usize {
    std::env::var("BENCH_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
}

/// With `BENCH_TRACING` set (a filter: `info`), `tracing` is on: a subscriber formats every
/// span and event that passes the filter into a sink, as a host logging to a file would.
fn trace_if_asked() {
    let Ok(filter) = std::env::var("BENCH_TRACING") else {
        return;
    };
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    let targets: tracing_subscriber::filter::Targets =
        filter.parse().expect("BENCH_TRACING is a tracing filter");
    let subscriber = tracing_subscriber::registry().with(
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::sink)
            .with_filter(targets),
    );
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
}

/// Writes the generated clients of this binary's tools under `dir`.
fn bindings(dir: Option<String>) -> ExitCode {
    let Some(dir) = dir else {
        eprintln!("usage: mcp-server bindings DIR");
        return ExitCode::from(2);
    };
    let dir = std::path::Path::new(&dir);
    match buril_codegen::Generator::new()
        .csharp(dir.join("csharp"))
        .typescript(dir.join("typescript"))
        .write()
    {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

const LOCALHOST: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

/// Runs `server` until it fails or standard input reaches its end (the client is done).
async fn until_stdin_closes(
    server: impl Future<Output = Result<(), String>>,
) -> Result<(), String> {
    let stdin_closed = async {
        let mut stdin = tokio::io::stdin();
        let mut sink = [0u8; 256];
        while stdin.read(&mut sink).await.is_ok_and(|n| n > 0) {}
    };
    tokio::select! {
        result = server => result,
        () = stdin_closed => Ok(()),
    }
}

/// buril's Streamable HTTP server, as `serve --http 127.0.0.1:0 --max-connections 4096` runs
/// it (the load benchmark opens more connections than the default cap; rmcp's has none).
async fn buril_http() -> Result<(), String> {
    let limits = buril::server::HttpLimits::new().max_connections(4096);
    let server = buril::server::Server::new(
        buril::Dispatcher::new(),
        buril::server::ServerOptions::new().http_limits(limits),
    )
    .map_err(|e| e.to_string())?;
    let bound = server
        .bind_http(LOCALHOST)
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", bound.url());
    bound.run().await.map_err(|e| e.to_string())
}

/// The studio over the synthetic tools (`BENCH_TOOLS`, default 10,000): prints its address,
/// token included.
async fn studio_many() -> Result<(), String> {
    let dispatcher = buril::Dispatcher::builder()
        .registry(buril_bench::synthetic::registry(many()))
        .build();
    let server =
        buril::server::Server::new(dispatcher, buril::server::ServerOptions::new().studio(true))
            .map_err(|e| e.to_string())?;
    let bound = server
        .bind_http(LOCALHOST)
        .await
        .map_err(|e| e.to_string())?;
    println!("{}", bound.studio_url().ok_or("the studio is not served")?);
    bound.run().await.map_err(|e| e.to_string())
}

/// The floor over stdio (`buril_bench::floor_server`): a line in, a line out, on this thread;
/// the output flushed when no more input is waiting.
fn floor_stdio() -> Result<(), String> {
    use std::io::{BufRead, Write};
    let mut input = std::io::BufReader::new(std::io::stdin().lock());
    let mut output = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?
            == 0
        {
            return output.flush().map_err(|e| e.to_string());
        }
        if let Some(answer) = buril_bench::floor_server::answer(&line) {
            output.write_all(&answer).map_err(|e| e.to_string())?;
            output.write_all(b"\n").map_err(|e| e.to_string())?;
        }
        if input.buffer().is_empty() {
            output.flush().map_err(|e| e.to_string())?;
        }
    }
}

/// The floor over HTTP/1.1 (`buril_bench::floor_server`): a POST's body in, an
/// `application/json` body out (202 for a notification), behind hyper's server with
/// `TCP_NODELAY`, as the other servers.
async fn floor_http() -> Result<(), String> {
    use http_body_util::{BodyExt, Full};
    let listener = tokio::net::TcpListener::bind(LOCALHOST)
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("http://{addr}/mcp");
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        tokio::spawn(async move {
            let route = service_fn(|request: hyper::Request<Incoming>| async move {
                let body = match request.into_body().collect().await {
                    Ok(body) => body.to_bytes(),
                    Err(_) => bytes::Bytes::new(),
                };
                let response = match buril_bench::floor_server::answer(&body) {
                    Some(answer) => hyper::Response::builder()
                        .header("content-type", "application/json")
                        .body(Full::new(bytes::Bytes::from(answer))),
                    None => hyper::Response::builder()
                        .status(202)
                        .body(Full::new(bytes::Bytes::new())),
                };
                Ok::<_, Infallible>(response.expect("a response"))
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), route)
                .await;
        });
    }
}

/// rmcp's Streamable HTTP service with the same tools, behind hyper's HTTP/1.1 server, as
/// rmcp's examples serve it (default configuration, local sessions). Accepted sockets set
/// `TCP_NODELAY`, as a server that answers small messages should.
async fn rmcp_http() -> Result<(), String> {
    let service = StreamableHttpService::new(
        || Ok(PeerServer::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind(LOCALHOST)
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    println!("http://{addr}/mcp");
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let service = service.clone();
        tokio::spawn(async move {
            let route = service_fn(move |request: hyper::Request<Incoming>| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), route)
                .await;
        });
    }
}
