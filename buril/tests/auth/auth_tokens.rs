//! JWT access tokens of an issuer whose metadata and keys a local HTTP server in the test
//! serves (RSA keys of `tests/fixtures/`, EC keys made by ring): signature, issuer, audience, expiry and
//! algorithms checked, the keys fetched again for an unknown key id, and the principal a token
//! names bound to the request states made for it.

use crate::auth_tools;
use crate::common;

use std::sync::atomic::Ordering;

use crate::jwks::{Issuer, RSA_2, b64, ec_key, now, rsa_key, rsa_key_of, sign};
use auth_tools::{rules, serve};
use buril::server::{AuthOptions, StaticToken};
use common::bearer::{call, call_stateless, initialize, list, params};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

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
    let rotated = rsa_key_of(&RSA_2, "rsa-2");
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
