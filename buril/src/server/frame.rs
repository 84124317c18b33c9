//! Newline-delimited JSON-RPC over a byte stream (stdio), with two guarantees on top of the
//! protocol layer's own framing:
//!
//! - **Bounded memory.** One frame may be at most `max_line` bytes. A longer line is never
//!   buffered whole: the bytes past the bound are skipped unread as they arrive.
//! - **Every frame gets an answer.** A line that is not JSON (a syntax error, invalid UTF-8,
//!   nesting past the parser's limit, a truncated message) or is too long is answered with
//!   JSON-RPC `-32700` (parse error, `id: null`) saying what was wrong and where. Well-formed
//!   JSON that is not a valid message is answered by the protocol layer (`-32600`).
//!
//! A peer that echoes every error back as more garbage could start an error storm; after
//! [`MAX_UNANSWERED_STREAK`] bad frames in a row the server stops answering them (it says so
//! once on stderr) until a well-formed message arrives.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::RoleServer;
use rmcp::model::ErrorData;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How much a frame may exceed the dispatcher's `max_input_bytes`: the JSON-RPC request
/// around a tool's arguments.
pub(crate) const FRAME_OVERHEAD: usize = 64 * 1024;

/// How many bad frames in a row are answered before the server stops answering them.
pub(crate) const MAX_UNANSWERED_STREAK: usize = 1_000;

/// The transport of one stdio session: rmcp's newline-delimited JSON-RPC over a [`Frames`]
/// reader, answering the frames the reader rejected.
pub(crate) struct Answering<R: AsyncRead + Unpin, W: AsyncWrite> {
    inner: AsyncRwTransport<RoleServer, Frames<R>, W>,
    rejected: Arc<Rejected>,
}

impl<R, W> Answering<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub(crate) fn new(reader: R, writer: W, max_line: usize) -> Self {
        let rejected = Arc::new(Rejected::default());
        let frames = Frames::new(reader, max_line, Arc::clone(&rejected));
        Answering {
            // The reader already bounds lines; rmcp's own bound sits just above it.
            inner: AsyncRwTransport::new_server(frames, writer)
                .with_max_line_length(max_line.saturating_add(1)),
            rejected,
        }
    }
}

impl<R, W> Transport<RoleServer> for Answering<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(message) = self.rejected.take() {
                let answer = TxJsonRpcMessage::<RoleServer>::error(
                    ErrorData::parse_error(message, None),
                    None,
                );
                if self.inner.send(answer).await.is_err() {
                    return None;
                }
                continue;
            }
            // The reader stops at a rejected line (answering `Pending` with it waiting here)
            // and reads no further until it has been answered, so that answers keep the order
            // of the lines. rmcp's `receive` keeps a partly read line when it is dropped.
            let rejected = &self.rejected;
            let mut receive = std::pin::pin!(self.inner.receive());
            let received = std::future::poll_fn(|cx| match receive.as_mut().poll(cx) {
                Poll::Ready(message) => Poll::Ready(Some(message)),
                Poll::Pending if rejected.is_waiting() => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            })
            .await;
            if let Some(message) = received {
                return message;
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// The line the reader rejected, waiting for its answer: at most one at a time.
#[derive(Default)]
struct Rejected(Mutex<Option<String>>);

impl Rejected {
    fn put(&self, message: String) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
    }

    fn take(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn is_waiting(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

/// A reader that passes on only lines that are JSON, each whole, and reports the others.
pub(crate) struct Frames<R> {
    inner: R,
    max_line: usize,
    /// The line being read.
    line: Vec<u8>,
    /// Bytes of the current line seen so far, counting those skipped.
    seen: usize,
    /// Checked lines waiting to be read, and how far they have been read.
    ready: Vec<u8>,
    offset: usize,
    /// Frames rejected in a row.
    streak: usize,
    rejected: Arc<Rejected>,
    /// Bytes read from the peer; `chunk[start..end]` are not looked at yet.
    chunk: Box<[u8]>,
    start: usize,
    end: usize,
}

impl<R> Frames<R> {
    fn new(inner: R, max_line: usize, rejected: Arc<Rejected>) -> Self {
        Frames {
            inner,
            max_line: max_line.max(1),
            line: Vec::new(),
            seen: 0,
            ready: Vec::new(),
            offset: 0,
            streak: 0,
            rejected,
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
        }
    }

    /// Takes in bytes read from the peer, up to the end of the first rejected line; answers
    /// how many it took.
    fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut taken = 0;
        while taken < bytes.len() {
            let rest = &bytes[taken..];
            let end = newline(rest);
            let part = &rest[..end.unwrap_or(rest.len())];
            if self.seen < self.max_line {
                let room = self.max_line - self.line.len();
                self.line.extend_from_slice(&part[..part.len().min(room)]);
            }
            self.seen = self.seen.saturating_add(part.len());
            taken += part.len();
            if end.is_some() {
                taken += 1;
                if !self.end_line() {
                    break;
                }
            }
        }
        taken
    }

    /// A whole line was read: pass it on or reject it. Answers false when it was rejected.
    fn end_line(&mut self) -> bool {
        let seen = std::mem::take(&mut self.seen);
        let verdict = if seen > self.max_line {
            Err(format!(
                "the message is {seen} bytes long; this server reads at most {} bytes in one \
                 message",
                self.max_line
            ))
        } else {
            let text = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                // Blank lines separate nothing and ask nothing.
                Ok(false)
            } else {
                check_json(text).map(|()| true)
            }
        };
        let passed = match verdict {
            Ok(true) => {
                self.streak = 0;
                // Drop what was already read before adding, so the buffer stays small.
                if self.offset == self.ready.len() {
                    self.ready.clear();
                    self.offset = 0;
                }
                self.ready.extend_from_slice(&self.line);
                self.ready.push(b'\n');
                true
            }
            Ok(false) => true,
            Err(message) => self.reject(message),
        };
        self.line.clear();
        passed
    }

    /// Queues the answer to a rejected line; answers false when it will be answered.
    fn reject(&mut self, message: String) -> bool {
        self.streak += 1;
        if self.streak < MAX_UNANSWERED_STREAK {
            self.rejected.put(message);
            return false;
        }
        if self.streak == MAX_UNANSWERED_STREAK {
            eprintln!(
                "buril: {MAX_UNANSWERED_STREAK} malformed messages in a row; not answering more \
                 until a well-formed one arrives"
            );
        }
        true
    }

    /// Copies checked bytes into `buf`; answers whether any were.
    fn drain(&mut self, buf: &mut ReadBuf<'_>) -> bool {
        let waiting = &self.ready[self.offset..];
        if waiting.is_empty() || buf.remaining() == 0 {
            return false;
        }
        let n = waiting.len().min(buf.remaining());
        buf.put_slice(&waiting[..n]);
        self.offset += n;
        if self.offset == self.ready.len() {
            self.ready.clear();
            self.offset = 0;
        }
        true
    }
}

/// Whether `text` is one JSON value that the protocol layer's parser takes: UTF-8, well
/// formed, numbers in range, escapes valid, nested no deeper than the parser's limit. Every
/// failure here is one the protocol layer would drop without an answer.
fn check_json(text: &[u8]) -> Result<(), String> {
    let text =
        std::str::from_utf8(text).map_err(|error| format!("the message is not UTF-8: {error}"))?;
    serde_json::from_str::<Strict>(text)
        .map(drop)
        .map_err(|error| {
            format!("the message is not JSON: {error} (send one JSON-RPC message per line)")
        })
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

fn newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

impl<R: AsyncRead + Unpin> AsyncRead for Frames<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.drain(buf) {
                return Poll::Ready(Ok(()));
            }
            if this.rejected.is_waiting() {
                // `Answering::receive` sees this at once, answers the line and reads again.
                return Poll::Pending;
            }
            if this.start < this.end {
                let chunk = std::mem::take(&mut this.chunk);
                this.start += this.feed(&chunk[this.start..this.end]);
                this.chunk = chunk;
                continue;
            }
            let mut chunk = ReadBuf::new(&mut this.chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut chunk) {
                Poll::Ready(Ok(())) => {}
                other => return other,
            }
            let filled = chunk.filled().len();
            if filled == 0 {
                // The end of the input; an unfinished last line is not a message.
                return Poll::Ready(Ok(()));
            }
            this.start = 0;
            this.end = filled;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the chunks as the reader would, answering each rejection at once: what passed,
    /// and the answers, each after the lines that came before it.
    fn run(limit: usize, chunks: &[&[u8]]) -> (Vec<u8>, Vec<String>) {
        let rejected = Arc::new(Rejected::default());
        let mut frames = Frames::new((), limit, Arc::clone(&rejected));
        let mut errors = Vec::new();
        for chunk in chunks {
            let mut taken = 0;
            while taken < chunk.len() {
                taken += frames.feed(&chunk[taken..]);
                if let Some(error) = rejected.take() {
                    errors.push(error);
                }
            }
        }
        (frames.ready[frames.offset..].to_vec(), errors)
    }

    #[test]
    fn json_lines_pass_whole_across_reads() {
        let (passed, errors) = run(64, &[b"{\"a\"", b":1}\n[2", b"]\r\n\n  \n"]);
        assert_eq!(passed, b"{\"a\":1}\n[2]\r\n");
        assert!(errors.is_empty(), "{errors:?}");
    }

    #[test]
    fn a_long_line_is_rejected_with_its_length_and_the_next_one_passes() {
        let (passed, errors) = run(8, &[b"[1,2,3,4", b",5,6]\n[7]\n"]);
        assert_eq!(passed, b"[7]\n");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("13 bytes long"), "{}", errors[0]);
        assert!(errors[0].contains("at most 8 bytes"), "{}", errors[0]);
    }

    #[test]
    fn lines_that_are_not_json_are_rejected_with_the_reason() {
        let (passed, errors) = run(
            1 << 20,
            &[
                b"not json\n{\"a\": \"\xff\"}\n{\"jsonrpc\":\"2.0\",\"id\":1\n[1]\n[1e999]\n\
                 [\"\\ud800\"]\n[1] 2\n",
            ],
        );
        assert_eq!(passed, b"[1]\n");
        assert_eq!(errors.len(), 6, "{errors:?}");
        assert!(errors[3].contains("out of range"), "{errors:?}");
        assert!(errors[4].contains("hex escape"), "{errors:?}");
        assert!(errors[5].contains("trailing characters"), "{errors:?}");
        assert!(
            errors[0].contains("expected ident at line 1 column 2"),
            "{errors:?}"
        );
        assert!(errors[1].contains("not UTF-8"), "{errors:?}");
        assert!(errors[2].contains("EOF"), "{errors:?}");
    }

    #[test]
    fn an_error_storm_is_cut_off_and_a_good_line_resets_it() {
        let mut input = b"x\n".repeat(MAX_UNANSWERED_STREAK + 10);
        input.extend_from_slice(b"1\nx\n");
        let (passed, errors) = run(16, &[&input]);
        assert_eq!(passed, b"1\n");
        assert_eq!(errors.len(), MAX_UNANSWERED_STREAK - 1 + 1);
    }
}
