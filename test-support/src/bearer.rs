//! Requests to the Streamable HTTP endpoint as a caller with a bearer token (or none), for the
//! tests of authorization: sessions, listings and calls, a stateless 2026-07-28 call, and the
//! parameters of a `WWW-Authenticate` challenge.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::{Value, json};

use super::http::{self, Answer};

/// The `authorization` header of `token`, for [`http::post`]'s `extra`.
fn authorization(token: Option<&str>) -> Option<String> {
    token.map(|token| format!("Bearer {token}"))
}

/// A POST of `message` to `/mcp`, with `token` and in `session` when given.
pub fn post(
    addr: SocketAddr,
    token: Option<&str>,
    session: Option<&str>,
    message: &Value,
) -> Answer {
    let bearer = authorization(token);
    let extra: Vec<(&str, &str)> = bearer
        .iter()
        .map(|bearer| ("authorization", bearer.as_str()))
        .collect();
    http::post(addr, session, &extra, &message.to_string())
}

/// An `initialize` with `token`: the first request of a session, which the gate answers
/// first when the token is not good.
pub fn initialize(addr: SocketAddr, token: &str) -> Answer {
    let bearer = authorization(Some(token)).unwrap();
    http::initialize(addr, &[("authorization", &bearer)], json!({}))
}

/// An MCP session opened with `token`: its id.
pub fn open(addr: SocketAddr, token: &str) -> String {
    let bearer = authorization(Some(token)).unwrap();
    http::open_with(addr, &[("authorization", &bearer)], json!({}))
}

/// The names of the tools `token` is shown, in a session of its own.
pub fn list(addr: SocketAddr, token: &str) -> Vec<String> {
    let session = open(addr, token);
    let answer = post(
        addr,
        Some(token),
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    answer.body["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", answer.body))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A call of `tool` without arguments as `token`, in a session of its own.
pub fn call(addr: SocketAddr, token: &str, tool: &str) -> Answer {
    let session = open(addr, token);
    post(
        addr,
        Some(token),
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}}),
    )
}

/// A stateless 2026-07-28 `tools/call` (the client declares elicitation), as `token`: its
/// JSON-RPC answer.
pub fn call_stateless(addr: SocketAddr, token: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"},
    });
    let name = params["name"].as_str().unwrap().to_owned();
    let bearer = authorization(Some(token)).unwrap();
    let answer = http::post(
        addr,
        None,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", &name),
            ("authorization", &bearer),
        ],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string(),
    );
    http::message_of(&answer.text).unwrap_or_else(|| panic!("no answer: {}", answer.text))
}

/// The challenge's parameters (`resource_metadata`, `scope`, `error`).
pub fn params(challenge: &str) -> BTreeMap<String, String> {
    let rest = challenge
        .strip_prefix("Bearer ")
        .expect("a Bearer challenge");
    let mut params = BTreeMap::new();
    for part in rest.split("\", ") {
        let (key, value) = part.split_once("=\"").unwrap();
        params.insert(
            key.trim().to_owned(),
            value.trim_end_matches('"').to_owned(),
        );
    }
    params
}
