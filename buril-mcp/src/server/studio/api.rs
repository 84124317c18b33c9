//! The studio's JSON API: what MCP does not carry. Calls go over the MCP endpoint.
//!
//! - `GET tools`: every tool of the registry, on or off, with its family, flags, annotations,
//!   schemas, and where a third party's comes from;
//! - `GET settings`, `POST settings` (`{"changes": [...]}`): the config file, as
//!   `tools settings` shows and changes it, applied at once;
//! - `GET tasks`, `POST tasks/ID/cancel`, `POST tasks/ID/answer` (`{"responses": {...}}`): the
//!   caller's tasks (its principal's), as MCP's tasks extension scopes them;
//! - `GET servers`, `POST servers/NAME/reconnect`: the hub's external servers (feature `hub`).

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};

use super::access::Refused;
use crate::server::auth::{BoxBody, principal_key};
use crate::server::config_edit::{self, Change};
use crate::server::state::ServerState;
use buril_core::Principal;
use buril_core::tasks::{TaskError, now_ms};

/// The scope a caller needs to change the settings when the server authorizes callers.
pub(crate) const SETTINGS_SCOPE: &str = "buril:settings";

/// The largest body the API reads.
const MAX_BODY: usize = 1 << 20;

pub(crate) async fn answer(
    state: &Arc<ServerState>,
    principal: &Principal,
    path: &str,
    request: Request<Incoming>,
) -> Response<BoxBody> {
    let owner = Some(format!("principal:{}", principal_key(principal)));
    let method = request.method().clone();
    let segments: Vec<&str> = path.split('/').collect();
    match (&method, segments.as_slice()) {
        (&Method::GET, ["tools"]) => json(StatusCode::OK, &tools(state)),
        (&Method::GET, ["settings"]) => settings(state, Vec::new()).await,
        (&Method::POST, ["settings"]) => {
            if let Err(refusal) = may_change(principal, "changing the settings") {
                return *refusal;
            }
            match body::<SettingsChange>(request).await {
                Ok(change) => settings(state, change.changes).await,
                Err(refusal) => refusal,
            }
        }
        (&Method::GET, ["tasks"]) => match state.tasks.list(owner.as_deref()).await {
            Ok(records) => {
                let now = now_ms();
                let tasks: Vec<Value> = records
                    .iter()
                    .map(|record| json!(record.summary(now)))
                    .collect();
                json(StatusCode::OK, &json!({ "tasks": tasks }))
            }
            Err(error) => task_problem(&error),
        },
        (&Method::POST, ["tasks", id, "cancel"]) => {
            match state.tasks.cancel(id, owner.as_deref()).await {
                Ok(record) => json(StatusCode::OK, &json!(record.summary(now_ms()))),
                Err(error) => task_problem(&error),
            }
        }
        (&Method::POST, ["tasks", id, "answer"]) => {
            let answer = match body::<TaskAnswer>(request).await {
                Ok(answer) => answer,
                Err(refusal) => return refusal,
            };
            match state
                .tasks
                .answer(id, owner.as_deref(), &answer.responses)
                .await
            {
                Ok(record) => json(StatusCode::OK, &json!(record.summary(now_ms()))),
                Err(error) => task_problem(&error),
            }
        }
        (&Method::GET, ["servers"]) => json(StatusCode::OK, &servers(state)),
        (&Method::POST, ["servers", name, "reconnect"]) => {
            match may_change(principal, "reconnecting a server") {
                Ok(()) => reconnect(state, name),
                Err(refusal) => *refusal,
            }
        }
        (_, ["tools" | "settings" | "tasks" | "servers", ..]) => problem(
            StatusCode::METHOD_NOT_ALLOWED,
            "not a method this path takes",
        ),
        _ => problem(StatusCode::NOT_FOUND, "no such part of the studio's API"),
    }
}

/// `Ok` when `principal` may make the change `what` says (it has [`SETTINGS_SCOPE`]); otherwise
/// the 403 that says so.
fn may_change(principal: &Principal, what: &str) -> Result<(), Refused> {
    match principal.lacks([SETTINGS_SCOPE]) {
        None => Ok(()),
        Some(_) => Err(Box::new(problem(
            StatusCode::FORBIDDEN,
            &format!("{what} needs the scope `{SETTINGS_SCOPE}`"),
        ))),
    }
}

/// Every tool, on or off.
fn tools(state: &ServerState) -> Value {
    let policy = state.dispatcher.policy();
    let tools: Vec<Value> = state
        .registry
        .iter()
        .map(|tool| {
            let mut listing = buril_core::frontend::mcp_listing(&tool);
            let check = policy.check(&tool);
            listing["family"] = tool.family().into();
            listing["dangerous"] = tool.is_dangerous().into();
            listing["task"] = tool.meta().task.as_str().into();
            listing["enabled"] = check.is_ok().into();
            if let Err(error) = check {
                listing["reason"] = error.message().into();
            }
            if let Some(ui) = &tool.meta().ui {
                listing["ui"] = ui.uri.as_ref().into();
            }
            if let Some(reason) = tool.unavailable() {
                listing["unavailable"] = reason.as_ref().into();
            }
            if let Some(provenance) = tool.provenance() {
                listing["provider"] = provenance.provider().name().into();
                if let Some(original) = provenance.original_name() {
                    listing["original"] = original.into();
                }
            }
            listing
        })
        .collect();
    json!({
        "server": {"name": state.name, "version": state.version},
        "families": state.registry.families(),
        "tools": tools,
    })
}

/// The hub's external servers, each with the tools it serves now.
#[cfg(feature = "hub")]
fn servers(state: &ServerState) -> Value {
    let hub = crate::hub::Hub::of(state.registry);
    let servers: Vec<Value> = hub
        .statuses()
        .into_iter()
        .map(|status| {
            let mut tools: Vec<String> = state
                .registry
                .tools_of(&status.name)
                .iter()
                .map(|tool| tool.name().to_owned())
                .collect();
            tools.sort();
            let mut value = json!(status);
            value["served"] = json!(tools);
            value
        })
        .collect();
    json!({ "hub": true, "servers": servers })
}

#[cfg(not(feature = "hub"))]
fn servers(_: &ServerState) -> Value {
    json!({ "hub": false, "servers": [] })
}

#[cfg(feature = "hub")]
fn reconnect(state: &ServerState, name: &str) -> Response<BoxBody> {
    let hub = crate::hub::Hub::of(state.registry);
    if !hub.reconnect(name) {
        return problem(
            StatusCode::NOT_FOUND,
            &format!("no external server is named `{name}`"),
        );
    }
    match hub.status(name) {
        Some(status) => json(StatusCode::OK, &json!(status)),
        None => problem(StatusCode::CONFLICT, "the server was removed meanwhile"),
    }
}

#[cfg(not(feature = "hub"))]
fn reconnect(_: &ServerState, name: &str) -> Response<BoxBody> {
    problem(
        StatusCode::NOT_FOUND,
        &format!("no external server is named `{name}`: this binary has no hub"),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsChange {
    changes: Vec<Change>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskAnswer {
    responses: BTreeMap<String, Value>,
}

/// The settings, after `changes` if there are any. A change written is applied before the
/// answer, not at the next poll of the file: the page lists the tools again at once.
async fn settings(state: &ServerState, changes: Vec<Change>) -> Response<BoxBody> {
    let Some(path) = state.config_path() else {
        return problem(
            StatusCode::CONFLICT,
            "this server reads no config file, so its settings cannot be changed here",
        );
    };
    let view = match config_edit::change(path, &changes, state.registry) {
        Ok(view) => view,
        Err(error) => return problem(StatusCode::BAD_REQUEST, &error.0),
    };
    if !changes.is_empty()
        && let Err(error) = state.reload_and_notify().await
    {
        return problem(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string());
    }
    json(StatusCode::OK, &json!(view))
}

/// The request's body as JSON of type `T`, or a 400 saying why not.
async fn body<T: serde::de::DeserializeOwned>(
    request: Request<Incoming>,
) -> Result<T, Response<BoxBody>> {
    let bytes = Limited::new(request.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|error| problem(StatusCode::BAD_REQUEST, &format!("the body: {error}")))?
        .to_bytes();
    serde_json::from_slice(&bytes)
        .map_err(|error| problem(StatusCode::BAD_REQUEST, &format!("the body: {error}")))
}

fn task_problem(error: &TaskError) -> Response<BoxBody> {
    let status = match error {
        TaskError::Unknown(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::CONFLICT,
    };
    problem(status, &error.to_string())
}

/// `{"error": message}` with `status`.
fn problem(status: StatusCode, message: &str) -> Response<BoxBody> {
    json(status, &json!({ "error": message }))
}

fn json(status: StatusCode, value: &Value) -> Response<BoxBody> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
