//! Scopes that hide and refuse tools: a caller is listed and may call only the tools its
//! token's scopes allow (403 `insufficient_scope` naming the scopes needed otherwise), and the
//! config file's `[auth]` table gives the scope rules and static tokens.

use crate::auth_tools;
use crate::common;

use crate::jwks::{Issuer, now, rsa_key, sha256_hex, sign};
use auth_tools::{rules, serve};
use buril::Dispatcher;
use buril::server::{AuthOptions, Server, ServerOptions};
use common::bearer::{call, initialize, list, params};
use common::servers::serve_http;
use serde_json::json;

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
    let addr = serve_http(ServerOptions::new().messages(|_| {}).config_file(&config));
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
