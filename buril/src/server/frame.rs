//! A bound on the length of one newline-delimited JSON-RPC frame read over stdio, so that a
//! client cannot make the server buffer an endless line.
//!
//! A frame longer than the bound is cut: the bytes read so far end with a newline (the client
//! gets the JSON-RPC error for a malformed frame) and the rest of the line is skipped unread by
//! the protocol layer. Memory stays within the bound whatever the client sends.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// How much a frame may exceed the dispatcher's `max_input_bytes`: the JSON-RPC request
/// around a tool's arguments.
pub(crate) const FRAME_OVERHEAD: usize = 64 * 1024;

pub(crate) struct FrameLimit<R> {
    inner: R,
    max_line: usize,
    line: usize,
    skipping: bool,
}

impl<R> FrameLimit<R> {
    pub(crate) fn new(inner: R, max_line: usize) -> Self {
        FrameLimit {
            inner,
            max_line: max_line.max(1),
            line: 0,
            skipping: false,
        }
    }

    /// Applies the bound to `bytes` in place; returns how many bytes remain.
    fn filter(&mut self, bytes: &mut [u8]) -> usize {
        let mut kept = 0;
        for index in 0..bytes.len() {
            let byte = bytes[index];
            if self.skipping {
                if byte == b'\n' {
                    self.skipping = false;
                    self.line = 0;
                }
                continue;
            }
            if byte == b'\n' {
                self.line = 0;
                bytes[kept] = byte;
                kept += 1;
                continue;
            }
            self.line += 1;
            if self.line > self.max_line {
                // End the frame here; skip the rest of the line.
                bytes[kept] = b'\n';
                kept += 1;
                self.skipping = true;
                continue;
            }
            bytes[kept] = byte;
            kept += 1;
        }
        kept
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for FrameLimit<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        // Bounded: each round either returns or consumed a non-empty read that was all skipped.
        loop {
            let before = buf.filled().len();
            match Pin::new(&mut self.inner).poll_read(cx, buf) {
                Poll::Ready(Ok(())) => {}
                other => return other,
            }
            let after = buf.filled().len();
            if after == before {
                // The end of the input.
                return Poll::Ready(Ok(()));
            }
            let kept = {
                let this = &mut *self;
                let fresh = &mut buf.filled_mut()[before..after];
                this.filter(fresh)
            };
            buf.set_filled(before + kept);
            if kept > 0 {
                return Poll::Ready(Ok(()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(limit: usize, chunks: &[&[u8]]) -> Vec<u8> {
        let mut frame = FrameLimit::new((), limit);
        let mut out = Vec::new();
        for chunk in chunks {
            let mut bytes = chunk.to_vec();
            let kept = frame.filter(&mut bytes);
            out.extend_from_slice(&bytes[..kept]);
        }
        out
    }

    #[test]
    fn short_lines_pass_unchanged() {
        assert_eq!(run(5, &[b"abc\nde", b"f\n"]), b"abc\ndef\n");
    }

    #[test]
    fn a_long_line_is_cut_and_the_rest_skipped_across_reads() {
        assert_eq!(
            run(3, &[b"ok\nabcdef", b"ghij", b"kl\nnext\nyes\n"]),
            b"ok\nabc\nnex\nyes\n"
        );
    }
}
