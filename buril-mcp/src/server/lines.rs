//! The stdio transport's line reader (`frame.rs`): newline-delimited frames of at most
//! `max_line` bytes from a byte stream, where the bytes of a longer line are skipped as they
//! arrive, never buffered whole.

use tokio::io::{AsyncRead, AsyncReadExt};

/// One read from [`Lines`].
pub(super) enum Line {
    Whole(Vec<u8>),
    TooLong { length: usize, max: usize },
    End,
}

/// Lines of at most `max_line` bytes from a byte stream. A longer line is skipped as it
/// arrives, never buffered.
pub(super) struct Lines<R> {
    inner: R,
    max_line: usize,
    /// The line being read, and its length so far counting skipped bytes.
    line: Vec<u8>,
    seen: usize,
    /// Bytes read from the peer; `chunk[start..end]` are not looked at yet.
    chunk: Box<[u8]>,
    start: usize,
    end: usize,
    /// A used line buffer, reused for the next line.
    spare: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(super) fn new(inner: R, max_line: usize) -> Self {
        Lines {
            inner,
            max_line: max_line.max(1),
            line: Vec::new(),
            seen: 0,
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
            start: 0,
            end: 0,
            spare: Vec::new(),
        }
    }

    /// The next line. Cancel-safe: a read that is dropped has taken nothing.
    pub(super) async fn next(&mut self) -> Line {
        loop {
            if let Some(line) = self.scan() {
                return line;
            }
            match self.inner.read(&mut self.chunk).await {
                // The end of the input (or a failed read); an unfinished last line is not a
                // message.
                Ok(0) | Err(_) => return Line::End,
                Ok(n) => {
                    self.start = 0;
                    self.end = n;
                }
            }
        }
    }

    /// Takes in the bytes read but not yet looked at, up to the end of the first line.
    fn scan(&mut self) -> Option<Line> {
        let bytes = &self.chunk[self.start..self.end];
        let newline = bytes.iter().position(|&b| b == b'\n');
        let part = &bytes[..newline.unwrap_or(bytes.len())];
        if self.seen < self.max_line {
            let room = self.max_line - self.line.len();
            self.line.extend_from_slice(&part[..part.len().min(room)]);
        }
        self.seen = self.seen.saturating_add(part.len());
        self.start += part.len();
        newline?;
        self.start += 1;
        let length = std::mem::take(&mut self.seen);
        if length > self.max_line {
            self.line.clear();
            return Some(Line::TooLong {
                length,
                max: self.max_line,
            });
        }
        let next = std::mem::take(&mut self.spare);
        Some(Line::Whole(std::mem::replace(&mut self.line, next)))
    }

    /// Gives back a line's buffer for the next line.
    pub(super) fn recycle(&mut self, mut line: Vec<u8>) {
        if line.capacity() <= 64 * 1024 {
            line.clear();
            self.spare = line;
        }
    }
}
