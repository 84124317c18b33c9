//! Shared by the codegen tests.

#![allow(dead_code)]

pub mod samples;
pub mod zoo;
