//! Who may use the studio: the token of every request, the cookie of the page's assets, and the
//! `Host` and `Origin` of every request.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{
    AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, COOKIE, HOST, HeaderMap, HeaderValue, LOCATION,
    ORIGIN,
};
use hyper::{Response, StatusCode};

use crate::server::auth::{Authorization, BoxBody};
use crate::server::fast_path::Hosts;
use buril_core::Principal;

/// A request refused: the answer to send.
pub(crate) type Refused = Box<Response<BoxBody>>;

/// The cookie the page's assets are fetched with.
const COOKIE_NAME: &str = "buril_studio";

/// The studio of one server, and the token the server was given for it when nothing else
/// authorizes its callers.
pub(crate) struct Studio {
    token: Option<String>,
}

impl Studio {
    /// A studio whose requests the server's authorization checks; `token` is the one made for
    /// it, if the server had no other authorization.
    pub(crate) fn new(token: Option<String>) -> Studio {
        Studio { token }
    }

    /// The token made for it, if there is one.
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }
}

/// 256 random bits, in hexadecimal.
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A token the page was opened with, and whether to set it as the assets' cookie.
pub(crate) struct Credential {
    pub token: String,
    pub cookie: bool,
}

/// The checks of one request.
pub(crate) struct Gate<'a> {
    pub auth: &'a Authorization,
    pub hosts: &'a Hosts,
}

impl Gate<'_> {
    /// `Host` must be one the server answers to (no DNS rebinding), and an `Origin`, when there
    /// is one, the studio's own (no request from another site's page).
    pub(crate) fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refused> {
        let host = headers.get(HOST);
        if !self.hosts.allows(host) {
            return Err(Box::new(text(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host header does not name this server\n",
            )));
        }
        let Some(origin) = headers.get(ORIGIN) else {
            return Ok(());
        };
        let host = host.and_then(|host| host.to_str().ok()).unwrap_or("");
        let origin = origin.to_str().unwrap_or("");
        let own = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .is_some_and(|authority| authority.eq_ignore_ascii_case(host));
        if own {
            Ok(())
        } else {
            Err(Box::new(text(
                StatusCode::FORBIDDEN,
                "Forbidden: the studio answers its own pages only (the Origin is another site)\n",
            )))
        }
    }

    /// The API's credential: a bearer token, never a cookie (so that no other page can make a
    /// browser send it). The principal is the server's authorization's, when it has one.
    pub(crate) async fn bearer(&self, headers: &HeaderMap) -> Result<Arc<Principal>, Refused> {
        let token = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| {
                value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
            })
            .map(str::trim);
        match token {
            Some(token) => self.verify(token).await,
            None => Err(Box::new(unauthorized(false))),
        }
    }

    /// The page: opened with `?token=`, or with the cookie of an earlier opening.
    pub(crate) async fn page(
        &self,
        query: Option<&str>,
        headers: &HeaderMap,
    ) -> Result<Credential, Refused> {
        let given = query_value(query, "token");
        if let Some(token) = given {
            self.verify(&token)
                .await
                .map_err(|_| Box::new(unauthorized(true)))?;
            return Ok(Credential {
                token,
                cookie: true,
            });
        }
        match cookie(headers) {
            Some(token) => {
                self.verify(&token)
                    .await
                    .map_err(|_| Box::new(unauthorized(true)))?;
                Ok(Credential {
                    token,
                    cookie: false,
                })
            }
            None => Err(Box::new(unauthorized(true))),
        }
    }

    /// An asset: the cookie the page set.
    pub(crate) async fn cookie(&self, headers: &HeaderMap) -> Result<(), Refused> {
        let token = cookie(headers).ok_or_else(|| Box::new(unauthorized(false)))?;
        self.verify(&token)
            .await
            .map(|_| ())
            .map_err(|_| Box::new(unauthorized(false)))
    }

    /// The principal `token` stands for, as the server's authorization (static tokens and
    /// JWTs alike) says.
    async fn verify(&self, token: &str) -> Result<Arc<Principal>, Refused> {
        let mut headers = HeaderMap::new();
        let value =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| unauthorized(false))?;
        headers.insert(AUTHORIZATION, value);
        self.auth
            .authenticate(&headers)
            .await
            .map(Arc::new)
            .map_err(|_| Box::new(unauthorized(false)))
    }
}

/// The cookie's token, if the request carries it.
fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == COOKIE_NAME).then(|| percent_decode(value))
        })
}

/// The `Set-Cookie` value that keeps `token` for the page's assets.
pub(crate) fn set_cookie(token: &str) -> String {
    format!(
        "{COOKIE_NAME}={}; Path=/studio/; HttpOnly; SameSite=Strict",
        percent_encode(token)
    )
}

/// The value of `name` in a URL's query (`a=1&name=value`), its escapes undone.
pub(crate) fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| percent_decode(value))
    })
}

/// `%XX` escapes undone (and `+` as a space, as forms send it); bytes that are not UTF-8 are
/// replaced.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |byte: u8| (byte as char).to_digit(16);
        match bytes[at] {
            b'%' if at + 2 < bytes.len() => match (hex(bytes[at + 1]), hex(bytes[at + 2])) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    at += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            byte => out.push(byte),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every byte but letters, digits and `-._~` as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// An answer of `kind` that no cache keeps.
pub(crate) fn uncached(status: StatusCode, kind: &'static str, body: Bytes) -> Response<BoxBody> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// A plain-text answer that no cache keeps.
pub(crate) fn text(status: StatusCode, body: &'static str) -> Response<BoxBody> {
    uncached(
        status,
        "text/plain; charset=utf-8",
        Bytes::from_static(body.as_bytes()),
    )
}

/// A redirect to `to`.
pub(crate) fn redirect(to: &'static str) -> Response<BoxBody> {
    let mut response = text(StatusCode::MOVED_PERMANENTLY, "Moved\n");
    response
        .headers_mut()
        .insert(LOCATION, HeaderValue::from_static(to));
    response
}

/// 401: a page asking for the token (`page`), or a line of text.
fn unauthorized(page: bool) -> Response<BoxBody> {
    if !page {
        return text(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: the studio needs its token (open the URL the server printed)\n",
        );
    }
    let mut response = uncached(
        StatusCode::UNAUTHORIZED,
        "text/html; charset=utf-8",
        Bytes::from_static(LOGIN.as_bytes()),
    );
    let headers = response.headers_mut();
    headers.insert(
        "content-security-policy",
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ),
    );
    response
}

/// What a request without a good token sees: where to find one, and a field to give it.
const LOGIN: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>buril studio: token needed</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color-scheme:light dark}input{font:inherit;width:100%;margin:.5rem 0}</style>
</head><body><main>
<h1>The studio needs its token</h1>
<p>Open the address <code>tools studio</code> printed (it ends with <code>?token=…</code>), or give an access token this server accepts.</p>
<form method="get" action="/studio/"><label for="token">Token</label><input id="token" name="token" type="password" autocomplete="off" required><button type="submit">Open the studio</button></form>
</main></body></html>
"#;
