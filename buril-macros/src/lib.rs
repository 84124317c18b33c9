//! The `#[tool]` attribute of buril. Depend on `buril`, which re-exports it as
//! `#[buril::tool]` and documents it.
//!
//! The macro is a small compiler: `attr` parses the attribute's keys, `ast` models the
//! function, `check` applies the rules (the naming lint among them, from `buril-names`) and
//! collects every violation in a `ctxt::Diagnostics`, and `expand` writes the registration
//! (`editor` the parts of a tool done in the Unity editor). On
//! any error the function is re-emitted untouched beside the errors, so that the rest of the
//! crate still compiles and only the real problems are shown.

mod ast;
mod attr;
mod check;
mod diagnostics;
mod expand;
mod sections;
mod symbol;

use proc_macro::TokenStream;

/// Turns a function into a registered LLM tool. See the `buril` crate for the keys.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}

/// The link section names `#[tool]` puts descriptors in, as `[linux, macho, windows, illumos,
/// bsd]`: `buril` compares them with linkme's when it is compiled. Not for users.
#[doc(hidden)]
#[proc_macro]
pub fn __linkme_sections(_: TokenStream) -> TokenStream {
    sections::literals().into()
}
