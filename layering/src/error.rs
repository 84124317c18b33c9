//! [`Error`]: why a crate could not be checked.

use std::fmt;

/// Why a crate could not be checked: a file that cannot be read or parsed, a `mod` whose file
/// is missing, a workspace manifest that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
