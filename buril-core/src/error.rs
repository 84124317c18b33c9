//! The error a tool returns, and the failure half of the result envelope.

use std::fmt;

use serde::Serialize;

use crate::validate::words::push_decimal;

/// Why a call failed: the `type` field of a failure envelope.
///
/// Tools themselves produce [`Validation`](ErrorKind::Validation) and
/// [`Runtime`](ErrorKind::Runtime) (and [`Cancelled`](ErrorKind::Cancelled) when they observe a
/// cancellation); the dispatcher produces the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input does not match the tool's schema, or the tool rejected it. The caller can retry
    /// with corrected input.
    Validation,
    /// The tool ran and failed.
    Runtime,
    /// The tool panicked. The process keeps serving.
    Panic,
    /// No tool has that name.
    NotFound,
    /// The tool exists but the host's policy does not allow it (for example a `dangerous` tool
    /// that was not enabled).
    Disabled,
    /// The call did not finish within its timeout.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// A rate or concurrency limit refused the call (the message says when to try again);
    /// nothing ran.
    Limited,
    /// The tool comes from a provider that cannot answer now (an external MCP server that
    /// exited or dropped its connection, while it is reconnected); nothing ran. The message
    /// says why.
    Unavailable,
    /// The tool ran elsewhere (an external MCP server) and reported a failure of its own
    /// (MCP's `isError`); the message is its text.
    Tool,
}

impl ErrorKind {
    /// Every kind, in the order of the envelope documentation. Code generators list these so
    /// that a new kind cannot slip past the other languages' types.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::Validation,
        ErrorKind::Runtime,
        ErrorKind::Panic,
        ErrorKind::NotFound,
        ErrorKind::Disabled,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::Limited,
        ErrorKind::Unavailable,
        ErrorKind::Tool,
    ];

    /// The kind whose wire name is `name` (`"validation"`), if any: how an envelope read from
    /// elsewhere (another buril, the editor's host) keeps its kind.
    pub fn from_wire(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.as_str() == name)
    }

    /// The wire name, as it appears in the envelope's `type` field.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Validation => "validation",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Panic => "panic",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Disabled => "disabled",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Limited => "limited",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Tool => "tool",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with a call's input, located by a JSON pointer into the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Problem {
    /// JSON pointer into the input (`""` is the input object itself, `/path` a property).
    pub path: String,
    /// What is wrong, in words a model can act on.
    pub message: String,
}

impl Problem {
    /// A problem at `path` (a JSON pointer).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl Problem {
    /// The length of its `Display` text.
    fn display_len(&self) -> usize {
        match self.path.is_empty() {
            true => "input: ".len() + self.message.len(),
            false => self.path.len() + 2 + self.message.len(),
        }
    }

    /// Appends its `Display` text to `out`, without the formatting machinery.
    fn push_display(&self, out: &mut String) {
        if self.path.is_empty() {
            out.push_str("input: ");
        } else {
            out.push_str(&self.path);
            out.push_str(": ");
        }
        out.push_str(&self.message);
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "input: {}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// The error a tool returns, and every failure the dispatcher reports.
///
/// Any `std::error::Error` converts into a runtime `ToolError` (its message followed by its
/// sources), so `?` works on I/O and parse errors inside a tool. Like `anyhow::Error`,
/// `ToolError` itself does not implement `std::error::Error`, which is what makes that blanket
/// conversion possible.
///
/// The same blanket conversion is why there is no `ToolError::from(String)` (nor from `&str`,
/// `Box<dyn Error>` or `anyhow::Error`): the standard library may one day implement `Error` for
/// those types, and the two `From` impls would then overlap. Make one with
/// [`ToolError::runtime`] (a message) or [`ToolError::from_display`] (anything `Display`).
/// A tool does not need either to return such errors: `#[buril::tool]` accepts
/// `Result<T, String>`, `Result<T, &'static str>`, `Result<T, Box<dyn Error + Send + Sync>>`,
/// `anyhow::Result<T>`, `eyre::Result<T>` and any other `Display` error, and converts them
/// into runtime errors with their message verbatim (anyhow's and eyre's context chain
/// included, as `{:#}` prints it).
///
/// ```
/// use buril::ToolError;
///
/// fn parse_port(text: &str) -> Result<u16, ToolError> {
///     if text.is_empty() {
///         return Err(ToolError::invalid("`port` must not be empty"));
///     }
///     Ok(text.parse::<u16>()?)
/// }
///
/// assert_eq!(parse_port("").unwrap_err().kind(), buril::ErrorKind::Validation);
/// assert_eq!(parse_port("x").unwrap_err().kind(), buril::ErrorKind::Runtime);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    kind: ErrorKind,
    message: String,
    problems: Vec<Problem>,
    suggestions: Vec<String>,
}

impl ToolError {
    /// An error of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            problems: Vec::new(),
            suggestions: Vec::new(),
        }
    }

    /// A runtime failure: the tool ran and could not do its job.
    ///
    /// This is the way to make a `ToolError` from a `String` (`ToolError::from(String)` cannot
    /// exist beside the conversion from every `std::error::Error`).
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Runtime, message)
    }

    /// A runtime failure whose message is `format!("{error:#}")`: for `anyhow::Error` and
    /// `eyre::Report` that is the whole context chain (`outer: inner`), for a `String` or
    /// `&str` the text itself. This is what a tool returning `Result<T, E>` with such an `E`
    /// answers.
    ///
    /// ```
    /// let error = buril::ToolError::from_display("the scene is locked");
    /// assert_eq!(error.message(), "the scene is locked");
    /// assert_eq!(error.kind(), buril::ErrorKind::Runtime);
    /// ```
    pub fn from_display(error: impl fmt::Display) -> Self {
        Self::runtime(format!("{error:#}"))
    }

    /// A validation failure: the input is well-formed but not acceptable (a path that does not
    /// exist, a value out of range). The caller can retry with different input.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Validation, message)
    }

    /// The tool noticed its call was cancelled and stopped.
    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "the call was cancelled")
    }

    /// A validation failure listing every problem found in the input.
    pub fn from_problems(problems: Vec<Problem>) -> Self {
        // Written into one string made to size: `invalid input: {one}`, or
        // `invalid input ({n} problems): {first}; {second}…`.
        let message = match problems.as_slice() {
            [] => "the input is not valid".to_owned(),
            [one] => {
                let mut text = String::with_capacity(15 + one.display_len());
                text.push_str("invalid input: ");
                one.push_display(&mut text);
                text
            }
            many => {
                let listed: usize = many.iter().map(|p| p.display_len() + 2).sum();
                let mut text = String::with_capacity(40 + listed);
                text.push_str("invalid input (");
                push_decimal(&mut text, many.len() as u64);
                text.push_str(" problems): ");
                for (i, p) in many.iter().enumerate() {
                    if i > 0 {
                        text.push_str("; ");
                    }
                    p.push_display(&mut text);
                }
                text
            }
        };
        ToolError {
            kind: ErrorKind::Validation,
            message,
            problems,
            suggestions: Vec::new(),
        }
    }

    /// Its kind, message, problems and suggestions, moved out (for the envelope).
    pub(crate) fn into_parts(self) -> (ErrorKind, String, Vec<Problem>, Vec<String>) {
        (self.kind, self.message, self.problems, self.suggestions)
    }

    /// Attaches the problems with the input (a JSON pointer and a message each), keeping the
    /// kind and message: an envelope read from elsewhere, as it was.
    pub fn with_problems(mut self, problems: Vec<Problem>) -> Self {
        self.problems = problems;
        self
    }

    /// Attaches names the caller may have meant (used for unknown tools).
    pub fn with_suggestions(mut self, suggestions: Vec<String>) -> Self {
        self.suggestions = suggestions;
        self
    }

    /// Why the call failed.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message shown to the caller.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Every problem found in the input (validation failures only).
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Names the caller may have meant (unknown tools only).
    pub fn suggestions(&self) -> &[String] {
        &self.suggestions
    }

    /// Cuts the message to at most `max` characters (see [`cut_message`]).
    pub(crate) fn cut_message(mut self, max: usize) -> Self {
        cut_message(&mut self.message, max);
        self
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::runtime(chain_message(&error))
    }
}

/// An error's message followed by each of its sources, joined with `": "`.
pub(crate) fn chain_message(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// Cuts `message` to its first `max` characters (on a character boundary), saying how many
/// characters were cut; a message no longer than `max` is left as it is.
pub(crate) fn cut_message(message: &mut String, max: usize) {
    let Some((end, _)) = message.char_indices().nth(max) else {
        return;
    };
    let cut = message[end..].chars().count();
    message.truncate(end);
    let unit = if cut == 1 { "character" } else { "characters" };
    message.push_str(&format!("… [{cut} more {unit} cut]"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_validation_message_lists_each_problem_as_it_displays() {
        let problem = |path: &str, message: &str| Problem::new(path, message);
        let lists = [
            vec![],
            vec![problem("/a", "missing required property")],
            vec![problem("", "expected an object, got null")],
            vec![
                problem("/a~1b", "expected a string, got the number 3"),
                problem("", "2 more problems not listed; fix the ones above first"),
                problem("/é", ""),
            ],
            (0..12).map(|i| problem(&format!("/p{i}"), "bad")).collect(),
            (0..100)
                .map(|i| problem(&format!("/p{i}"), "bad"))
                .collect(),
        ];
        for problems in lists {
            let expected = match problems.as_slice() {
                [] => "the input is not valid".to_owned(),
                [one] => format!("invalid input: {one}"),
                many => format!(
                    "invalid input ({} problems): {}",
                    many.len(),
                    many.iter()
                        .map(Problem::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            };
            let error = ToolError::from_problems(problems.clone());
            assert_eq!(error.message(), expected);
            assert_eq!(error.problems(), problems);
        }
    }
}
