//! [`AuthOptions`]: who may call a server over HTTP, and with which scopes.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use sha2::{Digest, Sha256};

use buril_core::middleware::ScopeRules;

/// How `serve --http` authorizes its callers: as an OAuth 2.1 resource server (access tokens
/// that are JWTs from one issuer, feature `oauth`), with static bearer tokens, or both; and
/// which scopes each tool needs ([`ScopeRules`]). Without it a server authorizes nobody and
/// serves loopback addresses only, unless told otherwise
/// ([`ServerOptions::serve_without_authorization`](crate::server::ServerOptions::serve_without_authorization)).
///
/// ```
/// use buril::middleware::ScopeRules;
/// use buril::server::{AuthOptions, StaticToken};
///
/// let auth = AuthOptions::new()
///     .resource("https://tools.example.com/mcp")
///     .token(StaticToken::from_token("ci", "a long random secret", ["tools"]))
///     .scopes(ScopeRules::new().every("tools").dangerous("admin"));
/// # let _ = auth;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthOptions {
    pub(crate) resource: Option<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) issuer: Option<String>,
    pub(crate) audience: Option<String>,
    pub(crate) jwks: Option<JwksSource>,
    pub(crate) leeway: Option<Duration>,
    pub(crate) refresh_after: Option<Duration>,
    pub(crate) strict_token_type: Option<bool>,
    pub(crate) tokens: Vec<StaticToken>,
    pub(crate) scopes: ScopeRules,
}

/// Where an issuer's signing keys (its JWKS) come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwksSource {
    /// Fetched from this URL (HTTPS; plain HTTP only for a loopback host).
    Url(String),
    /// Read from this file (a JSON Web Key Set), again on an unknown key id.
    File(PathBuf),
}

impl AuthOptions {
    /// Nothing configured: add a resource, an issuer or tokens.
    pub fn new() -> Self {
        AuthOptions::default()
    }

    /// The server's canonical URI, as clients reach it (`https://tools.example.com/mcp`): what
    /// its protected resource metadata names, and the audience access tokens must carry
    /// (RFC 8707). Default: `http://ADDRESS/mcp` of the address bound, which only suits a
    /// loopback address; serving other machines needs it said.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resource = Some(uri.into());
        self
    }

    /// A name for people, in the protected resource metadata (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Accepts JWT access tokens from this authorization server (its issuer identifier, as
    /// tokens' `iss` has it). Its keys come from its metadata (RFC 8414
    /// `/.well-known/oauth-authorization-server`, else OpenID Connect discovery) unless
    /// [`jwks`](Self::jwks) says where. Needs the `oauth` feature.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The audience tokens must carry, when it is not the [`resource`](Self::resource).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Where the issuer's keys are, instead of its metadata's `jwks_uri`.
    pub fn jwks(mut self, source: JwksSource) -> Self {
        self.jwks = Some(source);
        self
    }

    /// How far a token's `exp` and `nbf` may be off the server's clock. Default: 60 s.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = Some(leeway);
        self
    }

    /// How long fetched keys are used before they are fetched again; a token with an unknown
    /// key id fetches them at once (at most once per 10 s). Default: an hour.
    pub fn refresh_keys_after(mut self, after: Duration) -> Self {
        self.refresh_after = Some(after);
        self
    }

    /// Accepts only JWTs whose header says they are access tokens (`typ: at+jwt`), as RFC 9068
    /// has it. Default: off, so that tokens typed `JWT` or not at all are accepted too (what
    /// Keycloak, Entra ID and many other issuers send); tokens of any other type (an ID token
    /// typed as such, a logout token, `dpop+jwt`) are refused either way.
    pub fn strict_token_type(mut self, strict: bool) -> Self {
        self.strict_token_type = Some(strict);
        self
    }

    /// Accepts a static bearer token.
    pub fn token(mut self, token: StaticToken) -> Self {
        self.tokens.push(token);
        self
    }

    /// Which scopes each tool needs.
    pub fn scopes(mut self, rules: ScopeRules) -> Self {
        self.scopes = rules;
        self
    }

    /// Whether anyone could be authorized at all.
    pub(crate) fn authorizes_anyone(&self) -> bool {
        self.issuer.is_some() || !self.tokens.is_empty()
    }

    /// These options over `below` (the config file's): a value set here wins; tokens and
    /// scope rules add up.
    pub(crate) fn over(self, below: AuthOptions) -> AuthOptions {
        let mut tokens = below.tokens;
        tokens.extend(self.tokens);
        AuthOptions {
            resource: self.resource.or(below.resource),
            resource_name: self.resource_name.or(below.resource_name),
            issuer: self.issuer.or(below.issuer),
            audience: self.audience.or(below.audience),
            jwks: self.jwks.or(below.jwks),
            leeway: self.leeway.or(below.leeway),
            refresh_after: self.refresh_after.or(below.refresh_after),
            strict_token_type: self.strict_token_type.or(below.strict_token_type),
            tokens,
            scopes: self.scopes.over(below.scopes),
        }
    }
}

/// A static bearer token: who presents it, and its scopes. Only its SHA-256 digest is kept
/// (in a config file too: `printf %s "$TOKEN" | sha256sum`), and a presented token's digest
/// is compared with each in constant time.
#[derive(Clone, PartialEq, Eq)]
pub struct StaticToken {
    pub(crate) subject: String,
    pub(crate) sha256: [u8; 32],
    pub(crate) scopes: Vec<String>,
}

impl StaticToken {
    /// The token whose SHA-256 digest, in hexadecimal, is `hex`.
    pub fn from_sha256_hex<S: Into<String>>(
        subject: impl Into<String>,
        hex: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Result<Self, String> {
        let hex = hex.trim();
        let bytes = hex.as_bytes();
        let mut sha256 = [0u8; 32];
        if bytes.len() != 64 {
            return Err(format!(
                "a token's `sha256` is 64 hexadecimal digits (`printf %s \"$TOKEN\" | sha256sum`), \
                 not {} characters",
                bytes.len()
            ));
        }
        for (at, pair) in bytes.chunks(2).enumerate() {
            let digit = |byte: u8| (byte as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(high), Some(low)) => sha256[at] = (high * 16 + low) as u8,
                _ => {
                    return Err(format!(
                        "a token's `sha256` is hexadecimal digits only, and `{hex}` is not"
                    ));
                }
            }
        }
        Ok(StaticToken {
            subject: subject.into(),
            sha256,
            scopes: scopes.into_iter().map(Into::into).collect(),
        })
    }

    /// The token `token` itself (its digest is kept, not the token).
    pub fn from_token<S: Into<String>>(
        subject: impl Into<String>,
        token: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        StaticToken {
            subject: subject.into(),
            sha256: digest(token),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }
}

/// A token's SHA-256 digest.
pub(crate) fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticToken")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}
