//! A server's authorization, resolved: the resource it is, the tokens it accepts, the
//! challenges it answers with, and the principal of a request.

use std::net::SocketAddr;
use std::sync::Arc;
#[cfg(feature = "oauth")]
use std::time::Duration;

use hyper::HeaderMap;
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

#[cfg(feature = "oauth")]
use super::jwt;
use super::options::{self, AuthOptions, StaticToken};
use buril_core::Principal;
use buril_core::middleware::RequireScopes;

/// The principal the gate found for a request, as the MCP service handed it to the handler.
pub(crate) fn principal_of(
    context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
) -> Option<Arc<Principal>> {
    context
        .extensions
        .get::<hyper::http::request::Parts>()?
        .extensions
        .get::<Arc<Principal>>()
        .cloned()
}

/// A principal as a key (what its tasks and sealed request states are bound to): its issuer
/// and subject.
pub(crate) fn principal_key(principal: &Principal) -> String {
    format!(
        "{}|{}",
        principal.issuer.as_deref().unwrap_or(""),
        principal.subject
    )
}

/// The well-known path of protected resource metadata (RFC 9728, 3).
pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// A server's authorization, resolved against the address it serves.
pub(crate) struct Authorization {
    resource: String,
    /// Where the metadata is, as an absolute URL (the challenge's `resource_metadata`).
    metadata_url: String,
    /// The path of the metadata on this server (besides [`METADATA_PATH`] itself).
    metadata_path: String,
    resource_name: Option<String>,
    tokens: Vec<StaticToken>,
    #[cfg(feature = "oauth")]
    jwt: Option<jwt::Verifier>,
    scopes: Arc<RequireScopes>,
}

/// Why a request was not let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Denied {
    /// No bearer token: `401`, no error code (RFC 6750, 3.1).
    Missing,
    /// A token that is not good: `401 invalid_token`.
    Invalid(String),
    /// A good token without these scopes: `403 insufficient_scope`.
    Insufficient(Vec<String>),
    /// The issuer's keys cannot be had: `503`.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    Unavailable(String),
}

impl Authorization {
    /// `options` for a server bound to `addr`.
    pub(crate) fn new(
        options: AuthOptions,
        addr: SocketAddr,
        endpoint: &str,
    ) -> Result<Self, String> {
        if !options.authorizes_anyone() {
            return Err(
                "authorization is configured, but it accepts no token: give an issuer \
                 (`[auth] issuer`, --auth-issuer) or static tokens (`[[auth.tokens]]`)"
                    .to_owned(),
            );
        }
        let resource = match options.resource {
            Some(resource) => resource,
            None if addr.ip().is_loopback() => format!("http://{addr}{endpoint}"),
            None => {
                return Err(format!(
                    "{addr} can be reached from other machines: say which URI clients reach \
                     this server at (`[auth] resource`, --auth-resource), which tokens must be \
                     issued for"
                ));
            }
        };
        let (origin, path) = split_origin(&resource)?;
        let metadata_path = format!("{METADATA_PATH}{path}");
        #[cfg(feature = "oauth")]
        let jwt = match &options.issuer {
            Some(issuer) => Some(jwt::Verifier::new(
                issuer.clone(),
                options.audience.clone().unwrap_or_else(|| resource.clone()),
                options.jwks.clone(),
                options.leeway.unwrap_or(Duration::from_secs(60)),
                options.refresh_after.unwrap_or(Duration::from_secs(3600)),
                options.strict_token_type.unwrap_or(false),
            )?),
            None => None,
        };
        #[cfg(not(feature = "oauth"))]
        if options.issuer.is_some() {
            let _ = (
                &options.audience,
                &options.jwks,
                options.leeway,
                options.refresh_after,
                options.strict_token_type,
            );
            return Err(
                "an issuer is configured, but this build cannot check its access tokens: build \
                 buril with the `oauth` feature, or use static tokens"
                    .to_owned(),
            );
        }
        Ok(Authorization {
            metadata_url: format!("{origin}{metadata_path}"),
            metadata_path,
            resource,
            resource_name: options.resource_name,
            tokens: options.tokens,
            #[cfg(feature = "oauth")]
            jwt,
            // Every HTTP request is authorized before the dispatcher sees it: a call without a
            // principal comes from elsewhere (the host's own code).
            scopes: Arc::new(RequireScopes::new(options.scopes).allow_anonymous()),
        })
    }

    /// The layer that checks each tool's scopes, for the dispatcher.
    pub(crate) fn layer(&self) -> Arc<RequireScopes> {
        Arc::clone(&self.scopes)
    }

    /// The canonical URI of the server.
    pub(crate) fn resource(&self) -> &str {
        &self.resource
    }

    /// Loads what must be fetched (the issuer's keys), so that a mistake shows at start.
    pub(crate) async fn preload(&self) -> Result<(), String> {
        #[cfg(feature = "oauth")]
        if let Some(jwt) = &self.jwt {
            return jwt.preload().await.map_err(|error| {
                format!("the keys of {} could not be loaded: {error}", jwt.issuer())
            });
        }
        Ok(())
    }

    /// Whether `path` is where this server's metadata is.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        path == METADATA_PATH || path == self.metadata_path
    }

    /// The protected resource metadata (RFC 9728, 2).
    pub(crate) fn metadata(&self) -> Value {
        let mut metadata = json!({
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
            "scopes_supported": self.scopes.rules().all(),
        });
        #[cfg(feature = "oauth")]
        if let Some(jwt) = &self.jwt {
            metadata["authorization_servers"] = json!([jwt.issuer()]);
        }
        if let Some(name) = &self.resource_name {
            metadata["resource_name"] = json!(name);
        }
        metadata
    }

    /// The principal of the request's bearer token.
    pub(crate) async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Denied> {
        let token = bearer(headers)?;
        let digest = options::digest(token);
        // Every digest compared, in constant time: which one matched takes as long as none.
        let mut found = None;
        for candidate in &self.tokens {
            if bool::from(candidate.sha256.ct_eq(&digest)) {
                found = Some(candidate);
            }
        }
        let principal = match found {
            Some(token) => {
                Principal::new(token.subject.clone()).with_scopes(token.scopes.iter().cloned())
            }
            None => self.verify_jwt(token).await?,
        };
        let every = self.scopes.rules().every_call();
        if principal.lacks(every.iter().map(String::as_str)).is_some() {
            return Err(Denied::Insufficient(every.to_vec()));
        }
        Ok(principal)
    }

    #[cfg(feature = "oauth")]
    async fn verify_jwt(&self, token: &str) -> Result<Principal, Denied> {
        match &self.jwt {
            Some(jwt) => jwt
                .verify(token)
                .await
                .map_err(|rejection| match rejection {
                    jwt::Rejection::Invalid(why) => Denied::Invalid(why),
                    jwt::Rejection::Keys(why) => Denied::Unavailable(why),
                }),
            None => Err(Denied::Invalid(
                "the token is not one this server accepts".into(),
            )),
        }
    }

    #[cfg(not(feature = "oauth"))]
    async fn verify_jwt(&self, _token: &str) -> Result<Principal, Denied> {
        Err(Denied::Invalid(
            "the token is not one this server accepts".into(),
        ))
    }

    /// The scopes `principal` lacks to call the tool named `name`, when it is one the policy
    /// allows (a call of any other is the MCP service's to answer).
    pub(crate) fn lacking(
        &self,
        dispatcher: &buril_core::Dispatcher,
        name: &str,
        principal: &Principal,
    ) -> Option<Vec<String>> {
        let tool = dispatcher.registry().get(name)?;
        if !dispatcher.allows(&tool) {
            return None;
        }
        if self.scopes.rules().allows(&tool, principal) {
            return None;
        }
        Some(
            self.scopes
                .rules()
                .required(&tool)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        )
    }

    /// The `WWW-Authenticate` challenge for `denied`.
    pub(crate) fn challenge(&self, denied: &Denied) -> String {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        let scopes: Vec<String> = match denied {
            Denied::Insufficient(scopes) => scopes.clone(),
            _ => self.scopes.rules().every_call().to_vec(),
        };
        if !scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
        }
        match denied {
            Denied::Missing | Denied::Unavailable(_) => {}
            Denied::Invalid(why) => challenge.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{}\"",
                quoted(why)
            )),
            Denied::Insufficient(_) => challenge.push_str(&format!(
                ", error=\"insufficient_scope\", error_description=\"{}\"",
                quoted("the token lacks a scope this request needs")
            )),
        }
        challenge
    }
}

/// The request's bearer token (`Authorization: Bearer …`; never from the query string).
fn bearer(headers: &HeaderMap) -> Result<&str, Denied> {
    let Some(value) = headers.get(hyper::header::AUTHORIZATION) else {
        return Err(Denied::Missing);
    };
    let value = value
        .to_str()
        .map_err(|_| Denied::Invalid("the Authorization header is not text".into()))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(token.trim())
        }
        _ => Err(Denied::Invalid(
            "the Authorization header is not `Bearer <token>`".into(),
        )),
    }
}

/// `uri`'s origin and path (`https://host:port`, `/mcp`).
fn split_origin(uri: &str) -> Result<(&str, &str), String> {
    let after = uri
        .find("://")
        .map(|at| at + 3)
        .filter(|_| uri.starts_with("https://") || uri.starts_with("http://"))
        .ok_or_else(|| format!("the resource `{uri}` is not an http(s) URI"))?;
    let path_at = uri[after..].find('/').map_or(uri.len(), |at| after + at);
    let (origin, path) = uri.split_at(path_at);
    if uri.contains('#') {
        return Err(format!(
            "the resource `{uri}` has a fragment, which RFC 8707 forbids"
        ));
    }
    Ok((origin, path.trim_end_matches('/')))
}

/// `text` as a quoted-string's content: no quotes or backslashes.
fn quoted(text: &str) -> String {
    // RFC 6750, 3: `error_description` is printable ASCII without `"` and `\`.
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_path_follows_the_resource_path() {
        assert_eq!(
            split_origin("https://tools.example.com/mcp").unwrap(),
            ("https://tools.example.com", "/mcp")
        );
        assert_eq!(
            split_origin("http://127.0.0.1:8080").unwrap(),
            ("http://127.0.0.1:8080", "")
        );
        assert!(split_origin("tools.example.com/mcp").is_err());
        assert!(split_origin("https://tools.example.com/mcp#x").is_err());
    }

    #[test]
    fn a_bearer_token_comes_from_the_authorization_header_only() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), Err(Denied::Missing));
        headers.insert("authorization", "Basic abc".parse().unwrap());
        assert!(matches!(bearer(&headers), Err(Denied::Invalid(_))));
        headers.insert("authorization", "bearer  tok".parse().unwrap());
        assert_eq!(bearer(&headers), Ok("tok"));
    }
}
