//! Raw requests to the Streamable HTTP endpoint (`/mcp`) of a server on loopback, as a
//! 2025-11-25 client sends them, and what came back; sessions opened with `initialize`.

use std::io::Read;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

/// What a request got back.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    /// The `www-authenticate` header.
    pub challenge: Option<String>,
    /// The `mcp-session-id` header.
    pub session: Option<String>,
    pub text: String,
    /// The JSON-RPC message (from a JSON body or the SSE event), or the JSON body; `null` when
    /// there is neither.
    pub body: Value,
}

impl Answer {
    /// The JSON-RPC message with an id: the JSON body, or the SSE event that carries it.
    pub fn message(&self) -> Value {
        message_of(&self.text).unwrap_or_else(|| panic!("no JSON-RPC answer in {:?}", self))
    }

    pub fn is_json(&self) -> bool {
        self.content_type.starts_with("application/json")
    }

    pub fn is_sse(&self) -> bool {
        self.content_type.starts_with("text/event-stream")
    }
}

/// The JSON-RPC answer in a body: JSON, or the SSE event that carries it.
pub fn message_of(text: &str) -> Option<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id").is_some())
        .or_else(|| serde_json::from_str(text).ok())
}

/// A POST to `/mcp` with the headers a 2025-11-25 client sends, then `extra` (which replaces a
/// header of the same name; a header named with an empty value is left out).
pub fn post(addr: SocketAddr, session: Option<&str>, extra: &[(&str, &str)], body: &str) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into();
    let mut headers = vec![
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    for (name, value) in extra {
        headers.retain(|(n, _)| n != name);
        headers.push((name, value));
    }
    let mut request = agent.post(format!("http://{addr}/mcp"));
    for (name, value) in headers {
        if !value.is_empty() {
            request = request.header(name, value);
        }
    }
    let mut response = request.send(body.to_owned()).unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let content_type = header("content-type").unwrap_or_default();
    let challenge = header("www-authenticate");
    let session = header("mcp-session-id");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap();
    let body = message_of(&text).unwrap_or(Value::Null);
    Answer {
        status,
        content_type,
        challenge,
        session,
        text,
        body,
    }
}

/// An `initialize` of a client with `capabilities`, with the `extra` headers: the first
/// request of a session.
pub fn initialize(addr: SocketAddr, extra: &[(&str, &str)], capabilities: Value) -> Answer {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "buril-test", "version": "1"}
    }});
    post(addr, None, extra, &initialize.to_string())
}

/// A session that finished `initialize`, with `capabilities`: its id.
pub fn open(addr: SocketAddr, capabilities: Value) -> String {
    open_with(addr, &[], capabilities)
}

/// [`open`], each request with the `extra` headers.
pub fn open_with(addr: SocketAddr, extra: &[(&str, &str)], capabilities: Value) -> String {
    let answer = initialize(addr, extra, capabilities);
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.clone().expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = post(addr, Some(&session), extra, &initialized.to_string());
    assert_eq!(answer.status, 202, "{answer:?}");
    session
}

/// A GET of `url`: its status, and its body as JSON (`null` when it is not).
pub fn get(url: &str) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent.get(url).call().unwrap();
    let status = response.status().as_u16();
    let mut text = String::new();
    response
        .body_mut()
        .as_reader()
        .read_to_string(&mut text)
        .unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A stateless (2026-07-28) `tools/call` of `params` from a client with `capabilities`, with
/// the headers that revision asks for (`Mcp-Method`, `Mcp-Name`), then `extra`.
pub fn post_stateless(
    addr: SocketAddr,
    extra: &[(&str, &str)],
    capabilities: Value,
    params: Value,
) -> Answer {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "buril-test", "version": "1"},
    });
    let name = params["name"].as_str().unwrap_or_default().to_owned();
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", name.as_str()),
    ];
    for (header, value) in extra {
        headers.retain(|(n, _)| n != header);
        headers.push((header, value));
    }
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params});
    post(addr, None, &headers, &body.to_string())
}
