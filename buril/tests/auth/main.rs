//! Authorization of `serve --http` (feature `oauth`), in one binary whose tools are exactly
//! `auth_tools.rs`'s: JWT access tokens, the JOSE rules, the HTTP answers and challenges, and
//! scopes. The RSA keys are `tests/fixtures/`'s.

mod auth_tools;
#[path = "../common/mod.rs"]
mod common;
mod jwks;

mod auth_http;
mod auth_jose;
mod auth_scopes;
mod auth_tokens;
