//! JWT access tokens (RFC 9068) checked against one issuer's keys: the JOSE header (`crit`,
//! `typ`), the signature with the one algorithm its key is for, `iss`, `exp`/`nbf` with a
//! leeway, and the audience this server is (RFC 8707). SECURITY.md goes through RFC 8725 and
//! RFC 9068 point by point.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::options::JwksSource;
use buril_core::Principal;

/// The least time between two fetches for an unknown key id.
const UNKNOWN_KID_COOLDOWN: Duration = Duration::from_secs(10);
/// How long a fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest metadata document or key set read.
const MAX_DOCUMENT_BYTES: u64 = 1 << 20;
/// The header parameters RFC 7515 (4.1) and RFC 7516 (4.1) define, which `crit` may not name.
const STANDARD_HEADERS: [&str; 13] = [
    "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit", "enc", "zip",
];
/// The longest name from a token repeated in a refusal.
const MAX_QUOTED: usize = 40;

/// Why a token was not accepted, in words for `error_description`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// The token is not good (401 `invalid_token`).
    Invalid(String),
    /// The issuer's keys could not be had (503).
    Keys(String),
}

/// Checks the access tokens of one issuer.
pub(crate) struct Verifier {
    issuer: String,
    audience: String,
    leeway: Duration,
    refresh_after: Duration,
    /// Only `typ: at+jwt` (RFC 9068 to the letter), not also `JWT` or none.
    strict_type: bool,
    source: KeySource,
    keys: RwLock<Keys>,
    /// Held while fetching, so that one fetch serves every request waiting for it.
    fetching: tokio::sync::Mutex<()>,
}

enum KeySource {
    File(std::path::PathBuf),
    Url(String),
    /// From the issuer's metadata (its `jwks_uri`), found on first use.
    Discover,
}

#[derive(Default)]
struct Keys {
    set: Option<Arc<JwkSet>>,
    fetched: Option<Instant>,
    /// When an unknown key id last made it fetch.
    refetched: Option<Instant>,
    /// The `jwks_uri` the issuer's metadata gave.
    discovered: Option<String>,
}

impl Verifier {
    pub(crate) fn new(
        issuer: String,
        audience: String,
        source: Option<JwksSource>,
        leeway: Duration,
        refresh_after: Duration,
        strict_type: bool,
    ) -> Result<Self, String> {
        let source = match source {
            Some(JwksSource::File(path)) => KeySource::File(path),
            Some(JwksSource::Url(url)) => {
                check_url(&url)?;
                KeySource::Url(url)
            }
            None => {
                check_url(&issuer)?;
                KeySource::Discover
            }
        };
        Ok(Verifier {
            issuer,
            audience,
            leeway,
            refresh_after,
            strict_type,
            source,
            keys: RwLock::default(),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    pub(crate) fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Loads the keys now (at start), so that a mistake shows before the first request.
    pub(crate) async fn preload(&self) -> Result<(), String> {
        self.fetch(false)
            .await
            .map(|_| ())
            .map_err(|(Rejection::Invalid(why) | Rejection::Keys(why))| why)
    }

    /// The principal of `token`, or why it is not accepted.
    pub(crate) async fn verify(&self, token: &str) -> Result<Principal, Rejection> {
        check_header(token, self.strict_type)?;
        let header = jsonwebtoken::decode_header(token).map_err(|error| {
            Rejection::Invalid(format!("the token is not a signed JWT: {error}"))
        })?;
        let kid = header.kid.as_deref();
        let set = self.current().await?;
        let jwk = match find(&set, kid) {
            Some(jwk) => jwk.clone(),
            None => {
                // Keys rotate: an unknown key id fetches them again, at most so often.
                let set = self.fetch(true).await?;
                find(&set, kid).cloned().ok_or_else(|| {
                    Rejection::Invalid(match kid {
                        Some(kid) => format!(
                            "the token's key `{}` is not one of the issuer's signing keys",
                            shortened(kid)
                        ),
                        None => {
                            "the token names no key (`kid`), and the issuer has several signing keys"
                                .to_owned()
                        }
                    })
                })?
            }
        };
        let alg = header.alg;
        check_algorithm(&jwk, alg)?;
        let key = DecodingKey::from_jwk(&jwk).map_err(|error| {
            Rejection::Keys(format!("the issuer's key cannot be used: {error}"))
        })?;
        let mut validation = Validation::new(alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| Rejection::Invalid(describe(&error, self)))?;
        Ok(principal_of(data.claims))
    }

    /// The keys, fetched when there are none yet or they are older than `refresh_after`.
    async fn current(&self) -> Result<Arc<JwkSet>, Rejection> {
        {
            let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
            if let (Some(set), Some(at)) = (&keys.set, keys.fetched)
                && at.elapsed() < self.refresh_after
            {
                return Ok(Arc::clone(set));
            }
        }
        match self.fetch(false).await {
            Ok(set) => Ok(set),
            // Stale keys serve while the issuer cannot be reached.
            Err(error) => {
                let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
                keys.set.clone().ok_or(error)
            }
        }
    }

    /// Fetches the keys (for an unknown key id: `unknown`, not more often than the cooldown).
    async fn fetch(&self, unknown: bool) -> Result<Arc<JwkSet>, Rejection> {
        let started = Instant::now();
        let _fetching = self.fetching.lock().await;
        {
            let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
            // Another request fetched while this one waited.
            if let (Some(set), Some(at)) = (&keys.set, keys.fetched)
                && at >= started
            {
                return Ok(Arc::clone(set));
            }
            if unknown
                && let (Some(set), Some(at)) = (&keys.set, keys.refetched)
                && at.elapsed() < UNKNOWN_KID_COOLDOWN
            {
                return Ok(Arc::clone(set));
            }
        }
        let discovered = self
            .keys
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .discovered
            .clone();
        let (set, discovered) = match &self.source {
            KeySource::File(path) => {
                let text = std::fs::read_to_string(path).map_err(|error| {
                    Rejection::Keys(format!("{} cannot be read: {error}", path.display()))
                })?;
                (parse_set(&text, &path.display().to_string())?, None)
            }
            KeySource::Url(url) => (parse_set(&get(url).await?, url)?, None),
            KeySource::Discover => {
                let uri = match discovered {
                    Some(uri) => uri,
                    None => self.discover().await?,
                };
                (parse_set(&get(&uri).await?, &uri)?, Some(uri))
            }
        };
        let set = Arc::new(set);
        let mut keys = self.keys.write().unwrap_or_else(|e| e.into_inner());
        keys.set = Some(Arc::clone(&set));
        keys.fetched = Some(Instant::now());
        if unknown {
            keys.refetched = keys.fetched;
        }
        if discovered.is_some() {
            keys.discovered = discovered;
        }
        Ok(set)
    }

    /// The issuer's `jwks_uri`, from its RFC 8414 metadata, else its OpenID Connect
    /// discovery document; the document must name the same issuer (RFC 8414, 3.3).
    async fn discover(&self) -> Result<String, Rejection> {
        let mut tried = Vec::new();
        for url in metadata_urls(&self.issuer) {
            let text = match get(&url).await {
                Ok(text) => text,
                Err(Rejection::Keys(why) | Rejection::Invalid(why)) => {
                    tried.push(why);
                    continue;
                }
            };
            let document: Value = serde_json::from_str(&text).map_err(|error| {
                Rejection::Keys(format!("{url} is not a JSON metadata document: {error}"))
            })?;
            if document.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
                return Err(Rejection::Keys(format!(
                    "{url} names the issuer {}, not {}",
                    document.get("issuer").unwrap_or(&Value::Null),
                    self.issuer
                )));
            }
            return match document.get("jwks_uri").and_then(Value::as_str) {
                Some(uri) => {
                    check_url(uri).map_err(Rejection::Keys)?;
                    Ok(uri.to_owned())
                }
                None => Err(Rejection::Keys(format!("{url} has no `jwks_uri`"))),
            };
        }
        Err(Rejection::Keys(format!(
            "the issuer's metadata could not be read: {}",
            tried.join("; ")
        )))
    }
}

/// Where an issuer's metadata may be: RFC 8414's well-known URI (inserted before the
/// issuer's path), then OpenID Connect's (appended to it).
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").map(|at| at + 3) {
        Some(after) => match issuer[after..].find('/') {
            Some(slash) => issuer.split_at(after + slash),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ]
}

/// HTTPS only, but for a loopback host (a local issuer, the tests).
fn check_url(url: &str) -> Result<(), String> {
    if url.starts_with("https://") {
        return Ok(());
    }
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"];
    if loopback.iter().any(|prefix| {
        url.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/']))
    }) {
        return Ok(());
    }
    Err(format!(
        "`{url}` is not an https:// URL (plain http is accepted for a loopback host only)"
    ))
}

/// GETs `url`'s body, off the runtime's workers.
async fn get(url: &str) -> Result<String, Rejection> {
    let owned = url.to_owned();
    let fetched = tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(FETCH_TIMEOUT))
            .http_status_as_error(false)
            .build()
            .into();
        let mut response = agent
            .get(&owned)
            .header("Accept", "application/json")
            .call()
            .map_err(|error| format!("{owned} cannot be fetched: {error}"))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("{owned} answered {status}"));
        }
        response
            .body_mut()
            .with_config()
            .limit(MAX_DOCUMENT_BYTES)
            .read_to_string()
            .map_err(|error| format!("{owned} could not be read: {error}"))
    })
    .await
    .map_err(|error| Rejection::Keys(format!("fetching {url} failed: {error}")))?;
    fetched.map_err(Rejection::Keys)
}

fn parse_set(text: &str, from: &str) -> Result<JwkSet, Rejection> {
    serde_json::from_str(text)
        .map_err(|error| Rejection::Keys(format!("{from} is not a JSON Web Key Set: {error}")))
}

/// The signing key `kid` names, or the only signing key when the token names none. A key
/// published for encryption (`use: enc`, or `key_ops` without `verify`) signs nothing.
fn find<'a>(set: &'a JwkSet, kid: Option<&str>) -> Option<&'a Jwk> {
    let verifies = |key: &&Jwk| {
        !matches!(key.algorithm, AlgorithmParameters::OctetKey(_))
            && !matches!(key.common.public_key_use, Some(ref used) if *used != PublicKeyUse::Signature)
            && key
                .common
                .key_operations
                .as_ref()
                .is_none_or(|ops| ops.contains(&KeyOperations::Verify))
    };
    match kid {
        Some(kid) => set
            .keys
            .iter()
            .filter(verifies)
            .find(|key| key.common.key_id.as_deref() == Some(kid)),
        None => {
            let mut signing = set.keys.iter().filter(verifies);
            match (signing.next(), signing.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
    }
}

/// The token's algorithm must be the one its key is for (RFC 8725, 3.1: each key is used
/// with exactly one algorithm): the key's own `alg` when it names one, else the one its type
/// implies (RSA: RS256, which RFC 9068 has every issuer support; EC: the ES* of its curve;
/// Ed25519: EdDSA). Never an HMAC: a JWKS holds public keys, and a token "signed" with one as
/// a shared secret is the algorithm-confusion attack.
fn check_algorithm(jwk: &Jwk, alg: Algorithm) -> Result<(), Rejection> {
    use Algorithm::*;
    let fits = |alg: Algorithm| match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
        AlgorithmParameters::EllipticCurve(ec) => matches!(
            (&ec.curve, alg),
            (EllipticCurve::P256, ES256) | (EllipticCurve::P384, ES384)
        ),
        AlgorithmParameters::OctetKeyPair(_) => alg == EdDSA,
        AlgorithmParameters::OctetKey(_) => false,
    };
    let implied = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Some(RS256),
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => Some(ES256),
            EllipticCurve::P384 => Some(ES384),
            _ => None,
        },
        AlgorithmParameters::OctetKeyPair(_) => Some(EdDSA),
        AlgorithmParameters::OctetKey(_) => None,
    };
    // A key naming an algorithm that does not sign (`RSA-OAEP`) verifies nothing.
    let allowed = match jwk.common.key_algorithm {
        Some(named) => format!("{named:?}").parse::<Algorithm>().ok(),
        None => implied,
    }
    .filter(|&allowed| fits(allowed));
    if allowed == Some(alg) {
        return Ok(());
    }
    Err(Rejection::Invalid(match allowed {
        Some(allowed) => {
            format!("the token is signed with {alg:?}, but its key is for {allowed:?} only")
        }
        None => format!("the token is signed with {alg:?}, which its key is not for"),
    }))
}

/// What the JOSE header says beyond what `jsonwebtoken` reads: the token must be a JWS in
/// compact form (three parts; an encrypted JWT has five), a JSON object in UTF-8 (RFC 8725,
/// 3.7), with no `crit` (RFC 7515, 4.1.11: buril understands no extension header, so one
/// listed as critical makes the token invalid) and an access token's `typ` (RFC 9068, 4;
/// RFC 8725, 3.11).
fn check_header(token: &str, strict_type: bool) -> Result<(), Rejection> {
    let invalid = |why: String| Err(Rejection::Invalid(why));
    let parts = token.split('.').count();
    if parts == 5 {
        return invalid(
            "the token is an encrypted JWT (JWE); this server accepts signed access tokens \
             (JWS) only"
                .into(),
        );
    }
    if parts != 3 {
        return invalid(format!(
            "the token is not a signed JWT (a JWS has three parts; this has {parts})"
        ));
    }
    let encoded = token.split('.').next().unwrap_or_default();
    let Ok(bytes) = URL_SAFE_NO_PAD.decode(encoded) else {
        return invalid("the token is not a signed JWT: its header is not base64url".into());
    };
    let header: Map<String, Value> = match serde_json::from_slice(&bytes) {
        Ok(header) => header,
        Err(error) => {
            return invalid(format!(
                "the token is not a signed JWT: its header is not a JSON object in UTF-8 \
                 ({error})"
            ));
        }
    };
    if let Some(crit) = header.get("crit") {
        return invalid(match crit {
            Value::Array(names) if names.is_empty() => {
                "the token's header has an empty `crit` list, which RFC 7515 forbids".to_owned()
            }
            Value::Array(names) => match names.iter().find_map(|name| {
                name.as_str()
                    .filter(|name| STANDARD_HEADERS.contains(name))
                    .or(name.as_str().is_none().then_some(""))
            }) {
                Some("") => "the token's `crit` lists something that is not a name".to_owned(),
                Some(standard) => format!(
                    "the token's `crit` names `{standard}`, a standard header parameter, which \
                     RFC 7515 forbids"
                ),
                None => format!(
                    "the token's header marks the extension `{}` critical (`crit`), which this \
                     server does not understand",
                    shortened(names[0].as_str().unwrap_or_default())
                ),
            },
            _ => "the token's `crit` is not a list of header parameter names".to_owned(),
        });
    }
    match header.get("typ") {
        None if strict_type => invalid(
            "the token's header names no type (`typ`); access tokens are `at+jwt` (RFC 9068)"
                .into(),
        ),
        None => Ok(()),
        Some(Value::String(typ)) => {
            let typ = typ.to_ascii_lowercase();
            let media = typ.strip_prefix("application/").unwrap_or(&typ);
            if media == "at+jwt" || (!strict_type && media == "jwt") {
                Ok(())
            } else {
                invalid(format!(
                    "the token is of type `{}`, not an access token (`at+jwt`, RFC 9068)",
                    shortened(&typ)
                ))
            }
        }
        Some(_) => invalid("the token's `typ` is not a string".into()),
    }
}

/// `text` as a refusal repeats it: at most [`MAX_QUOTED`] characters.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

fn describe(error: &jsonwebtoken::errors::Error, verifier: &Verifier) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_owned(),
        ErrorKind::InvalidIssuer => format!("the token was not issued by {}", verifier.issuer),
        ErrorKind::InvalidAudience => {
            format!(
                "the token is not for this server (its audience is not {})",
                verifier.audience
            )
        }
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key".to_owned(),
        _ => format!("the token is not valid: {error}"),
    }
}

/// A token's principal: `sub`, the scopes of `scope` (space-separated, RFC 9068) or `scp`
/// (a list or a string, as some issuers write it), `iss`, `client_id` or `azp`.
fn principal_of(claims: Map<String, Value>) -> Principal {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let mut scopes: Vec<String> = Vec::new();
    for name in ["scope", "scp"] {
        match claims.get(name) {
            Some(Value::String(line)) => scopes.extend(line.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
            }
            _ => {}
        }
    }
    let mut principal = Principal::new(text("sub").unwrap_or_default()).with_scopes(scopes);
    if let Some(issuer) = text("iss") {
        principal = principal.with_issuer(issuer);
    }
    if let Some(client) = text("client_id").or_else(|| text("azp")) {
        principal = principal.with_client_id(client);
    }
    principal.with_claims(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_and_openid_connect_put_it() {
        assert_eq!(
            metadata_urls("https://login.example.com/realms/tools"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server/realms/tools",
                "https://login.example.com/realms/tools/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn plain_http_is_for_loopback_hosts_only() {
        assert!(check_url("https://login.example.com").is_ok());
        assert!(check_url("http://127.0.0.1:8080/jwks").is_ok());
        assert!(check_url("http://localhost/jwks").is_ok());
        assert!(check_url("http://localhost.evil.example/jwks").is_err());
        assert!(check_url("http://login.example.com/jwks").is_err());
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let claims = serde_json::json!({
            "sub": "alice", "scope": "a b", "scp": ["c"], "iss": "https://i", "azp": "app"
        });
        let Value::Object(claims) = claims else {
            unreachable!()
        };
        let principal = principal_of(claims);
        assert_eq!(principal.subject, "alice");
        assert_eq!(principal.scopes.iter().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(principal.client_id.as_deref(), Some("app"));
        assert_eq!(principal.issuer.as_deref(), Some("https://i"));
    }
}
