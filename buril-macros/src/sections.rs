//! The link sections a tool's descriptor goes in: those of `buril::TOOLS`, the distributed
//! slice linkme declares.
//!
//! linkme puts an element in its slice's section through a `macro_rules!` that its declaration
//! defines (`TOOLS!`), two expansions deep, which is what its element attribute expands to.
//! Per tool, on every build, that cost about a tenth of a `cargo check` of a crate of 300
//! tools after one edit, and the static it wraps was type-checked again whenever a byte before
//! it moved (measured with `bash scripts/bench.sh edit`). So the attribute writes what that
//! macro writes, the static with one `link_section` per platform, itself.
//!
//! The section names are linkme's (`linkme-impl`'s `linker.rs`), worked out here for the
//! slice's name as linkme works them out. That they agree is checked when `buril` is compiled,
//! with the linkme and the toolchain of the build: `buril` asks linkme's own macro for its
//! names and compares them with [`names`] (`__linkme_sections!`, `buril-core/src/registry.rs`);
//! a linkme that names its sections otherwise fails that build, and no tool can go missing
//! from the registry unseen.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote_spanned;

/// The slice's name, as `buril-core/src/registry.rs` declares it.
const SLICE: &str = "TOOLS";

/// The section names, in the order of linkme's macro: Linux and its kin, Mach-O, Windows,
/// illumos, the BSDs. Worked out once per compilation (the macro's library stays loaded for
/// every tool of a crate).
pub fn names() -> &'static [String; 5] {
    static NAMES: OnceLock<[String; 5]> = OnceLock::new();
    NAMES.get_or_init(|| {
        [
            format!("linkme_{SLICE}"),
            format!("__DATA,__linkme{},regular,no_dead_strip", macho_hash(SLICE)),
            format!(".linkme_{SLICE}$b"),
            format!("set_linkme_{SLICE}"),
            format!("linkme_{SLICE}"),
        ]
    })
}

/// linkme's 8-character hash of the slice's name for Mach-O, whose section names are short:
/// the standard library's default hasher over the name as a `String` (as `proc_macro2`
/// hashes an identifier), written in base 62.
fn macho_hash(name: &str) -> String {
    let mut hasher = DefaultHasher::new();
    name.to_string().hash(&mut hasher);
    let mut remainder = hasher.finish();
    let mut out = String::with_capacity(8);
    for _ in 0..8 {
        let digit = (remainder % 62) as u8;
        remainder /= 62;
        out.push(match digit {
            0..=25 => (b'a' + digit) as char,
            26..=51 => (b'A' + digit - 26) as char,
            _ => (b'0' + digit - 52) as char,
        });
    }
    out
}

/// The attributes that put a static in the slice, spanned by `anchor`: `#[used]` and a
/// `link_section` for each platform linkme serves, with the names its macro writes. Its
/// conditions are shorter than linkme's, which name every `target_os` (each attribute and
/// token is the macro's and rustc's work for every tool on every build: five of linkme's cost
/// a check of 300 tools about 10%, these four half that): Apple's systems by vendor, Windows
/// by family, illumos, and every other system with the name linkme gives Linux and the BSDs
/// alike. On a system linkme does not serve, its declaration of the slice fails to compile
/// first.
pub fn attributes(anchor: Span) -> TokenStream {
    let [elf, macho, windows, illumos, _bsd] = names().each_ref().map(|name| {
        let mut literal = Literal::string(name);
        literal.set_span(anchor);
        literal
    });
    quote_spanned! {anchor=>
        #[used]
        #[cfg_attr(not(any(target_vendor = "apple", windows, target_os = "illumos")), unsafe(link_section = #elf))]
        #[cfg_attr(target_vendor = "apple", unsafe(link_section = #macho))]
        #[cfg_attr(windows, unsafe(link_section = #windows))]
        #[cfg_attr(target_os = "illumos", unsafe(link_section = #illumos))]
    }
}

/// `[linux, macho, windows, illumos, bsd]`: the names as string literals, for `buril`'s check.
pub fn literals() -> TokenStream {
    let names = names().iter().map(|name| Literal::string(name));
    quote::quote!([#(#names),*])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_and_the_bsds_share_a_name() {
        // `attributes` gives them one condition; `buril` checks both against linkme's.
        let names = names();
        assert_eq!(names[0], names[4]);
        assert_eq!(names[0], "linkme_TOOLS");
    }

    #[test]
    fn the_hash_is_linkmes() {
        // linkme-impl's own test of its hash (`hash.rs`): "EXAMPLE" hashes to "0GPSzIoo".
        assert_eq!(macho_hash("EXAMPLE"), "0GPSzIoo");
    }
}
