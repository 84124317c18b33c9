//! The writer's errors.

use crate::writer::WriterError;

/// The language's name in errors.
pub(crate) const LANGUAGE: &str = "C#";

/// A writer error for C#.
pub(crate) fn error(message: impl Into<String>) -> WriterError {
    WriterError {
        language: LANGUAGE,
        message: message.into(),
    }
}
