//! Why a task could not be read or changed.

use std::fmt;

use super::store::StoreError;

/// Why a task could not be read or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskError {
    /// No task has this handle (or none the caller may see: a task is visible only to whoever
    /// started it, and a forged handle finds nothing).
    Unknown(String),
    /// The task existed, and was forgotten when its TTL passed.
    Expired(String),
    /// The store failed.
    Store(StoreError),
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::Unknown(id) => write!(
                f,
                "no task has the handle `{id}`: a handle is valid only for whoever started the \
                 task, and until its TTL passes"
            ),
            TaskError::Expired(id) => write!(
                f,
                "the task `{id}` has expired: its result was kept for its TTL and is gone"
            ),
            TaskError::Store(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for TaskError {}

impl From<StoreError> for TaskError {
    fn from(error: StoreError) -> Self {
        TaskError::Store(error)
    }
}
