//! Who is calling: the subject and scopes an authorized front end found for a call.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};

/// The caller of a tool, as the front end authorized it: an OAuth access token's subject and
/// scopes, or a static token's. Reaches the layers around every call
/// ([`Call::principal`](crate::middleware::Call::principal)) and the tool itself
/// ([`Context::principal`](crate::Context::principal)).
///
/// ```
/// let principal = buril::Principal::new("alice").with_scopes(["tools:read", "scene"]);
/// assert!(principal.has_scope("scene"));
/// assert!(!principal.has_scope("admin"));
/// assert_eq!(principal.to_string(), "alice");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Principal {
    /// Who it is: a token's `sub`, or the name a static token was given.
    pub subject: String,
    /// The scopes it was granted, sorted, without repeats.
    pub scopes: BTreeSet<String>,
    /// Who vouched for it: a token's `iss`; `None` for a static token.
    pub issuer: Option<String>,
    /// The OAuth client it called through (a token's `client_id` or `azp`), when known.
    pub client_id: Option<String>,
    /// Every claim of its access token (empty for a static token).
    pub claims: Map<String, Value>,
}

impl Principal {
    /// A principal named `subject`, with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
            scopes: BTreeSet::new(),
            issuer: None,
            client_id: None,
            claims: Map::new(),
        }
    }

    /// The principal with these scopes added.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The principal with its issuer.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The principal with the client it called through.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The principal with its token's claims.
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// Whether it was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// The first of `scopes` it lacks, if any.
    pub fn lacks<'a>(&self, scopes: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
        scopes.into_iter().find(|scope| !self.has_scope(scope))
    }
}

impl fmt::Display for Principal {
    /// Its subject.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.subject)
    }
}
