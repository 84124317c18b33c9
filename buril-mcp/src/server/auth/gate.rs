//! What an HTTP request must carry before the MCP service sees it: a good bearer token, the
//! scopes of every call, and, for a `tools/call`, the scopes of the tool it calls.

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::json;

use super::authorization::{Authorization, Denied};
use crate::server::http_limits::late_body_answer;
use buril_core::Dispatcher;

/// The body of the server's own HTTP answers.
pub(crate) type BoxBody = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The request with its body read, and the principal in its extensions (as an
/// `Arc<Principal>`, which the MCP service hands on to the handler); or the answer that
/// refuses it. The body is read whole (up to the largest message the server accepts) so that
/// a `tools/call`'s tool can be checked before the call is made.
pub(crate) async fn gate(
    auth: &Authorization,
    dispatcher: &Dispatcher,
    limit: usize,
    body_timeout: Duration,
    request: Request<Incoming>,
) -> Result<(Request<Full<Bytes>>, Bytes), Response<BoxBody>> {
    let (mut parts, body) = request.into_parts();
    let principal = match auth.authenticate(&parts.headers).await {
        Ok(principal) => principal,
        Err(denied) => return Err(unread(body, refusal(auth, &denied)).await),
    };
    let read = tokio::time::timeout(body_timeout, Limited::new(body, limit).collect());
    let Ok(read) = read.await else {
        return Err(late_body_answer());
    };
    let bytes = match read {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            return Err(closing(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload Too Large: a message is at most {limit} bytes\n"),
            )));
        }
        Err(error) => {
            return Err(closing(plain(
                StatusCode::BAD_REQUEST,
                format!("Bad Request: the body could not be read: {error}\n"),
            )));
        }
    };
    if parts.method == Method::POST
        && let Some(name) = tool_called(&bytes)
        && let Some(scopes) = auth.lacking(dispatcher, &name, &principal)
    {
        return Err(refusal(auth, &Denied::Insufficient(scopes)));
    }
    parts.extensions.insert(Arc::new(principal));
    Ok((Request::from_parts(parts, Full::new(bytes.clone())), bytes))
}

/// How much of a refused request's body is read (and how long it may take to come) so that
/// its connection can carry the client's next request.
const UNREAD_BODY: usize = 64 * 1024;
const UNREAD_WAIT: Duration = Duration::from_secs(1);

/// `response`, refusing a request whose body was not read, after reading the body when it is
/// small and comes soon: the server closes a connection whose request body was left unread, and
/// a client that sent its next request on it (as the SDKs' clients do, asking for the metadata
/// after a `401`) would see it drop with no answer. A body that is larger, or slow, is left, and
/// the answer says the connection closes.
async fn unread(body: Incoming, response: Response<BoxBody>) -> Response<BoxBody> {
    let read = tokio::time::timeout(UNREAD_WAIT, Limited::new(body, UNREAD_BODY).collect()).await;
    if matches!(read, Ok(Ok(_))) {
        response
    } else {
        closing(response)
    }
}

/// `response` with `connection: close`: the request's body was not read whole, so the
/// connection cannot carry another request.
fn closing(mut response: Response<BoxBody>) -> Response<BoxBody> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The tool a `tools/call` message calls, if the body is one.
fn tool_called(body: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Option<Cow<'a, str>>,
    }
    let message: Message<'_> = serde_json::from_slice(body).ok()?;
    if message.method.as_deref() != Some("tools/call") {
        return None;
    }
    Some(message.params?.name?.into_owned())
}

/// The answer to a request `denied` refuses: `401` with the challenge, `403
/// insufficient_scope`, or `503` while the issuer's keys cannot be had.
fn refusal(auth: &Authorization, denied: &Denied) -> Response<BoxBody> {
    let (status, body) = match denied {
        Denied::Missing => (
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_request", "error_description": "this server needs a bearer token"}),
        ),
        Denied::Invalid(why) => (
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_token", "error_description": why}),
        ),
        Denied::Insufficient(scopes) => (
            StatusCode::FORBIDDEN,
            json!({
                "error": "insufficient_scope",
                "error_description": format!("this request needs the scopes: {}", scopes.join(" ")),
            }),
        ),
        Denied::Unavailable(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"error": "temporarily_unavailable", "error_description": why}),
        ),
    };
    tracing::debug!(target: "buril::auth", status = status.as_u16(), reason = ?denied, "a request was refused");
    let mut response = json_response(status, body.to_string());
    if !matches!(denied, Denied::Unavailable(_))
        && let Ok(value) = HeaderValue::from_str(&auth.challenge(denied))
    {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// The protected resource metadata, for `GET` (and `HEAD`); any other method answers 405.
pub(crate) fn metadata_response(auth: &Authorization, method: &Method) -> Response<BoxBody> {
    if method != Method::GET && method != Method::HEAD && method != Method::OPTIONS {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed\n".into(),
        );
    }
    let mut response = json_response(StatusCode::OK, auth.metadata().to_string());
    // A public document: browser clients read it from other origins.
    response
        .headers_mut()
        .insert("access-control-allow-origin", HeaderValue::from_static("*"));
    response
}

fn json_response(status: StatusCode, body: String) -> Response<BoxBody> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, body: String) -> Response<BoxBody> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_of_a_call_is_read_from_its_body() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"scene_\u006fpen","arguments":{}}}"#;
        assert_eq!(tool_called(call).as_deref(), Some("scene_open"));
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(tool_called(list), None);
        assert_eq!(tool_called(b"not json"), None);
    }
}
