//! The studio (feature `studio`): a web page to see, try and steer a server's tools and tasks,
//! served at `/studio/` of the Streamable HTTP endpoint (`tools studio`, `serve --http
//! --studio`).
//!
//! The page is static (`buril-mcp/studio/`, TypeScript built into `dist/` and embedded here): it
//! calls the tools over the server's own MCP endpoint, as any client does, so that a call from
//! the page meets the same policy, validation, authorization and tasks as one from an agent.
//! What MCP does not carry is this module's small JSON API (`api.rs`): the catalog with each
//! tool's flags and whether it is on, the config file's settings, and the caller's tasks.
//!
//! Access (`access.rs`): every page, asset and API request needs a token the server's
//! authorization accepts; a server given no other authorization is given a random token for
//! the studio (and its MCP endpoint then needs it too), and serves loopback addresses only. The token comes in the URL once (`/studio/?token=…`, as Jupyter's
//! does), becomes an `HttpOnly`, `SameSite=Strict` cookie for the page's assets, and a bearer
//! header for the API, which refuses a foreign `Origin` and a `Host` that is not the server's.

mod access;
mod api;
mod assets;

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};

use self::access::{Credential, Gate};
pub(crate) use self::access::{Studio, random_token};
pub(crate) use self::api::SETTINGS_SCOPE;
use super::auth::{Authorization, BoxBody};
use super::fast_path::Hosts;
use super::state::ServerState;

/// Where the studio's pages are.
pub(crate) const PREFIX: &str = "/studio";

/// Whether `path` is the studio's.
pub(crate) fn owns(path: &str) -> bool {
    path == PREFIX || path.starts_with("/studio/")
}

/// What the studio answers `request`.
pub(crate) async fn answer(
    state: &Arc<ServerState>,
    auth: &Authorization,
    hosts: &Hosts,
    request: Request<Incoming>,
) -> Response<BoxBody> {
    let gate = Gate { auth, hosts };
    let path = request.uri().path().to_owned();
    if path == PREFIX {
        return access::redirect("/studio/");
    }
    if let Err(refusal) = gate.check_origin(request.headers()) {
        return *refusal;
    }
    if let Some(api_path) = path.strip_prefix("/studio/api/") {
        let principal = match gate.bearer(request.headers()).await {
            Ok(principal) => principal,
            Err(refusal) => return *refusal,
        };
        return api::answer(state, &principal, api_path, request).await;
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return access::text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\n");
    }
    if path == "/studio/" {
        return match gate.page(request.uri().query(), request.headers()).await {
            Ok(Credential { token, cookie }) => assets::page(&token, cookie),
            Err(refusal) => *refusal,
        };
    }
    if path == "/studio/app" {
        if let Err(refusal) = gate.cookie(request.headers()).await {
            return *refusal;
        }
        let uri = access::query_value(request.uri().query(), "uri").unwrap_or_default();
        let html = crate::server::apps::app_at(state, &uri).map(|ui| ui.html);
        return match html {
            Some(html) => assets::app(&html),
            None => access::text(
                StatusCode::NOT_FOUND,
                "Not Found: no tool's app is at that URI\n",
            ),
        };
    }
    if let Some(name) = path.strip_prefix("/studio/assets/") {
        if let Err(refusal) = gate.cookie(request.headers()).await {
            return *refusal;
        }
        return assets::asset(name);
    }
    access::text(StatusCode::NOT_FOUND, "Not Found\n")
}
