//! `serve --http` with authorization, driven by both SDK clients: with a bearer token they
//! list and call what its scopes allow; without one they cannot connect, and the `401`'s
//! challenge leads their own OAuth helpers to the protected resource metadata.

use buril_test_support::bin;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::sdk::{Client, Workspace, with};

const TOKEN: &str = "interop-bearer-token-7f3a9c";

fn sha256_hex(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The tools the token may see: every tool that is on, but the `asset` family's, whose scope
/// the token lacks.
fn visible_tools() -> Vec<String> {
    buril::registry()
        .iter()
        .filter(|tool| !tool.is_dangerous() && tool.family() != "asset")
        .map(|tool| tool.name().to_owned())
        .collect()
}

fn bearer(client: Client) {
    let workspace = Workspace::new();
    let config = workspace.config(&format!(
        r#"
[auth]
issuer = "https://login.example.com/realms/tools"
jwks_file = "keys.json"
scopes = ["mcp"]
[auth.families]
asset = "assets"
[[auth.tokens]]
subject = "interop"
sha256 = "{}"
scopes = ["mcp", "scene"]
"#,
        sha256_hex(TOKEN)
    ));
    // The issuer's keys from a file: no token of it is used here, and nothing is fetched.
    std::fs::write(workspace.path().join("keys.json"), r#"{"keys": []}"#).unwrap();
    let server = workspace.http(&bin::tools(), &["--config", config.to_str().unwrap()]);
    let calls = json!([
        ["open", "scene_open", {"path": "Assets/Scenes/Main.scene"}]
    ]);
    let spec = with(server.spec(), json!({"token": TOKEN, "calls": calls}));
    let report = client.run("bearer", &spec);

    let names: Vec<String> = serde_json::from_value(report["list"]["names"].clone()).unwrap();
    assert!(!names.is_empty());
    assert_eq!(names, visible_tools(), "{client:?}");
    let open = &report["calls"]["open"]["result"];
    assert_eq!(open["isError"], false, "{client:?}: {open}");
    assert_eq!(open["structuredContent"]["scene"]["name"], "Main");

    let unauthorized = &report["unauthorized"];
    assert_eq!(
        unauthorized["connect"], "failed",
        "{client:?}: {unauthorized}"
    );
    assert_eq!(unauthorized["status"], 401);
    assert_eq!(unauthorized["scope"], "mcp");
    assert_eq!(
        unauthorized["error"],
        Value::Null,
        "no error code without a token"
    );
    let url = server.spec()["url"].as_str().unwrap().to_owned();
    let metadata_key = if client == Client::Python {
        "resource_metadata"
    } else {
        "resourceMetadata"
    };
    assert_eq!(
        unauthorized[metadata_key],
        url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    );
    let metadata = &unauthorized["metadata"];
    assert_eq!(metadata["resource"], url, "{client:?}: {metadata}");
    assert_eq!(metadata["scopes_supported"], json!(["assets", "mcp"]));
    assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    assert_eq!(
        metadata["authorization_servers"],
        json!(["https://login.example.com/realms/tools"])
    );
}

#[test]
fn python_client_with_a_bearer_token() {
    bearer(Client::Python);
}

#[test]
fn typescript_client_with_a_bearer_token() {
    bearer(Client::TypeScript);
}
