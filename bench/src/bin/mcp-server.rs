//! An MCP server over stdio for the MCP benchmark (goal 6): `mcp-server buril` serves this
//! crate's `#[buril::tool]`s through `buril::server`; `mcp-server rmcp` serves the same tools
//! written with rmcp's macros through rmcp's own server.

use std::process::ExitCode;

use buril_bench::peer::PeerServer;
use rmcp::ServiceExt;

fn main() -> ExitCode {
    let kind = std::env::args().nth(1).unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let result: Result<(), String> = runtime.block_on(async {
        match kind.as_str() {
            "buril" => buril::server::serve_stdio(
                buril::Dispatcher::new(),
                buril::server::ServerOptions::new(),
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
            _ => Err("usage: mcp-server (buril|rmcp)".to_owned()),
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
