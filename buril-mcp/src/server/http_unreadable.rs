//! The SDK's client errors to a POST answered as the stdio transport answers a frame it cannot
//! read: a body that is not JSON is a `-32700`, JSON that is not a message a `-32600`, each with
//! its reason and status 400; a JSON-RPC error without an `id` gets `"id": null`. The request's
//! body is kept as it is read (`Recorded`, its frames shared, not copied) for the reason.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::http::request::Parts;
use hyper::{Response, StatusCode};
use rmcp::model::ErrorData;

use super::auth::BoxBody;
use super::frame;
use super::http_limits::{BodyError, Timed};

/// A client error from the SDK, as a JSON-RPC answer: a body it read whole and could not parse
/// as a message (which it answers `415` with a line of text) is a `-32700` (not JSON) or
/// `-32600` (JSON, not a message), status 400, with the reason; a JSON-RPC error without an
/// `id` member gets `"id": null` (JSON-RPC 2.0, section 5). Anything else passes unchanged.
pub(super) async fn answer_unreadable(
    response: Response<BoxBody>,
    seen: &Seen,
) -> Response<BoxBody> {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    let unparsed = response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE && seen.finished;
    if !is_json && !unparsed {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await;
    let bytes = collected.to_bytes();
    if unparsed {
        let text = seen.frames.concat();
        let answer = match frame::check_json(&text, "") {
            Err(reason) => frame::encode_error(ErrorData::parse_error(reason, None), None),
            Ok(()) => {
                let reason = String::from_utf8_lossy(&bytes);
                let reason = reason
                    .trim()
                    .trim_start_matches("fail to deserialize request body");
                frame::encode_error(
                    ErrorData::invalid_request(
                        format!(
                            "invalid request: not a JSON-RPC message ({})",
                            reason.trim()
                        ),
                        None,
                    ),
                    frame::request_id(&text),
                )
            }
        };
        parts.status = StatusCode::BAD_REQUEST;
        parts
            .headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        parts.headers.remove(CONTENT_LENGTH);
        return Response::from_parts(parts, Full::new(Bytes::from(answer)).boxed());
    }
    let body = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(mut answer))
            if answer.contains_key("error") && !answer.contains_key("id") =>
        {
            answer.insert("id".into(), serde_json::Value::Null);
            parts.headers.remove(CONTENT_LENGTH);
            Bytes::from(serde_json::Value::Object(answer).to_string())
        }
        _ => bytes,
    };
    Response::from_parts(parts, Full::new(body).boxed())
}

/// What a request's body has given so far.
#[derive(Default)]
pub(super) struct Seen {
    /// Its data frames (reference-counted, not copied).
    frames: Vec<Bytes>,
    /// Whether it was read to its end.
    finished: bool,
}

impl Seen {
    /// A body read whole here, which the SDK reads too when it says it is JSON (else it
    /// answers 415 without reading it).
    pub(super) fn whole(body: Bytes, json: bool) -> Self {
        Seen {
            frames: vec![body],
            finished: json,
        }
    }
}

/// Whether a request says its body is JSON, as the SDK reads `Content-Type`.
pub(super) fn is_json(parts: &Parts) -> bool {
    parts
        .headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// A request body that keeps what it gives.
pub(super) struct Recorded {
    inner: Timed<Incoming>,
    pub(super) seen: Arc<Mutex<Seen>>,
}

impl Recorded {
    pub(super) fn new(inner: Timed<Incoming>) -> Self {
        Recorded {
            inner,
            seen: Arc::default(),
        }
    }
}

impl hyper::body::Body for Recorded {
    type Data = Bytes;
    type Error = BodyError<hyper::Error>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(frame) = &polled {
            let mut seen = self
                .seen
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match frame {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        seen.frames.push(data.clone());
                    }
                }
                None => seen.finished = true,
                Some(Err(_)) => {}
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}
