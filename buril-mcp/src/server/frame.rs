//! Newline-delimited JSON-RPC over a byte stream (stdio), with these guarantees:
//!
//! - **Bounded memory.** One frame may be at most `max_line` bytes. A longer line is never
//!   buffered whole: the bytes past the bound are skipped unread as they arrive.
//! - **Every frame gets an answer.** A line that is not JSON (a syntax error, invalid UTF-8,
//!   nesting past the parser's limit, a truncated message) or is too long is answered with
//!   JSON-RPC `-32700` (parse error, `id: null`) saying what was wrong and where. Well-formed
//!   JSON that is not a valid message is answered `-32600`, with its id when it has one.
//! - **Whole answers, in order.** One writer task writes every answer whole; answers to bad
//!   frames go out before anything read after them.
//!
//! Messages are parsed by rmcp's own codec, except `tools/call` frames with just a name,
//! arguments and `_meta` (what the generated clients and most SDKs send), which are parsed
//! straight into rmcp's message type (`fast_path/`). Once the client is known (a legacy client
//! finished `initialize`; a stateless 2026-07-28 client sent its first request through the
//! SDK), such a call that needs nothing of the SDK's service loop (its route, `route.rs`: a plain
//! call, no progress, no log messages, no questions to the client mid-call) is run here, on a
//! task of its own, and its answer queued for the writer: the loop's channel to the handler's
//! task and back were two hand-offs between threads a call. With the fast paths off, every
//! frame goes to the SDK. Every other message goes to the SDK. The frame after
//! `notifications/initialized` waits for the handler to have seen it, so that every call after
//! it takes the same path. When the input ends, such calls still running have as long to
//! answer as the SDK's loop gives its own (5 s); then they are cancelled and the output closed,
//! so a client that leaves mid-call ends the session.
//!
//! A peer that echoes every error back as more garbage could start an error storm; after
//! [`MAX_UNANSWERED_STREAK`] bad frames in a row the server stops answering them (it says so
//! once on stderr) until a well-formed message arrives.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{JsonRpcMessageCodec, JsonRpcMessageCodecError};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio_util::codec::Decoder;
use tokio_util::task::TaskTracker;

use super::fast_path::{self, CallParts, FastCall};
use super::http_sessions::{StdioSession, may_cancel};
use super::lines::{Line, Lines};
use super::route::Route;
use super::state::ServerState;
use super::watch::InputWatch;
use buril_core::Registry;

/// How many bad frames in a row are answered before the server stops answering them.
pub(crate) const MAX_UNANSWERED_STREAK: usize = 1_000;

/// How many answers may wait for the peer to read them before the server stops reading
/// requests.
const OUTBOX: usize = 256;

/// How long calls in flight may still answer once the input ended, and once the session ended
/// otherwise: the SDK's service loop gives its own calls as long.
const DRAIN_AFTER_END: Duration = Duration::from_secs(5);
const DRAIN_AFTER_CANCEL: Duration = Duration::from_secs(2);

/// How long the frame after `notifications/initialized` waits for the handler to see it.
const DECISION: Duration = Duration::from_secs(1);

/// The transport of one stdio session: newline-delimited JSON-RPC, with bounded lines, an
/// answer for every frame, and one writer task that keeps answers whole and in order.
pub(crate) struct LineTransport<R> {
    lines: Lines<R>,
    outbox: mpsc::Sender<Vec<u8>>,
    /// An answer to a bad frame that waits for room in the outbox.
    pending: Option<Vec<u8>>,
    /// rmcp's own parser, for every frame the fast path does not take.
    codec: JsonRpcMessageCodec<RxJsonRpcMessage<RoleServer>>,
    /// Frames answered with an error in a row.
    streak: usize,
    /// Writes the outbox; it drops the outbox's receiving end when a write fails, which makes
    /// every later `send` fail.
    writer: Option<tokio::task::JoinHandle<()>>,
    /// The server's tools, whose metadata hash the bindings' in a call's `_meta` is compared
    /// with.
    registry: &'static Registry,
    /// The server and its client, once known: plain calls are then answered here.
    plain: Option<(Arc<ServerState>, Arc<StdioSession>)>,
    /// The plain calls running on tasks of their own.
    calls: TaskTracker,
    /// Set when `notifications/initialized` was passed to the SDK and the handler may not yet
    /// have decided whether this transport answers the client's plain calls: the next frame
    /// waits for the decision, so that every call after it takes the same path.
    deciding: bool,
    /// When the input ended.
    ended: Option<Instant>,
    /// Whether `tools/call` frames are parsed straight into their type (`fast_path/parse.rs`).
    fast_parse: bool,
}

impl<R: AsyncRead + Send + Unpin + 'static> LineTransport<R> {
    /// Reads `reader` and writes `writer` (on a task of the current runtime), for a server of
    /// `registry`'s tools; with `watch`, the writer watches the input for a moment after it
    /// wrote every answer it had (`watch.rs`).
    pub(crate) fn new<W>(
        reader: R,
        writer: W,
        max_line: usize,
        registry: &'static Registry,
        watch: Option<InputWatch>,
    ) -> Self
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (outbox, mut answers) = mpsc::channel::<Vec<u8>>(OUTBOX);
        let calls = TaskTracker::new();
        let running = calls.clone();
        let writer = tokio::spawn(async move {
            let mut out = BufWriter::with_capacity(64 * 1024, writer);
            while let Some(answer) = answers.recv().await {
                let mut written = out.write_all(&answer).await;
                // Answers that are already waiting go out in the same write.
                while written.is_ok()
                    && let Ok(answer) = answers.try_recv()
                {
                    written = out.write_all(&answer).await;
                }
                if written.and(out.flush().await).is_err() {
                    return;
                }
                // Only when no call is running: one that is will have its answer written soon,
                // and a watch would only hold this worker from it.
                if let Some(watch) = &watch
                    && running.is_empty()
                {
                    watch.wait(|| !answers.is_empty() || !running.is_empty());
                }
            }
            let _ = out.shutdown().await;
        });
        LineTransport {
            lines: Lines::new(reader, max_line),
            outbox,
            pending: None,
            codec: JsonRpcMessageCodec::default(),
            streak: 0,
            writer: Some(writer),
            registry,
            plain: None,
            calls,
            deciding: false,
            ended: None,
            fast_parse: true,
        }
    }

    /// Parses every frame with rmcp's own codec (the fast paths off).
    pub(crate) fn parsing_every_frame_generically(mut self) -> Self {
        self.fast_parse = false;
        self
    }

    /// Answers the plain calls of the client `session` records (once it finished
    /// `initialize`) itself, each on a task of its own, instead of passing them to the SDK's
    /// service loop (the call's route says which calls, `route.rs`; the rest pass as before).
    pub(crate) fn answering_plain_calls(
        mut self,
        state: Arc<ServerState>,
        session: Arc<StdioSession>,
    ) -> Self {
        self.plain = Some((state, session));
        self
    }

    /// Runs `call` on a task of its own and queues its answer, if it is a plain call of a
    /// client this transport answers (its route, `route.rs`); gives it back otherwise.
    fn answer_plain(&self, call: CallParts) -> Option<CallParts> {
        let Some((state, stdio)) = &self.plain else {
            return Some(call);
        };
        let Some(session) = stdio.get() else {
            return Some(call);
        };
        let route = Route::of_frame(state, session, &call.1.name, call.2.as_ref(), call.3);
        if !route.by_transport() {
            return Some(call);
        }
        let (token, registered) = fast_path::register(session, &call);
        // The task does not keep the writer going: once the transport closes, a call that
        // ignores its cancellation must not hold the server open.
        let (state, session, outbox) = (state.clone(), session.clone(), self.outbox.downgrade());
        self.calls.spawn(async move {
            let _registered = registered;
            let (message, cancelled) =
                fast_path::answer(&state, &session, call, route, None, token).await;
            // A call the client cancelled gets no answer, as through the SDK's service loop.
            // The writer is gone only when the output failed or the transport closed: nobody
            // to answer.
            if !cancelled && let Some(outbox) = outbox.upgrade() {
                let _ = outbox.send(encode(&message)).await;
            }
        });
        None
    }

    /// Queues the answer to a bad frame, unless the peer has sent too many in a row.
    fn answer(&mut self, error: ErrorData, id: Option<RequestId>) {
        self.streak += 1;
        if self.streak == MAX_UNANSWERED_STREAK {
            eprintln!(
                "buril: {MAX_UNANSWERED_STREAK} malformed messages in a row; not answering more \
                 until a well-formed one arrives"
            );
        }
        if self.streak >= MAX_UNANSWERED_STREAK {
            return;
        }
        self.pending = Some(encode_error(error, id));
    }

    /// What to make of one line: a message, nothing (blank lines, ignored notifications), or
    /// an answer queued.
    fn read(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        // The frame nearly every session is made of, parsed straight into its type.
        if self.fast_parse
            && let Ok(call) = serde_json::from_slice::<FastCall>(text)
        {
            self.streak = 0;
            let call = self.answer_plain(call.into_parts(self.registry))?;
            return Some(fast_path::message_of(call));
        }
        // A call answered here is cancelled here; the notification still goes to the SDK.
        if may_cancel(text)
            && let Some((_, stdio)) = &self.plain
            && let Some(session) = stdio.get()
        {
            session.cancel_named_in(text);
        }
        if let Err(reason) = check_json(text, " (send one JSON-RPC message per line)") {
            self.answer(ErrorData::parse_error(reason, None), None);
            return None;
        }
        let mut buffer = BytesMut::with_capacity(text.len() + 1);
        buffer.extend_from_slice(text);
        buffer.extend_from_slice(b"\n");
        match self.codec.decode(&mut buffer) {
            Ok(Some(message)) => {
                self.streak = 0;
                self.deciding |= self.plain.is_some() && is_initialized(&message);
                Some(message)
            }
            // A notification the protocol layer ignores (not MCP's).
            Ok(None) => None,
            Err(error) => {
                // Well-formed JSON (checked above): answer with its id when it has one.
                let id = matches!(error, JsonRpcMessageCodecError::Serde(_))
                    .then(|| serde_json::from_slice::<JustId>(text).ok())
                    .flatten()
                    .and_then(|just| just.id);
                self.answer(
                    ErrorData::invalid_request(format!("invalid request: {error}"), None),
                    id,
                );
                None
            }
        }
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outbox = self.outbox.clone();
        async move {
            if outbox.send(encode(&item)).await.is_err() {
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the peer stopped reading",
                ));
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Cancel-safe throughout: an answer stays in `pending` until the outbox takes it
            // whole, a line stays in `lines` until it is read whole, and `deciding` is cleared
            // only once decided.
            if self.deciding
                && let Some((_, stdio)) = &self.plain
            {
                // Bounded in case the handler never sees the notification: calls then go to
                // the SDK until it does, as they may.
                let _ = tokio::time::timeout(DECISION, stdio.decided()).await;
                self.deciding = false;
            }
            if let Some(answer) = self.pending.take() {
                match self.outbox.reserve().await {
                    Ok(permit) => permit.send(answer),
                    Err(_) => return None,
                }
            }
            let line = match self.lines.next().await {
                Line::Whole(line) => line,
                Line::TooLong { length, max } => {
                    let reason = format!(
                        "the message is {length} bytes long; this server reads at most {max} \
                         bytes in one message"
                    );
                    self.answer(ErrorData::parse_error(reason, None), None);
                    continue;
                }
                Line::End => {
                    self.ended.get_or_insert_with(Instant::now);
                    return None;
                }
            };
            let message = self.read(&line);
            self.lines.recycle(line);
            if message.is_some() {
                return message;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Plain calls still running have as long to answer as the SDK's service loop gives its
        // own (from the end of the input, or from now when the session ends otherwise); then
        // they are cancelled, and any answer after that is not written.
        self.calls.close();
        let deadline = match self.ended {
            Some(ended) => ended + DRAIN_AFTER_END,
            None => Instant::now() + DRAIN_AFTER_CANCEL,
        };
        if tokio::time::timeout_at(deadline.into(), self.calls.wait())
            .await
            .is_err()
            && let Some(session) = self.plain.as_ref().and_then(|(_, stdio)| stdio.get())
        {
            session.cancel_all();
        }
        // Answers already queued are written before the writer ends.
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.outbox, closed));
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

/// One line of the answer `message`.
fn encode(message: &TxJsonRpcMessage<RoleServer>) -> Vec<u8> {
    let mut bytes = fast_path::encode(message);
    bytes.push(b'\n');
    bytes
}

/// The answer to a frame that is not a valid request. JSON-RPC 2.0 (section 5) requires the
/// `id` member of every error answer, `null` when the id could not be read (a parse error, a
/// request without one); rmcp's error type leaves it out then, so the answer is written here.
pub(crate) fn encode_error(error: ErrorData, id: Option<RequestId>) -> Vec<u8> {
    if id.is_some() {
        return encode(&TxJsonRpcMessage::<RoleServer>::error(error, id));
    }
    let answer = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": error});
    let mut bytes = answer.to_string().into_bytes();
    bytes.push(b'\n');
    bytes
}

/// Whether `message` is the client's `notifications/initialized`.
fn is_initialized(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    matches!(
        message,
        JsonRpcMessage::Notification(notification)
            if matches!(notification.notification, ClientNotification::InitializedNotification(_))
    )
}

/// The id of a request that is not valid otherwise, to answer it.
#[derive(Deserialize)]
struct JustId {
    id: Option<RequestId>,
}

/// The id of well-formed JSON that is not a valid message, if it has one.
pub(crate) fn request_id(text: &[u8]) -> Option<RequestId> {
    serde_json::from_slice::<JustId>(text)
        .ok()
        .and_then(|just| just.id)
}

/// Whether `text` is one JSON value that the protocol layer's parser takes: UTF-8, well
/// formed, numbers in range, escapes valid, nested no deeper than the parser's limit. Every
/// failure here is one the protocol layer would drop without an answer.
/// `hint` follows the parser's reason for text that is not JSON.
pub(crate) fn check_json(text: &[u8], hint: &str) -> Result<(), String> {
    let text =
        std::str::from_utf8(text).map_err(|error| format!("the message is not UTF-8: {error}"))?;
    serde_json::from_str::<Strict>(text)
        .map(drop)
        .map_err(|error| format!("the message is not JSON: {error}{hint}"))
}

/// Any JSON value, read in full (numbers parsed, escapes decoded) and kept nowhere.
struct Strict;

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        while seq.next_element::<Strict>()?.is_some() {}
        Ok(Strict)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        while map.next_entry::<Strict, Strict>()?.is_some() {}
        Ok(Strict)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    /// Reads `input` through a transport; answers the messages it passed on, as JSON, and
    /// what it wrote back.
    fn run(max_line: usize, input: &[u8]) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (mut peer, server) = tokio::io::duplex(1 << 20);
            let reader = std::io::Cursor::new(input.to_vec());
            let registry = buril_core::registry();
            let mut transport = LineTransport::new(reader, server, max_line, registry, None);
            let mut messages = Vec::new();
            while let Some(message) = transport.receive().await {
                messages.push(serde_json::to_value(&message).unwrap());
            }
            transport.close().await.unwrap();
            let mut written = Vec::new();
            peer.read_to_end(&mut written).await.unwrap();
            let answers = written
                .split(|&b| b == b'\n')
                .filter(|line| !line.is_empty())
                .map(|line| serde_json::from_slice(line).unwrap())
                .collect();
            (messages, answers)
        })
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}"#;

    #[test]
    fn messages_pass_whole_and_blank_lines_ask_nothing() {
        let input = format!("{CALL}\r\n\n   \n\u{feff}{CALL}\n");
        let (messages, answers) = run(1 << 20, input.as_bytes());
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["params"]["arguments"]["a"], 1);
        assert!(answers.is_empty(), "{answers:?}");
    }

    #[test]
    fn a_long_line_is_answered_with_its_length_and_the_next_one_passes() {
        let input = format!("[{}]\n{CALL}\n", "1,".repeat(100).trim_end_matches(','));
        let (messages, answers) = run(150, input.as_bytes());
        assert_eq!(messages.len(), 1);
        assert_eq!(answers.len(), 1);
        let message = answers[0]["error"]["message"].as_str().unwrap();
        assert_eq!(answers[0]["error"]["code"], -32700);
        assert_has_null_id(&answers[0]);
        assert!(message.contains("201 bytes long"), "{message}");
        assert!(message.contains("at most 150 bytes"), "{message}");
    }

    #[test]
    fn lines_that_are_not_json_are_answered_with_the_reason() {
        let input: &[u8] = b"not json\n{\"a\": \"\xff\"}\n{\"jsonrpc\":\"2.0\",\"id\":1\n[1e999]\n\
            [\"\\ud800\"]\n[1] 2\n";
        let (messages, answers) = run(1 << 20, input);
        assert!(messages.is_empty());
        let reasons: Vec<&str> = answers
            .iter()
            .map(|a| {
                assert_eq!(a["error"]["code"], -32700, "{a}");
                a["error"]["message"].as_str().unwrap()
            })
            .collect();
        assert_eq!(reasons.len(), 6, "{reasons:?}");
        for answer in &answers {
            assert_has_null_id(answer);
        }
        assert!(
            reasons[0].contains("expected ident at line 1 column 2"),
            "{reasons:?}"
        );
        assert!(reasons[1].contains("not UTF-8"), "{reasons:?}");
        assert!(reasons[2].contains("EOF"), "{reasons:?}");
        assert!(reasons[3].contains("out of range"), "{reasons:?}");
        assert!(reasons[4].contains("hex escape"), "{reasons:?}");
        assert!(reasons[5].contains("trailing characters"), "{reasons:?}");
    }

    #[test]
    fn json_that_is_not_a_message_is_answered_with_its_id() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":7}\n[]\n";
        let (messages, answers) = run(1 << 20, input);
        assert!(messages.is_empty());
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(answers[0]["id"], 42);
        assert_eq!(answers[0]["error"]["code"], -32600);
        assert_eq!(answers[1]["error"]["code"], -32600);
        // `[]` has no id to answer with: `null`, present.
        assert_has_null_id(&answers[1]);
    }

    /// JSON-RPC 2.0, section 5: an error answer whose request id could not be read has
    /// `"id": null`, not no `id`.
    fn assert_has_null_id(answer: &serde_json::Value) {
        assert_eq!(
            answer.as_object().and_then(|a| a.get("id")),
            Some(&serde_json::Value::Null),
            "{answer}"
        );
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    }

    #[test]
    fn an_error_storm_is_cut_off_and_a_good_line_resets_it() {
        let mut input = b"x\n".repeat(MAX_UNANSWERED_STREAK + 10);
        input.extend_from_slice(format!("{CALL}\nx\n").as_bytes());
        let (messages, answers) = run(1 << 10, &input);
        assert_eq!(messages.len(), 1);
        assert_eq!(answers.len(), MAX_UNANSWERED_STREAK - 1 + 1);
    }
}
