// The guide to buril, as an mdBook (`docs/src`, built with `mdbook build docs`) and as this
// crate's documentation, so that `cargo test -p buril-guide` compiles and runs every Rust
// example of every chapter.
#![doc = include_str!("src/introduction.md")]

#[doc = include_str!("src/writing-tools.md")]
pub mod writing_tools {}

#[doc = include_str!("src/testing-tools.md")]
pub mod testing_tools {}

#[doc = include_str!("src/envelope.md")]
pub mod envelope {}

#[doc = include_str!("src/threads.md")]
pub mod threads {}

#[doc = include_str!("src/serving.md")]
pub mod serving {}

#[doc = include_str!("src/hub.md")]
pub mod hub {}

#[doc = include_str!("src/tasks.md")]
pub mod tasks {}

#[doc = include_str!("src/bindings.md")]
pub mod bindings {}

#[doc = include_str!("src/unity.md")]
pub mod unity {}

#[doc = include_str!("src/editor-tools.md")]
pub mod editor_tools {}

#[doc = include_str!("src/agent-teams.md")]
pub mod agent_teams {}

#[doc = include_str!("src/studio.md")]
pub mod studio {}

#[doc = include_str!("src/cli.md")]
pub mod cli {}
