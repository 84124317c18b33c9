//! Why the tools cannot be turned into bindings.

use std::fmt;

/// Why the tools cannot be turned into bindings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NormalizeError {
    /// A schema uses a construct no writer can express.
    Unsupported {
        /// The tool whose schema it is.
        tool: String,
        /// A JSON pointer into that schema.
        pointer: String,
        /// What is not supported.
        reason: String,
    },
    /// Two different types would get the same name.
    Collision {
        /// The generated type name.
        name: String,
        /// Where the first came from.
        first: String,
        /// Where the second came from.
        second: String,
    },
}

impl fmt::Display for NormalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormalizeError::Unsupported {
                tool,
                pointer,
                reason,
            } => write!(
                f,
                "the schema of `{tool}` cannot be generated at `{pointer}`: {reason}"
            ),
            NormalizeError::Collision {
                name,
                first,
                second,
            } => write!(
                f,
                "two different types would both be named `{name}` ({first}; {second}): rename \
                 one of the Rust types (or `#[schemars(rename = \"...\")]`), nothing is renamed \
                 or overwritten silently"
            ),
        }
    }
}

impl std::error::Error for NormalizeError {}
