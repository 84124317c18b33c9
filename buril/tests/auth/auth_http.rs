//! What an HTTP caller of `serve --http` with authorization is answered: 401 without a good
//! token, with a `WWW-Authenticate` challenge naming the protected resource metadata and the
//! scopes; the metadata document itself; a refused request's connection kept usable; static
//! bearer tokens kept hashed; and the resource URI a server reachable from other machines
//! needs.

use crate::auth_tools;
use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use crate::jwks::{Issuer, ec_key, sha256_hex};
use auth_tools::{rules, serve};
use buril::Dispatcher;
use buril::server::{AuthOptions, Server, ServerOptions, StaticToken};
use common::bearer::{call, initialize, list, params, post};
use common::http::get;
use serde_json::json;

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
    // The body a moment after the head, as a client that writes them apart sends them: the
    // pause is that client's.
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
