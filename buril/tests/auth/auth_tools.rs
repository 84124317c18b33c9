//! The tools of the authorization tests, the scope rules they are served under, and a server of
//! them with authorization. The only tools of the `auth` binary, whose listings expect exactly
//! these tools.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use buril::middleware::ScopeRules;
use buril::server::{AuthOptions, ServerOptions};
use serde_json::{Value, json};

use crate::common::servers;

/// Reads a note.
#[buril::tool(off_thread, read_only)]
fn note_read(
    /// The note's number.
    id: u32,
) -> String {
    format!("note {id}")
}

/// Says who calls, with which scopes.
#[buril::tool(off_thread)]
fn note_whoami(ctx: &buril::Context) -> Value {
    match ctx.principal() {
        Some(principal) => json!({
            "subject": principal.subject,
            "scopes": principal.scopes,
            "issuer": principal.issuer,
        }),
        None => Value::Null,
    }
}

/// Asks before it opens the vault.
#[buril::tool(off_thread)]
fn vault_confirm(ctx: &buril::Context) -> Result<bool, buril::ToolError> {
    ctx.confirm("Open the vault?")
}

/// Opens the vault.
#[buril::tool(off_thread)]
fn vault_open() -> &'static str {
    "open"
}

/// Every call needs `mcp`; the `vault` family needs `vault` too.
pub fn rules() -> ScopeRules {
    ScopeRules::new().every("mcp").family("vault", "vault")
}

/// A server of these tools with `auth`, on loopback: its address, and what it said.
pub fn serve(auth: AuthOptions) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    servers::serve_http_noting(ServerOptions::new().authorization(auth))
}
