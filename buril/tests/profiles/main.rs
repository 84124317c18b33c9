//! The provider profiles (MCP, OpenAI, Anthropic, Gemini), their limits, and the CLI's `schema`
//! command (feature `cli`), in one binary whose tools are exactly `profile_tools.rs`'s: each
//! file lists them.

mod profile_tools;

mod profile_anthropic;
#[cfg(feature = "cli")]
mod profile_cli;
mod profile_gemini;
mod profile_limits;
mod profile_mcp;
mod profile_openai;
