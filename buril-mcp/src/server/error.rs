//! Why a server could not start or stopped.

use std::fmt;
use std::io;

/// Why a server could not start or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// An option, a rule or the config file is wrong.
    Config(String),
    /// Reading, writing or binding failed.
    Io(io::Error),
    /// The MCP session could not be set up.
    Protocol(String),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Config(message) | ServerError::Protocol(message) => f.write_str(message),
            ServerError::Io(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Io(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for ServerError {
    fn from(error: io::Error) -> Self {
        ServerError::Io(error)
    }
}
