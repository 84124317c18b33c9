//! The page and its assets, built from `buril-mcp/studio/` into `buril-mcp/studio/dist/` and embedded
//! in the binary: nothing is loaded from anywhere else.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue, SET_COOKIE};
use hyper::{Response, StatusCode};

use super::access::{set_cookie, text, uncached};
use crate::server::auth::BoxBody;

/// The page, with `{{token}}` where the token goes.
const PAGE: &str = include_str!("../../../studio/dist/index.html");

/// The assets, by name: the script and the style sheet.
const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "studio.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../studio/dist/studio.js"),
    ),
    (
        "studio.css",
        "text/css; charset=utf-8",
        include_bytes!("../../../studio/dist/studio.css"),
    ),
    (
        "apps.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../studio/dist/apps.js"),
    ),
];

/// What the page may load and do: its own script, style, the server's API; images and sounds
/// from the `data:` and `blob:` URLs the page makes from results; the frames of tools' apps.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: blob:; media-src 'self' data: blob:; connect-src 'self'; \
     frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// What an app's document may load and do: MCP Apps' default for an app that declares no
/// domains (its own inline scripts and styles, images and sounds inline, no network), and be
/// framed by the studio only.
const APP_POLICY: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; \
     connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'; \
     frame-ancestors 'self'";

/// A tool's app document, for the studio's sandboxed frame (the page gives the frame no
/// same-origin access, so the document runs in an opaque origin).
pub(crate) fn app(html: &str) -> Response<BoxBody> {
    let mut response = uncached(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Bytes::from(html.to_owned()),
    );
    response.headers_mut().insert(
        "content-security-policy",
        HeaderValue::from_static(APP_POLICY),
    );
    response
}

/// The page, handed `token` (in a `<meta>` its script reads); with `cookie`, the token is also
/// set as the cookie its assets are fetched with.
pub(crate) fn page(token: &str, cookie: bool) -> Response<BoxBody> {
    let body = PAGE.replace("{{token}}", &escape(token));
    let mut response = uncached(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Bytes::from(body),
    );
    let headers = response.headers_mut();
    headers.insert("content-security-policy", HeaderValue::from_static(POLICY));
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    if cookie && let Ok(value) = HeaderValue::from_str(&set_cookie(token)) {
        headers.insert(SET_COOKIE, value);
    }
    response
}

/// An asset by name.
pub(crate) fn asset(name: &str) -> Response<BoxBody> {
    let Some((_, kind, bytes)) = ASSETS.iter().find(|(asset, ..)| *asset == name) else {
        return text(StatusCode::NOT_FOUND, "Not Found\n");
    };
    let mut response = Response::new(Full::new(Bytes::from_static(bytes)).boxed());
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// `text` safe in an HTML attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
