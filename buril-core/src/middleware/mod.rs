//! Layers: code that runs before and after every call of a dispatcher, whatever its front end.
//!
//! A [`Layer`] sees each call once it passed the policy and the caller's tool view, before its
//! input is measured and validated: the tool's descriptor (name, family, annotations, flags),
//! the input, the caller's [`Principal`](crate::Principal) and the host state. It may refuse the call (its error
//! is the call's outcome; nothing runs), rewrite the input (the rewritten input is what is
//! validated and run), or hold something for as long as the tool runs (a concurrency permit).
//! After the call it sees the outcome, and may rewrite it. Layers run in the order they were
//! added before the call and in reverse after it, as an onion: a layer that refuses is the last
//! to see the call before, and the layers before it see the refusal after.
//!
//! Why a trait of its own rather than `tower::Layer`/`Service`: a dispatcher's calls are
//! synchronous as often as not (`Dispatcher::invoke` on the caller's thread, the host's main
//! thread), and a `Service` is a future per call; driving one on the blocking path would cost
//! every call an executor, where two method calls cost nothing. A dispatcher without layers
//! reads one flag per call.
//!
//! The built-in layers: [`AuditLog`] (one structured line per call), [`RateLimit`] (per
//! principal and per tool), [`ConcurrencyLimit`] (per tool) and [`RequireScopes`] (the scopes
//! a principal needs for each tool, which also hides the tools it may not use from listings).
//!
//! ```
//! use buril::middleware::{Call, Layer};
//!
//! /// Refuses every call on Sundays (a layer that may refuse).
//! struct NotOnSundays;
//!
//! impl Layer for NotOnSundays {
//!     fn before(&self, call: &mut Call<'_>) -> Result<(), buril::ToolError> {
//!         let sunday = false;
//!         if sunday {
//!             return Err(buril::ToolError::runtime(format!("`{}` rests on Sundays", call.tool().name())));
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let dispatcher = buril::Dispatcher::builder().layer(NotOnSundays).build();
//! # let _ = dispatcher;
//! ```

mod audit;
mod chain;
mod layer;
mod limits;
mod scopes;

pub use self::audit::{AuditLog, AuditRecord};
pub(crate) use self::chain::{After, Entered, Layers};
pub use self::layer::{Call, CallEnd, Layer};
pub use self::limits::{ConcurrencyLimit, RateLimit};
pub use self::scopes::{RequireScopes, ScopeRules};
