//! `serve --http` as an OAuth 2.1 resource server: JWT access tokens of an issuer whose
//! metadata and keys a local HTTP server in the test serves (RSA keys made by openssl, EC keys
//! by ring), static bearer tokens, the 401/403 challenges, the protected resource metadata,
//! and scopes that hide and refuse tools.

#![cfg(feature = "oauth")]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use buril::Dispatcher;
use buril::middleware::ScopeRules;
use buril::server::{AuthOptions, Server, ServerOptions, StaticToken};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

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

// ---- keys ------------------------------------------------------------------------------------

/// A signing key and its public JWK.
struct Key {
    kid: String,
    alg: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
    /// The public key in PEM (RSA only), for the algorithm-confusion token.
    public_pem: Option<Vec<u8>>,
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn openssl(args: &[&str]) -> Vec<u8> {
    let output = std::process::Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs (scripts/test.sh installs it)");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// A 2048-bit RSA key made by openssl now.
fn rsa_key(kid: &str) -> Key {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("key.pem");
    let private = private.to_str().unwrap();
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        private,
    ]);
    let pem = std::fs::read(private).unwrap();
    let public_pem = openssl(&["pkey", "-in", private, "-pubout"]);
    let modulus =
        String::from_utf8(openssl(&["rsa", "-in", private, "-noout", "-modulus"])).unwrap();
    let hex = modulus.trim().trim_start_matches("Modulus=");
    let n: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect();
    Key {
        kid: kid.to_owned(),
        alg: Algorithm::RS256,
        encoding: EncodingKey::from_rsa_pem(&pem).unwrap(),
        jwk: json!({"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64(&n), "e": "AQAB"}),
        public_pem: Some(public_pem),
    }
}

/// A P-256 key made by ring now.
fn ec_key(kid: &str) -> Key {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    // An uncompressed point: 0x04, x, y.
    let point = pair.public_key().as_ref();
    Key {
        kid: kid.to_owned(),
        alg: Algorithm::ES256,
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(&point[1..33]), "y": b64(&point[33..65])}),
        public_pem: None,
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn sign(key: &Key, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}

// ---- the issuer --------------------------------------------------------------------------------

/// An authorization server's metadata and keys, served over plain HTTP on loopback.
struct Issuer {
    url: String,
    jwks: Arc<Mutex<Value>>,
    key_fetches: Arc<AtomicUsize>,
}

impl Issuer {
    fn start(keys: &[&Key]) -> Issuer {
        // Laid out as Keycloak lays out a realm: OpenID Connect discovery under the issuer's
        // path (RFC 8414's well-known URI answers 404, so discovery falls back to it), the
        // keys at `protocol/openid-connect/certs`.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/realms/tools", listener.local_addr().unwrap());
        let jwks = Arc::new(Mutex::new(
            json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()}),
        ));
        let key_fetches = Arc::new(AtomicUsize::new(0));
        let (served, fetches, issuer) = (Arc::clone(&jwks), Arc::clone(&key_fetches), url.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                }
                let (status, body) = match path.as_str() {
                    "/realms/tools/.well-known/openid-configuration" => (
                        "200 OK",
                        json!({"issuer": issuer,
                               "jwks_uri": format!("{issuer}/protocol/openid-connect/certs"),
                               "token_endpoint": format!("{issuer}/protocol/openid-connect/token"),
                               "authorization_endpoint": format!("{issuer}/protocol/openid-connect/auth")})
                        .to_string(),
                    ),
                    "/realms/tools/protocol/openid-connect/certs" => {
                        fetches.fetch_add(1, Ordering::SeqCst);
                        ("200 OK", served.lock().unwrap().to_string())
                    }
                    _ => ("404 Not Found", "{}".to_owned()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Issuer {
            url,
            jwks,
            key_fetches,
        }
    }

    fn publish(&self, keys: &[&Key]) {
        *self.jwks.lock().unwrap() =
            json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()});
    }
}

// ---- the server and a client -------------------------------------------------------------------

/// A server with `auth`, on loopback, run by a runtime of its own; what it said.
fn serve(auth: AuthOptions) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&said);
    let options = ServerOptions::new()
        .messages(move |text| heard.lock().unwrap().push(text.to_owned()))
        .authorization(auth);
    (serve_with(options), said)
}

/// A server with `options`, on loopback, run by a runtime of its own.
fn serve_with(options: ServerOptions) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = Server::new(Dispatcher::new(), options).unwrap();
            match server.bind_http("127.0.0.1:0".parse().unwrap()).await {
                Ok(bound) => {
                    tx.send(Ok(bound.local_addr())).unwrap();
                    let _ = bound.run().await;
                }
                Err(error) => tx.send(Err(error.to_string())).unwrap(),
            }
        });
    });
    rx.recv().unwrap().expect("the server binds")
}

/// The JSON-RPC answer in a body: JSON, or the SSE event that carries it.
fn message_of(text: &str) -> Option<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id").is_some())
        .or_else(|| serde_json::from_str(text).ok())
}

/// What a request got back.
struct Answer {
    status: u16,
    challenge: Option<String>,
    session: Option<String>,
    /// The JSON-RPC message (from a JSON body or the SSE event), or the JSON body.
    body: Value,
}

fn post(addr: SocketAddr, token: Option<&str>, session: Option<&str>, message: &Value) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(20)))
        .build()
        .into();
    let mut request = agent
        .post(format!("http://{addr}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let mut response = request.send(message.to_string()).unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let challenge = header("www-authenticate");
    let session = header("mcp-session-id");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap();
    let body = message_of(&text).unwrap_or(Value::Null);
    Answer {
        status,
        challenge,
        session,
        body,
    }
}

/// A stateless 2026-07-28 `tools/call` (the client declares elicitation), as `token`.
fn call_stateless(addr: SocketAddr, token: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"},
    });
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let name = params["name"].as_str().unwrap().to_owned();
    let mut response = agent
        .post(format!("http://{addr}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", &name)
        .header("authorization", format!("Bearer {token}"))
        .send(
            json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})
                .to_string(),
        )
        .unwrap();
    let text = response.body_mut().read_to_string().unwrap();
    message_of(&text).unwrap_or_else(|| panic!("no answer: {text}"))
}

fn get(url: &str) -> (u16, Value) {
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

/// An MCP session opened with `token`: its id.
fn open(addr: SocketAddr, token: &str) -> String {
    let answer = initialize(addr, token);
    assert_eq!(answer.status, 200, "{}", answer.body);
    let session = answer.session.expect("a session id");
    let initialized = post(
        addr,
        Some(token),
        Some(&session),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(initialized.status, 202);
    session
}

fn list(addr: SocketAddr, token: &str) -> Vec<String> {
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

fn call(addr: SocketAddr, token: &str, tool: &str) -> Answer {
    let session = open(addr, token);
    post(
        addr,
        Some(token),
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}}),
    )
}

/// The challenge's parameters (`resource_metadata`, `scope`, `error`).
fn params(challenge: &str) -> BTreeMap<String, String> {
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

fn rules() -> ScopeRules {
    ScopeRules::new().every("mcp").family("vault", "vault")
}

// ---- the tests ---------------------------------------------------------------------------------

#[test]
fn jwt_access_tokens_are_checked_against_the_issuers_keys() {
    let rsa = rsa_key("rsa-1");
    let ec = ec_key("ec-1");
    let issuer = Issuer::start(&[&rsa, &ec]);
    let (addr, said) = serve(AuthOptions::new().issuer(&issuer.url).scopes(rules()));
    let resource = format!("http://{addr}/mcp");
    let claims = |extra: Value| {
        let mut claims = json!({
            "iss": issuer.url, "sub": "alice", "aud": resource,
            "exp": now() + 300, "iat": now(), "scope": "mcp notes",
        });
        claims
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        claims
    };
    assert!(
        said.lock()
            .unwrap()
            .iter()
            .any(|text| text.contains(&resource)),
        "{:?}",
        said.lock().unwrap()
    );

    // A good token, either kind of key: the tools it may call, and the principal in the call.
    for key in [&rsa, &ec] {
        let token = sign(key, &claims(json!({})));
        assert_eq!(
            list(addr, &token),
            ["note_read", "note_whoami"],
            "{}",
            key.kid
        );
        let answer = call(addr, &token, "note_whoami");
        assert_eq!(answer.status, 200);
        assert_eq!(
            answer.body["result"]["structuredContent"]["result"],
            json!({"subject": "alice", "scopes": ["mcp", "notes"], "issuer": issuer.url}),
            "{}",
            answer.body
        );
    }

    // Tokens that are not good: 401 invalid_token, saying why.
    let refused = |token: &str, why: &str| {
        let answer = initialize(addr, token);
        assert_eq!(answer.status, 401, "{why}: {}", answer.body);
        let challenge = params(answer.challenge.as_deref().expect("a challenge"));
        assert_eq!(challenge["error"], "invalid_token", "{why}");
        assert!(
            challenge["error_description"].contains(why),
            "{why}: {}",
            challenge["error_description"]
        );
        assert_eq!(
            challenge["resource_metadata"],
            format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
        );
    };
    refused(
        &sign(&rsa, &claims(json!({"exp": now() - 3600}))),
        "expired",
    );
    refused(
        &sign(&rsa, &claims(json!({"nbf": now() + 3600}))),
        "not valid yet",
    );
    refused(
        &sign(
            &rsa,
            &claims(json!({"aud": "https://elsewhere.example/mcp"})),
        ),
        "not for this server",
    );
    refused(
        &sign(&rsa, &claims(json!({"iss": "https://evil.example"}))),
        "not issued by",
    );
    refused("not-a-jwt", "not a signed JWT");

    // `alg: none`: no signature at all.
    let unsigned = format!(
        "{}.{}.",
        b64(json!({"alg": "none", "kid": "rsa-1", "typ": "JWT"})
            .to_string()
            .as_bytes()),
        b64(claims(json!({})).to_string().as_bytes())
    );
    refused(&unsigned, "not a signed JWT");

    // Algorithm confusion: HS256 with the RSA public key as the shared secret.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("rsa-1".into());
    let confused = jsonwebtoken::encode(
        &header,
        &claims(json!({})),
        &EncodingKey::from_secret(rsa.public_pem.as_ref().unwrap()),
    )
    .unwrap();
    refused(&confused, "HS256");

    // A token signed by a key the issuer does not (yet) publish.
    let rotated = rsa_key("rsa-2");
    let fetches = issuer.key_fetches.load(Ordering::SeqCst);
    refused(
        &sign(&rotated, &claims(json!({}))),
        "`rsa-2` is not one of the issuer's",
    );
    assert_eq!(
        issuer.key_fetches.load(Ordering::SeqCst),
        fetches + 1,
        "an unknown kid fetches the keys again"
    );
    // Within the cooldown another unknown kid does not fetch again.
    refused(
        &sign(&ec_key("ec-9"), &claims(json!({}))),
        "`ec-9` is not one of the issuer's",
    );
    assert_eq!(issuer.key_fetches.load(Ordering::SeqCst), fetches + 1);
}

#[test]
fn rotated_keys_are_fetched_on_an_unknown_key_id() {
    let old = rsa_key("old");
    let issuer = Issuer::start(&[&old]);
    let (addr, _) = serve(AuthOptions::new().issuer(&issuer.url).scopes(rules()));
    let resource = format!("http://{addr}/mcp");
    let claims = json!({"iss": issuer.url, "sub": "bob", "aud": resource, "exp": now() + 300, "scope": "mcp"});
    assert_eq!(call(addr, &sign(&old, &claims), "note_read").status, 200);
    let fetched = issuer.key_fetches.load(Ordering::SeqCst);
    // The issuer rotates: the new key signs, the old one is gone.
    let new = ec_key("new");
    issuer.publish(&[&new]);
    let answer = call(addr, &sign(&new, &claims), "note_read");
    assert_eq!(answer.status, 200, "{:?} {}", answer.challenge, answer.body);
    assert_eq!(issuer.key_fetches.load(Ordering::SeqCst), fetched + 1);
}

/// An `initialize` with `token`: the first request of a session, which the gate answers
/// first when the token is not good.
fn initialize(addr: SocketAddr, token: &str) -> Answer {
    post(
        addr,
        Some(token),
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "auth-test", "version": "1"}}}),
    )
}

#[test]
fn without_a_token_the_answer_is_401_naming_the_metadata_and_the_scopes() {
    let issuer = Issuer::start(&[&ec_key("k")]);
    let (addr, _) = serve(
        AuthOptions::new()
            .issuer(&issuer.url)
            .resource_name("Notes")
            .scopes(rules().dangerous("admin")),
    );
    let answer = post(
        addr,
        None,
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    assert_eq!(answer.status, 401);
    let challenge = params(answer.challenge.as_deref().unwrap());
    assert_eq!(challenge["scope"], "mcp");
    assert!(
        !challenge.contains_key("error"),
        "no error code without a token: {challenge:?}"
    );
    let (status, metadata) = get(&challenge["resource_metadata"]);
    assert_eq!(status, 200);
    assert_eq!(
        metadata,
        json!({
            "resource": format!("http://{addr}/mcp"),
            "authorization_servers": [issuer.url],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["admin", "mcp", "vault"],
            "resource_name": "Notes",
        })
    );
    // The root form of the well-known URI too.
    let (status, root) = get(&format!(
        "http://{addr}/.well-known/oauth-protected-resource"
    ));
    assert_eq!((status, root), (200, metadata));
}

/// A client that was refused for want of a token asks for the metadata next, often on the same
/// kept-alive connection (the MCP SDKs' clients do): the refusal leaves the connection able to
/// carry that request. A refused request whose body is too large to read first is answered
/// with `connection: close`, so that no client sends on a connection about to close.
#[test]
fn a_refused_request_leaves_its_connection_usable() {
    let issuer = Issuer::start(&[&ec_key("k")]);
    let (addr, _) = serve(AuthOptions::new().issuer(&issuer.url).scopes(rules()));
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    // One answer: its status and headers, its body read by its length.
    let mut answer = || {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                reader.read_line(&mut line).unwrap() > 0,
                "the server closed the connection: {head:?}"
            );
            if line == "\r\n" {
                break;
            }
            head.push(line.trim_end().to_ascii_lowercase());
        }
        let length = head
            .iter()
            .find_map(|line| line.strip_prefix("content-length: "))
            .map_or(0, |n| n.parse::<usize>().unwrap());
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        head
    };
    // The head of a `POST` of `length` bytes to the endpoint.
    let post_head = |length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    // The body a moment after the head, as a client that writes them apart sends them.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    stream.write_all(post_head(body.len()).as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    stream.write_all(body.as_bytes()).unwrap();
    let refused = answer();
    assert!(refused[0].contains(" 401 "), "{refused:?}");
    assert!(
        !refused.contains(&"connection: close".to_owned()),
        "{refused:?}"
    );
    write!(
        stream,
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\n\r\n"
    )
    .unwrap();
    let metadata = answer();
    assert!(metadata[0].contains(" 200 "), "{metadata:?}");
    // A body past what is read of a refused request: the answer says the connection closes.
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(1 << 20));
    stream.write_all(post_head(big.len()).as_bytes()).unwrap();
    // The body may not all be taken: the server answers after the part it reads.
    let _ = stream.write_all(big.as_bytes());
    let refused = answer();
    assert!(refused[0].contains(" 401 "), "{refused:?}");
    assert!(
        refused.contains(&"connection: close".to_owned()),
        "{refused:?}"
    );
}

#[test]
fn scopes_decide_which_tools_a_caller_sees_and_calls() {
    let key = rsa_key("k");
    let issuer = Issuer::start(&[&key]);
    let (addr, _) = serve(AuthOptions::new().issuer(&issuer.url).scopes(rules()));
    let resource = format!("http://{addr}/mcp");
    let token = |scope: &str| {
        sign(
            &key,
            &json!({"iss": issuer.url, "sub": "carol", "aud": resource, "exp": now() + 300, "scope": scope}),
        )
    };
    // Without `vault`, the vault's tool is neither listed nor callable: 403 naming its scopes.
    let reader = token("mcp");
    assert_eq!(list(addr, &reader), ["note_read", "note_whoami"]);
    let answer = call(addr, &reader, "vault_open");
    assert_eq!(answer.status, 403);
    let challenge = params(answer.challenge.as_deref().unwrap());
    assert_eq!(challenge["error"], "insufficient_scope");
    assert_eq!(challenge["scope"], "mcp vault");
    assert_eq!(answer.body["error"], "insufficient_scope");
    // With it, both.
    let keeper = token("mcp vault");
    assert_eq!(
        list(addr, &keeper),
        ["note_read", "note_whoami", "vault_confirm", "vault_open"]
    );
    let answer = call(addr, &keeper, "vault_open");
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body["result"]["isError"], false, "{}", answer.body);
    // Without the scope every call needs: 403 for anything.
    let answer = initialize(addr, &token("vault"));
    assert_eq!(answer.status, 403);
    assert_eq!(params(answer.challenge.as_deref().unwrap())["scope"], "mcp");
    // An unknown tool is the MCP service's to answer, as without authorization.
    let answer = call(addr, &keeper, "vault_opne");
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body["error"]["code"], -32602, "{}", answer.body);
    assert!(
        answer.body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("vault_open")
    );
}

#[test]
fn static_bearer_tokens_are_kept_hashed_and_carry_their_scopes() {
    let hex = sha256_hex("s3cret-ci-token");
    let (addr, _) = serve(
        AuthOptions::new()
            .token(StaticToken::from_sha256_hex("ci", &hex, ["mcp"]).unwrap())
            .token(StaticToken::from_token(
                "ops",
                "another-one",
                ["mcp", "vault"],
            ))
            .scopes(rules()),
    );
    assert_eq!(list(addr, "s3cret-ci-token"), ["note_read", "note_whoami"]);
    let answer = call(addr, "s3cret-ci-token", "note_whoami");
    assert_eq!(
        answer.body["result"]["structuredContent"]["result"]["subject"],
        "ci"
    );
    assert_eq!(
        list(addr, "another-one"),
        ["note_read", "note_whoami", "vault_confirm", "vault_open"]
    );
    let wrong = initialize(addr, "s3cret-ci-tokeN");
    assert_eq!(wrong.status, 401);
    assert_eq!(
        params(wrong.challenge.as_deref().unwrap())["error"],
        "invalid_token"
    );
    assert!(StaticToken::from_sha256_hex("x", "abc", ["mcp"]).is_err());
    assert!(StaticToken::from_sha256_hex("x", &"zz".repeat(32), ["mcp"]).is_err());
}

#[test]
fn a_server_other_machines_reach_needs_its_resource_uri() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let every: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let auth = AuthOptions::new().token(StaticToken::from_token("ci", "t", ["mcp"]));
    let refused = runtime.block_on(async {
        let server = Server::new(
            Dispatcher::new(),
            ServerOptions::new()
                .messages(|_| {})
                .authorization(auth.clone()),
        )
        .unwrap();
        server
            .bind_http(every)
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string()
    });
    assert!(refused.contains("--auth-resource"), "{refused}");
    // With it (and authorization), no --no-auth is needed.
    let bound = runtime.block_on(async {
        let server = Server::new(
            Dispatcher::new(),
            ServerOptions::new()
                .messages(|_| {})
                .authorization(auth.resource("https://tools.example.com/mcp")),
        )
        .unwrap();
        server
            .bind_http(every)
            .await
            .map(|bound| bound.local_addr())
    });
    assert!(bound.unwrap().ip().is_unspecified());
    // Authorization that accepts nobody is a mistake.
    let nobody = runtime.block_on(async {
        let server = Server::new(
            Dispatcher::new(),
            ServerOptions::new()
                .messages(|_| {})
                .authorization(AuthOptions::new()),
        )
        .unwrap();
        server
            .bind_http("127.0.0.1:0".parse().unwrap())
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string()
    });
    assert!(nobody.contains("accepts no token"), "{nobody}");
}

fn sha256_hex(token: &str) -> String {
    use std::fmt::Write as _;
    let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    digest.as_ref().iter().fold(String::new(), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

#[test]
fn the_config_files_auth_table_gives_tokens_and_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("buril.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[auth]
scopes = ["mcp"]
dangerous = "admin"

[auth.families]
vault = ["vault", "keys"]

[auth.tools]
note_whoami = "whoami"

[[auth.tokens]]
subject = "reader"
sha256 = "{}"
scopes = ["mcp"]

[[auth.tokens]]
subject = "keeper"
sha256 = "{}"
scopes = ["mcp", "vault", "keys", "whoami"]
"#,
            sha256_hex("reader-token"),
            sha256_hex("keeper-token")
        ),
    )
    .unwrap();
    let addr = serve_with(ServerOptions::new().messages(|_| {}).config_file(&config));
    assert_eq!(list(addr, "reader-token"), ["note_read"]);
    assert_eq!(
        list(addr, "keeper-token"),
        ["note_read", "note_whoami", "vault_confirm", "vault_open"]
    );

    // Every mistake at once, naming the table.
    std::fs::write(
        &config,
        r#"
[auth]
[auth.families]
vaults = "v"
[auth.tools]
note_raed = "r"
[[auth.tokens]]
subject = "short"
sha256 = "abc"
"#,
    )
    .unwrap();
    let error = Server::new(
        Dispatcher::new(),
        ServerOptions::new().messages(|_| {}).config_file(&config),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("`[auth.families]`: no tool family is named `vaults`"),
        "{error}"
    );
    assert!(
        error.contains("`[auth.tools]`") && error.contains("note_read"),
        "{error}"
    );
    assert!(error.contains("`[[auth.tokens]]` 1 (`short`)"), "{error}");
}

#[test]
fn a_request_state_is_bound_to_the_principal_it_was_made_for() {
    let (addr, _) = serve(
        AuthOptions::new()
            .token(StaticToken::from_token(
                "alice",
                "alice-token",
                ["mcp", "vault"],
            ))
            .token(StaticToken::from_token(
                "bob",
                "bob-token",
                ["mcp", "vault"],
            ))
            .scopes(rules()),
    );
    let first = call_stateless(
        addr,
        "alice-token",
        json!({"name": "vault_confirm", "arguments": {}}),
    );
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned();
    let key = result["inputRequests"]
        .as_object()
        .and_then(|requests| requests.keys().next().cloned())
        .expect("a question");
    let again = |token: &str| {
        call_stateless(
            addr,
            token,
            json!({"name": "vault_confirm", "arguments": {}, "requestState": state,
                   "inputResponses": {key.clone(): {"action": "decline"}}}),
        )
    };
    // Its own principal's next round is accepted (the answer reaches the tool).
    let own = again("alice-token");
    assert!(own.get("error").is_none(), "{own}");
    // Another principal's is refused, as a state made for other arguments is.
    let other = again("bob-token");
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert!(
        other["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this caller"),
        "{other}"
    );
}
