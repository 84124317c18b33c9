//! Example tools.
