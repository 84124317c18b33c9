//! Authorization of `serve --http` (the MCP authorization spec, 2026-07-28 revision): the
//! server as an OAuth 2.1 resource server. It serves its protected resource metadata
//! (RFC 9728), answers a request without a good token `401` with a `WWW-Authenticate`
//! challenge naming that metadata and the scopes needed, checks JWT access tokens (`jwt.rs`,
//! feature `oauth`) or static bearer tokens (`options.rs`), answers `403 insufficient_scope`
//! when a token lacks what a call needs, and hands the token's [`Principal`] to the call. Which
//! tool needs which scope is a [`RequireScopes`] layer on the dispatcher, so that a tool the
//! caller may not use is neither listed nor callable for it.
//!
//! `gate.rs` is the HTTP side: what a request must carry before the MCP service sees it.

mod authorization;
mod file;
mod gate;
#[cfg(feature = "oauth")]
mod jwt;
mod options;

pub(crate) use self::authorization::{Authorization, principal_key, principal_of};
pub(crate) use self::file::AuthFile;
pub(crate) use self::gate::{BoxBody, gate, metadata_response};
pub use self::options::{AuthOptions, JwksSource, StaticToken};
