//! What RFC 7515 (JWS), RFC 8725 (JWT best current practices) and RFC 9068 (JWT access tokens)
//! ask of a resource server, each shown by tokens signed for the purpose: critical extension
//! headers, the access token type, one algorithm per key and keys meant for signing, headers
//! that point at other keys, tokens that are encrypted, malformed or not UTF-8, the issuer's
//! metadata naming the issuer, and the claims every token needs. SECURITY.md maps each
//! requirement to these tests.

use crate::auth_tools;
use crate::common;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use crate::jwks::{Issuer, Key, RSA_2, b64, now, rsa_key, rsa_key_of, sign_raw};
use auth_tools::{rules, serve};
use buril::server::AuthOptions;
use common::bearer::{initialize, params};
use jsonwebtoken::Algorithm;
use serde_json::{Value, json};

/// A server authorizing `issuer`'s tokens, and the audience they must carry.
fn serve_for(issuer: &Issuer, strict_type: bool) -> (SocketAddr, String) {
    let (addr, _) = serve(
        AuthOptions::new()
            .issuer(&issuer.url)
            .scopes(rules())
            .strict_token_type(strict_type),
    );
    (addr, format!("http://{addr}/mcp"))
}

/// Good claims for `resource`, with `extra` over them (`null` removes a claim).
fn claims(issuer: &Issuer, resource: &str, extra: Value) -> Vec<u8> {
    let mut claims = json!({
        "iss": issuer.url, "sub": "alice", "aud": resource,
        "exp": now() + 300, "iat": now(), "scope": "mcp notes",
    });
    let object = claims.as_object_mut().unwrap();
    for (name, value) in extra.as_object().unwrap() {
        if value.is_null() {
            object.remove(name);
        } else {
            object.insert(name.clone(), value.clone());
        }
    }
    claims.to_string().into_bytes()
}

/// A token with `header` (as JSON) over good claims, signed by `key` with `alg`.
fn token(key: &Key, alg: Algorithm, header: Value, payload: &[u8]) -> String {
    sign_raw(key, alg, header.to_string().as_bytes(), payload)
}

fn accepted(addr: SocketAddr, token: &str, what: &str) {
    let answer = initialize(addr, token);
    assert_eq!(answer.status, 200, "{what}: {}", answer.body);
}

fn refused(addr: SocketAddr, token: &str, why: &str) {
    let answer = initialize(addr, token);
    assert_eq!(answer.status, 401, "{why}: {}", answer.body);
    assert_eq!(
        answer.body["error"], "invalid_token",
        "{why}: {}",
        answer.body
    );
    let description = answer.body["error_description"]
        .as_str()
        .unwrap_or_default();
    assert!(description.contains(why), "{why}: {description}");
    let challenge = params(answer.challenge.as_deref().expect("a challenge"));
    assert_eq!(challenge["error"], "invalid_token", "{why}");
    assert!(
        challenge["error_description"].contains(&why.replace('"', "'")),
        "{why}: {}",
        challenge["error_description"]
    );
}

#[test]
fn a_header_that_marks_an_extension_critical_is_refused() {
    let rsa = rsa_key("rsa-1");
    let issuer = Issuer::start(&[&rsa]);
    let (addr, resource) = serve_for(&issuer, false);
    let payload = claims(&issuer, &resource, json!({}));
    let with = |extra: Value| {
        let mut header = json!({"alg": "RS256", "kid": "rsa-1", "typ": "at+jwt"});
        header
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        token(&rsa, Algorithm::RS256, header, &payload)
    };
    // The same token without `crit`, and with an extension header nobody marked critical.
    accepted(addr, &with(json!({})), "no crit");
    accepted(
        addr,
        &with(json!({"exp-x": 1})),
        "an extension not critical",
    );

    refused(
        addr,
        &with(json!({"crit": ["exp-x"], "exp-x": 1})),
        "the extension `exp-x` critical",
    );
    refused(
        addr,
        &with(json!({"crit": ["b64"], "b64": false})),
        "the extension `b64` critical",
    );
    refused(
        addr,
        &with(json!({"crit": []})),
        "an empty `crit` list, which RFC 7515 forbids",
    );
    refused(
        addr,
        &with(json!({"crit": "exp-x", "exp-x": 1})),
        "`crit` is not a list",
    );
    refused(
        addr,
        &with(json!({"crit": ["alg"]})),
        "names `alg`, a standard header parameter",
    );
    refused(
        addr,
        &with(json!({"crit": [7]})),
        "lists something that is not a name",
    );
    // A long name is cut short in the answer, and the challenge stays printable ASCII
    // (RFC 6750, 3) whatever the token holds.
    let long = "é".repeat(5000);
    let answer = initialize(addr, &with(json!({"crit": [long], long.clone(): 1})));
    assert_eq!(answer.status, 401);
    let challenge = answer.challenge.expect("a challenge");
    assert!(challenge.len() < 1000, "{challenge}");
    assert!(challenge.contains("the extension `??????"), "{challenge}");
}

#[test]
fn only_access_tokens_are_accepted_by_their_type() {
    let rsa = rsa_key("rsa-1");
    let issuer = Issuer::start(&[&rsa]);
    let (lenient, resource) = serve_for(&issuer, false);
    let (strict, strict_resource) = serve_for(&issuer, true);
    let typed = |typ: Option<Value>, resource: &str| {
        let mut header = json!({"alg": "RS256", "kid": "rsa-1"});
        if let Some(typ) = typ {
            header["typ"] = typ;
        }
        token(
            &rsa,
            Algorithm::RS256,
            header,
            &claims(&issuer, resource, json!({})),
        )
    };
    for typ in ["at+jwt", "application/at+jwt", "AT+JWT"] {
        accepted(lenient, &typed(Some(json!(typ)), &resource), typ);
        accepted(strict, &typed(Some(json!(typ)), &strict_resource), typ);
    }
    // What most issuers send, accepted unless told to be strict.
    accepted(lenient, &typed(Some(json!("JWT")), &resource), "JWT");
    accepted(lenient, &typed(None, &resource), "no typ");
    refused(
        strict,
        &typed(Some(json!("JWT")), &strict_resource),
        "of type `jwt`, not an access token",
    );
    refused(
        strict,
        &typed(None, &strict_resource),
        "names no type (`typ`)",
    );
    // Tokens of other kinds, signed by the same issuer for the same audience.
    for typ in [
        "logout+jwt",
        "secevent+jwt",
        "dpop+jwt",
        "application/jwt-id",
    ] {
        refused(
            lenient,
            &typed(Some(json!(typ)), &resource),
            &format!("of type `{typ}`, not an access token"),
        );
    }
    refused(
        lenient,
        &typed(Some(json!(5)), &resource),
        "`typ` is not a string",
    );

    // The config file says it too.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("buril.toml");
    std::fs::write(
        &config,
        format!(
            "[auth]\nissuer = \"{}\"\nscopes = [\"mcp\"]\nstrict_token_type = true\n",
            issuer.url
        ),
    )
    .unwrap();
    let from_file = common::servers::serve_http(
        buril::server::ServerOptions::new()
            .messages(|_| {})
            .config_file(&config),
    );
    let resource = format!("http://{from_file}/mcp");
    accepted(
        from_file,
        &typed(Some(json!("at+jwt")), &resource),
        "at+jwt",
    );
    refused(
        from_file,
        &typed(Some(json!("JWT")), &resource),
        "of type `jwt`, not an access token",
    );
}

#[test]
fn each_key_verifies_one_algorithm_and_only_if_it_is_for_signing() {
    let rsa = rsa_key("rsa-1");
    let ec = crate::jwks::ec_key("ec-1");
    // One RSA key pair published under several key ids, each saying something else of it.
    let published = |kid: &str, change: Value| {
        let mut jwk = rsa.jwk.clone();
        jwk["kid"] = json!(kid);
        for (name, value) in change.as_object().unwrap() {
            if value.is_null() {
                jwk.as_object_mut().unwrap().remove(name);
            } else {
                jwk[name] = value.clone();
            }
        }
        jwk
    };
    let issuer = Issuer::start(&[]);
    *issuer.jwks.lock().unwrap() = json!({"keys": [
        published("rs256", json!({})),
        published("no-alg", json!({"alg": null})),
        published("ps256", json!({"alg": "PS256"})),
        published("enc", json!({"use": "enc", "alg": null})),
        published("ops-encrypt", json!({"use": null, "key_ops": ["encrypt"], "alg": null})),
        published("ops-verify", json!({"use": null, "key_ops": ["verify"], "alg": null})),
        published("oaep", json!({"alg": "RSA-OAEP"})),
        ec.jwk,
    ]});
    let (addr, resource) = serve_for(&issuer, false);
    let payload = claims(&issuer, &resource, json!({}));
    let signed = |kid: &str, alg: Algorithm, key: &Key| {
        let header = json!({"alg": format!("{alg:?}"), "kid": kid, "typ": "at+jwt"});
        token(key, alg, header, &payload)
    };

    accepted(addr, &signed("rs256", Algorithm::RS256, &rsa), "RS256");
    accepted(addr, &signed("ps256", Algorithm::PS256, &rsa), "PS256");
    accepted(
        addr,
        &signed("no-alg", Algorithm::RS256, &rsa),
        "implied RS256",
    );
    accepted(
        addr,
        &signed("ops-verify", Algorithm::RS256, &rsa),
        "verify",
    );
    accepted(addr, &signed("ec-1", Algorithm::ES256, &ec), "ES256");

    // The same private key, another algorithm than its key's one.
    refused(
        addr,
        &signed("rs256", Algorithm::RS384, &rsa),
        "signed with RS384, but its key is for RS256 only",
    );
    refused(
        addr,
        &signed("rs256", Algorithm::PS256, &rsa),
        "signed with PS256, but its key is for RS256 only",
    );
    refused(
        addr,
        &signed("ps256", Algorithm::RS256, &rsa),
        "signed with RS256, but its key is for PS256 only",
    );
    refused(
        addr,
        &signed("no-alg", Algorithm::PS512, &rsa),
        "signed with PS512, but its key is for RS256 only",
    );
    refused(
        addr,
        &signed("oaep", Algorithm::RS256, &rsa),
        "signed with RS256, which its key is not for",
    );
    // Keys published for encryption sign nothing.
    for kid in ["enc", "ops-encrypt"] {
        refused(
            addr,
            &signed(kid, Algorithm::RS256, &rsa),
            &format!("`{kid}` is not one of the issuer's signing keys"),
        );
    }
}

#[test]
fn keys_a_token_points_at_are_neither_fetched_nor_used() {
    let rsa = rsa_key("rsa-1");
    let issuer = Issuer::start(&[&rsa]);
    // Another server, holding the key a forger signs with.
    let forger = rsa_key_of(&RSA_2, "forged");
    let elsewhere = Issuer::start(&[&forger]);
    let (addr, resource) = serve_for(&issuer, false);
    let payload = claims(&issuer, &resource, json!({}));
    let keys_at = format!("{}/protocol/openid-connect/certs", elsewhere.url);
    for pointer in [
        json!({"jku": keys_at}),
        json!({"x5u": keys_at}),
        json!({"jwk": forger.jwk}),
    ] {
        let mut header = json!({"alg": "RS256", "kid": "forged", "typ": "at+jwt"});
        header
            .as_object_mut()
            .unwrap()
            .extend(pointer.as_object().unwrap().clone());
        refused(
            addr,
            &token(&forger, Algorithm::RS256, header, &payload),
            "`forged` is not one of the issuer's signing keys",
        );
    }
    // A `kid` is only ever looked up among the issuer's keys.
    let header = json!({"alg": "RS256", "kid": "../../etc/passwd", "typ": "at+jwt"});
    refused(
        addr,
        &token(&rsa, Algorithm::RS256, header, &payload),
        "is not one of the issuer's signing keys",
    );
    assert_eq!(
        elsewhere.requests.load(Ordering::SeqCst),
        0,
        "nothing was fetched from where a token pointed"
    );
}

#[test]
fn encrypted_malformed_and_non_utf8_tokens_are_refused() {
    let rsa = rsa_key("rsa-1");
    let issuer = Issuer::start(&[&rsa]);
    let (addr, resource) = serve_for(&issuer, false);
    let payload = claims(&issuer, &resource, json!({}));
    let header = json!({"alg": "RS256", "kid": "rsa-1", "typ": "at+jwt"});
    let good = token(&rsa, Algorithm::RS256, header.clone(), &payload);
    accepted(addr, &good, "the good token");

    // A JWE in compact form: five parts.
    let jwe_header = b64(br#"{"alg":"RSA-OAEP","enc":"A256GCM","kid":"rsa-1"}"#);
    let jwe = format!("{jwe_header}.{0}.{0}.{0}.{0}", b64(b"bytes"));
    refused(addr, &jwe, "an encrypted JWT (JWE)");
    let parts: Vec<&str> = good.split('.').collect();
    refused(addr, &parts[..2].join("."), "this has 2");
    refused(addr, &format!("{good}.{}", parts[2]), "this has 4");
    refused(
        addr,
        &format!("@@.{}.{}", parts[1], parts[2]),
        "its header is not base64url",
    );
    // Signed as they are, so that only their bytes are wrong.
    refused(
        addr,
        &sign_raw(
            &rsa,
            Algorithm::RS256,
            b"{\"alg\":\"RS256\",\"kid\":\"\xff\"}",
            &payload,
        ),
        "its header is not a JSON object in UTF-8",
    );
    refused(
        addr,
        &sign_raw(&rsa, Algorithm::RS256, b"[1, 2]", &payload),
        "its header is not a JSON object in UTF-8",
    );
    let mut latin1 = payload.clone();
    let at = latin1.windows(5).position(|w| w == b"alice").unwrap();
    latin1[at] = 0xe9;
    refused(
        addr,
        &sign_raw(
            &rsa,
            Algorithm::RS256,
            header.to_string().as_bytes(),
            &latin1,
        ),
        "the token is not valid",
    );
    // A nested JWT (its payload a token, not claims) and a header naming `alg` twice.
    refused(
        addr,
        &sign_raw(
            &rsa,
            Algorithm::RS256,
            br#"{"alg":"RS256","kid":"rsa-1","cty":"JWT"}"#,
            good.as_bytes(),
        ),
        "the token is not valid",
    );
    refused(
        addr,
        &sign_raw(
            &rsa,
            Algorithm::RS256,
            br#"{"alg":"RS256","alg":"none","kid":"rsa-1"}"#,
            &payload,
        ),
        "not a signed JWT",
    );
    // A good signature over other bytes.
    let mut tampered = payload.clone();
    tampered.extend_from_slice(b" ");
    refused(
        addr,
        &format!("{}.{}.{}", parts[0], b64(&tampered), parts[2]),
        "signature does not verify",
    );
}

#[test]
fn the_issuer_audience_and_required_claims_are_checked() {
    let rsa = rsa_key("rsa-1");
    let issuer = Issuer::start(&[&rsa]);
    let (addr, resource) = serve_for(&issuer, false);
    let with = |extra: Value| {
        token(
            &rsa,
            Algorithm::RS256,
            json!({"alg": "RS256", "kid": "rsa-1", "typ": "at+jwt"}),
            &claims(&issuer, &resource, extra),
        )
    };
    // An audience list holding this server's resource.
    accepted(
        addr,
        &with(json!({"aud": ["https://other.example/api", resource]})),
        "an audience list",
    );
    refused(
        addr,
        &with(json!({"aud": ["https://other.example/api"]})),
        "not for this server",
    );
    // The issuer exactly, not a prefix or another case of it.
    refused(
        addr,
        &with(json!({"iss": format!("{}/", issuer.url)})),
        "not issued by",
    );
    refused(
        addr,
        &with(json!({"iss": issuer.url.to_uppercase()})),
        "not issued by",
    );
    for claim in ["exp", "iss", "aud", "sub"] {
        refused(
            addr,
            &with(json!({claim: null})),
            &format!("has no `{claim}` claim"),
        );
    }

    // An issuer whose metadata names another issuer: its keys are not taken.
    let impostor = Issuer::start_claiming(&[&rsa], Some("https://login.example.com"));
    let (addr, resource) = serve_for(&impostor, false);
    let token = token(
        &rsa,
        Algorithm::RS256,
        json!({"alg": "RS256", "kid": "rsa-1", "typ": "at+jwt"}),
        &claims(&impostor, &resource, json!({})),
    );
    let answer = initialize(addr, &token);
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(
        answer.body["error_description"]
            .as_str()
            .is_some_and(|why| why.contains("names the issuer \"https://login.example.com\"")),
        "{}",
        answer.body
    );
    assert_eq!(impostor.key_fetches.load(Ordering::SeqCst), 0);
}
