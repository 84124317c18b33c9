//! Writes the registration beside the user's function.
//!
//! The expansion is deliberately small, because compile time matters with hundreds of tools
//! and rustc parses, resolves, lowers, lints and encodes every item of it again on every
//! edit, whatever the incremental cache keeps: no derive, no generated struct, one item that
//! matters per tool. A tool's registration is one `static` (its `ToolDescriptor`) whose
//! initializer holds the tool's call and input schema as closures, inside a `const` block with
//! the constant of its location and its name's linker claim. The properties are taken out of
//! the input and described in the schema by one call each, at the type of all of them
//! (`(<String as Parameter>::REQUIRED, <u32 as Parameter>::OPTIONAL)`, the runtime's
//! `properties.rs`); each marker is spanned by the parameter's type, so a type that cannot be
//! a parameter is reported once, on the user's type.
//!
//! Every token the attribute writes is spanned by the function's name (`anchor` below), not by
//! the attribute's call site. A span of the call site carries the expansion's hygiene context,
//! and rustc's incremental cache can only reuse what it type-checked for such code while no
//! byte before it moves: one character added to any tool's body re-checked and re-generated
//! every tool after it in the file. Spanned by the user's own tokens, the registration of an
//! unchanged tool stays cached (`bash scripts/bench.sh edit`; BENCHMARKS.md, "The edit loop").
//! The names it binds are `__buril_`-prefixed, since they no longer get the mixed-site hygiene
//! that hid them.
//!
//! Two more choices keep an edit cheap:
//!
//! - **Closures, not functions.** The call and the input schema were methods of a unit struct
//!   in a module of its own per tool (so that rustc, which puts a method in the codegen unit of
//!   its self type's module, regenerated only the edited tool's code): four items more per
//!   tool (module, struct, `impl`, two functions), each of them redone on every edit. As
//!   closures of the static's initializer they are part of one item; measured, a `cargo build`
//!   after an edit did not regenerate more for it (`bash scripts/bench.sh edit`).
//! - **The slice's element written as linkme's macros would write it.** linkme's
//!   `#[distributed_slice(TOOLS)]` attribute on an element is a procedural macro that parses the
//!   static and adds a function type-checking the element against the slice, then calls the
//!   `TOOLS!` macro the declaration defines, which puts the item in the slice's link section
//!   for every platform (two `macro_rules!` expansions). The attribute writes the result, the
//!   static with its `link_section` attributes, itself (`sections.rs`, which also says how the
//!   names are kept linkme's): the element's type is buril's own `ToolDescriptor`, so the
//!   type-check function (two closures per tool, re-checked on every edit) proved nothing, and
//!   the expansions cost every build a tenth of its time.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

use crate::ast::{LazyFn, ParamKind, Return, ToolFn};
use crate::attr::Attrs;
use crate::check::{self, Resolved};
use crate::diagnostics::Diagnostics;

mod editor;
mod meta;

pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: LazyFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "`#[buril::tool]` goes on a free function: `fn family_verb(...) -> T { ... }`",
            );
            let error = error.into_compile_error();
            return quote!(#error #item);
        }
    };
    let diag = Diagnostics::new();
    let attrs = Attrs::parse(&diag, args);
    let function = ToolFn::from_item(&diag, item);
    let resolved = check::check(&diag, &attrs, &function);
    // A declaration (no body) is not Rust to compile: an editor tool's registration is all
    // there is of it, and a bodyless function that is not one already has its error.
    let stripped = match &function.item.body {
        Some(_) => function.item.to_token_stream(),
        None => TokenStream::new(),
    };
    match diag.check() {
        Ok(()) => {
            let anchor = function.ident.span();
            let registration = registration(&attrs, &function, &resolved, anchor);
            // Each parameter is a property of the input, so long parameter lists are normal.
            // Spanned by the call site, as the attribute's own: a lint that compares attributes
            // (clippy's `duplicated_attributes`) then leaves it to the user's.
            quote! {
                #[allow(clippy::too_many_arguments)]
                #stripped
                #registration
            }
        }
        Err(errors) => {
            // Fallback: the function itself still compiles, so only the real errors show.
            let errors = errors.into_compile_error();
            quote!(#errors #stripped)
        }
    }
}

/// A string literal spanned by `anchor`. `quote` gives an interpolated `String` the call
/// site's span, which would put the expansion's hygiene context back (see the module's docs);
/// a literal resolves nothing, so its span only says where an error about it would point.
pub(crate) fn text(value: &str, anchor: Span) -> Literal {
    let mut literal = Literal::string(value);
    literal.set_span(anchor);
    literal
}

/// `true` or `false` spanned by `anchor` (see [`text`]).
pub(crate) fn flag(value: bool, anchor: Span) -> Ident {
    Ident::new(if value { "true" } else { "false" }, anchor)
}

/// The pieces generated per parameter.
#[derive(Default)]
struct Params {
    /// Each property's marker (`<T as Parameter>::REQUIRED` or `::OPTIONAL`, spanned by the
    /// user's type), in order; its wire name, description and the local its value is bound
    /// to at the same index of the next three.
    markers: Vec<TokenStream>,
    wires: Vec<Literal>,
    docs: Vec<Literal>,
    locals: Vec<TokenStream>,
    /// Statements taking the whole input (`Input<T>`) out of the call's input.
    takes: Vec<TokenStream>,
    /// The function's arguments, in order.
    call_args: Vec<TokenStream>,
    /// The schema function of a tool taking `Input<T>`.
    whole_schema: Option<TokenStream>,
}

/// How many properties one tuple of the properties' type holds (the runtime implements
/// `Properties` for tuples of up to twelve): longer lists are tuples of such tuples.
const CHUNK: usize = 12;

/// `(a, b, c,)`, or `((a, ..., l,), (m, ...,),)` for more than [`CHUNK`] items (and so on,
/// for any length): the properties' markers, and the pattern binding their values, have the
/// same shape.
fn nested(items: Vec<TokenStream>, anchor: Span) -> TokenStream {
    let tuple = |items: &[TokenStream]| quote_spanned!(anchor=> (#(#items,)*));
    if items.len() <= CHUNK {
        tuple(&items)
    } else {
        nested(items.chunks(CHUNK).map(tuple).collect(), anchor)
    }
}

fn registration(
    attrs: &Attrs,
    function: &ToolFn,
    resolved: &Resolved,
    anchor: Span,
) -> TokenStream {
    let krate = attrs
        .krate
        .as_ref()
        .map(|path| quote_spanned!(anchor=> #path))
        .unwrap_or_else(|| quote_spanned!(anchor=> ::buril));
    // Imported once per tool (`use ... as __buril` in the registration's block): each path to
    // the runtime is then one token where it was six, and tokens are what the macro's time
    // goes to.
    let private = quote_spanned!(anchor=> __buril);
    let ctx = Ident::new("__buril_ctx", anchor);
    let args = Ident::new("__buril_args", anchor);
    let params = params(function, &krate, &private, &ctx, &args, anchor);

    let fn_ident = &function.ident;
    let Params {
        markers,
        wires,
        docs,
        locals,
        mut takes,
        call_args,
        whole_schema,
    } = params;
    let headers = attrs.headers.iter().map(|(param, header)| {
        let wire = function
            .params
            .iter()
            .find_map(|p| match &p.kind {
                ParamKind::Property(property) if p.ident == param.value.as_str() => {
                    Some(property.wire.clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| param.value.clone());
        let (wire, header) = (text(&wire, anchor), text(&header.value, anchor));
        quote_spanned!(anchor=> .header(#wire, #header))
    });
    // The properties are taken and described by one call each at the type of all of them
    // (`properties.rs` in the runtime); a tool without properties only ends its input.
    let (take, input_schema) = if markers.is_empty() {
        let schema = whole_schema.unwrap_or_else(|| {
            quote_spanned! {anchor=>
                |generator| #private::InputSchema::new(generator) #(#headers)* .finish()
            }
        });
        (None, schema)
    } else {
        let (markers, pattern) = (nested(markers, anchor), nested(locals, anchor));
        let take = (
            pattern,
            quote_spanned!(anchor=> #private::take(#args, [#(#wires),*], #markers)),
        );
        let schema = quote_spanned! {anchor=>
            |generator| #private::input_schema(
                generator, [#((#wires, #docs)),*], #markers
            ) #(#headers)* .finish()
        };
        (Some(take), schema)
    };
    let call = if function.is_async {
        quote_spanned!(anchor=> #fn_ident(#(#call_args),*).await)
    } else {
        quote_spanned!(anchor=> #fn_ident(#(#call_args),*))
    };
    let (output, output_schema, returns_unit) = output(&function.ret, &private, call, anchor);

    // A tool marked `confirm` asks first, before its input is taken apart.
    let (confirm_sync, confirm_async) = if attrs.confirm {
        (
            quote_spanned!(anchor=> #private::confirm_first(#ctx, &#args)?;),
            quote_spanned! {anchor=>
                if let #private::Err(error) = #private::confirm_first(&#ctx, &#args) {
                    return #private::boxed(async move { #private::Err(error) });
                }
            },
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let invoke = if attrs.editor.is_some() {
        editor::forwarding(
            function,
            resolved,
            &private,
            &ctx,
            &args,
            &confirm_async,
            anchor,
        )
    } else if function.is_async {
        let take = match take {
            Some((pattern, take)) => quote_spanned! {anchor=>
                let #pattern = match #take {
                    #private::Ok(values) => values,
                    #private::Err(error) => {
                        return #private::boxed(async move { #private::Err(error) });
                    }
                };
            },
            None => quote_spanned! {anchor=>
                #(#takes)*
                if let #private::Err(error) = #args.finish() {
                    return #private::boxed(async move { #private::Err(error) });
                }
            },
        };
        quote_spanned! {anchor=>
            |#ctx, mut #args| {
                #confirm_async
                #take
                #private::boxed(async move { #output })
            }
        }
    } else {
        let take = match take {
            Some((pattern, take)) => quote_spanned!(anchor=> let #pattern = #take?;),
            None => {
                takes.push(quote_spanned!(anchor=> #args.finish()?;));
                quote_spanned!(anchor=> #(#takes)*)
            }
        };
        quote_spanned! {anchor=>
            |#ctx, mut #args| {
                #confirm_sync
                #take
                #output
            }
        }
    };

    let meta = meta::meta(attrs, function, resolved, &private, returns_unit, anchor);
    let flavor = Ident::new(
        if function.is_async || attrs.editor.is_some() {
            "Async"
        } else {
            "Sync"
        },
        anchor,
    );
    let (symbols, macros) = claims(attrs, resolved);
    let holder = format_ident!("__BURIL_TOOL_{}", fn_ident, span = anchor);
    let declared = if attrs.editor.is_some() {
        editor::declared_types(function, anchor)
    } else {
        TokenStream::new()
    };
    let sections = crate::sections::attributes(anchor);

    // Spanned like the user's code (see the module's docs), the registration is linted like
    // it: whatever lints the crate turns on, none is about the registration's code. `warnings`
    // covers lints at their default level; the lints named are those a crate may deny
    // explicitly that the registration's code would trip (`allow(warnings)` leaves a lint the
    // crate set to `deny` as it is); `unsafe_code` for the registration's linker attributes,
    // which are the library's unsafe, not the crate's (a crate that `forbid`s it cannot have
    // tools: `forbid` cannot be allowed).
    quote_spanned! {anchor=>
        #macros

        #[doc(hidden)]
        #[allow(
            warnings,
            unused,
            unreachable_pub,
            non_local_definitions,
            unused_qualifications,
            unused_results,
            missing_docs,
            unsafe_code,
            clippy::all,
            clippy::pedantic,
            clippy::nursery,
            clippy::restriction,
        )]
        const #holder: () = {
            use #krate::__private as __buril;
            #symbols
            #declared

            // A constant of its own: `file!`, `line!` and `module_path!` expand to tokens with
            // their expansions' hygiene, which would make the type-check of all the metadata
            // depend on where in the file the tool sits (see the module's docs).
            const __BURIL_LOCATION: #private::SourceLocation = #private::SourceLocation {
                file: ::core::file!(),
                line: ::core::line!(),
                module: ::core::module_path!(),
            };

            // In the slice's link section, as linkme's own macro would put it, without the
            // macro (see the module's docs and `sections.rs`). The call and the input schema
            // are closures of the static's initializer (see the module's docs).
            #sections
            static TOOL: #private::ToolDescriptor = #private::ToolDescriptor::new(
                #meta,
                #private::Invoke::#flavor(#invoke),
                #input_schema,
                #output_schema,
            );
        };
    }
}

fn params(
    function: &ToolFn,
    krate: &TokenStream,
    private: &TokenStream,
    ctx: &Ident,
    args: &Ident,
    anchor: Span,
) -> Params {
    let is_async = function.is_async;
    let mut out = Params::default();
    for (index, param) in function.params.iter().enumerate() {
        let local = format_ident!("__buril_p{}", index, span = anchor);
        match &param.kind {
            ParamKind::Context => out.call_args.push(if is_async {
                // The context is moved into the future; the function borrows it from there.
                quote_spanned!(anchor=> &#ctx)
            } else {
                quote_spanned!(anchor=> #ctx)
            }),
            ParamKind::Input { inner } => {
                let parameter = quote_spanned!(inner.span()=> <#inner as #private::Parameter>);
                out.takes
                    .push(quote_spanned!(anchor=> let #local = #parameter::whole(&mut #args);));
                out.call_args
                    .push(quote_spanned!(anchor=> #krate::Input(#private::taken(#local))));
                out.whole_schema = Some(quote_spanned!(anchor=> #parameter::input_schema));
            }
            ParamKind::Property(property) => {
                // The marker is spanned by the user's type: a type that cannot be a parameter
                // is reported there.
                let marker = match &property.optional {
                    Some(inner) => {
                        quote_spanned!(inner.span()=> <#inner as #private::Parameter>::OPTIONAL)
                    }
                    None => {
                        let ty = &property.ty;
                        quote_spanned!(ty.span()=> <#ty as #private::Parameter>::REQUIRED)
                    }
                };
                out.markers.push(marker);
                out.wires.push(text(&property.wire, anchor));
                out.docs
                    .push(text(property.docs.as_deref().unwrap_or_default(), anchor));
                out.locals.push(quote_spanned!(anchor=> #local));
                out.call_args.push(quote_spanned!(anchor=> #local));
            }
        }
    }
    out
}

/// How the function's return value becomes output, the output schema, and whether it is `()`.
fn output(
    ret: &Return,
    private: &TokenStream,
    call: TokenStream,
    anchor: Span,
) -> (TokenStream, TokenStream, bool) {
    match ret {
        Return::Unit | Return::Option(_) => (
            quote_spanned!(anchor=> #private::unit_output(#call)),
            quote_spanned!(anchor=> #private::unit_schema),
            true,
        ),
        Return::Result { ok, err } => {
            let ok_output = quote_spanned!(ok.span()=> <#ok as #private::Output>);
            (
                convert_result(call, &ok_output, err.span(), private, anchor),
                quote_spanned!(anchor=> #ok_output::output_schema),
                false,
            )
        }
        Return::ResultAlias(ty) => {
            let ok_output = quote_spanned!(ty.span()=>
                <<#ty as #private::ToolResult>::Ok as #private::Output>
            );
            (
                convert_result(call, &ok_output, ty.span(), private, anchor),
                quote_spanned!(ty.span()=> #private::result_schema::<#ty>),
                false,
            )
        }
        Return::Plain(ty) => {
            let output = quote_spanned!(ty.span()=> <#ty as #private::Output>);
            (
                quote_spanned!(anchor=> #output::into_output(#call)),
                quote_spanned!(anchor=> #output::output_schema),
                false,
            )
        }
    }
}

/// The output of a tool returning a `Result`: the value through `Output`, the error converted
/// by the first of `__private::ErrorOf`'s tiers that applies (`Into<ToolError>`, a boxed
/// `dyn Error`, any `Display`), so that `anyhow::Error`, `String` and the like need no `From`
/// impl. The conversion is spanned by the user's error type, which is where a type that is
/// none of these is reported.
fn convert_result(
    call: TokenStream,
    ok_output: &TokenStream,
    err_span: Span,
    private: &TokenStream,
    anchor: Span,
) -> TokenStream {
    let error = Ident::new("__buril_error", anchor);
    // Moved into a local spanned (call-site hygiene) by the error type, so that an unmet bound
    // is reported there rather than on the attribute.
    let convert = quote_spanned! {err_span=>
        {
            #[allow(unused_imports)]
            use #private::{ChainFallback as _, DisplayFallback as _};
            let __buril_tool_error = #error;
            #private::ErrorOf(&__buril_tool_error).kind().convert(__buril_tool_error)
        }
    };
    quote_spanned! {anchor=>
        match #call {
            #private::Ok(value) => #ok_output::into_output(value),
            #private::Err(#error) => #private::Err(#convert),
        }
    }
}

/// Claims every name and alias twice, so that two tools with one name fail the build:
/// a crate-root macro (`#[macro_export]`) collides within a crate already at `cargo check`,
/// and a linker symbol collides across crates when the binary is linked.
///
/// Returns the symbols (placed inside the registration) and the macros (placed beside the
/// function: `#[macro_export]` inside an item trips `non_local_definitions`).
fn claims(attrs: &Attrs, resolved: &Resolved) -> (TokenStream, TokenStream) {
    let names = std::iter::once((&resolved.name.value, resolved.name.span))
        .chain(attrs.aliases.iter().map(|a| (&a.value, a.span)));
    let mut symbols = TokenStream::new();
    let mut macros = TokenStream::new();
    for (claimed, span) in names {
        let symbol = LitStr::new(&format!("buril.tool.{claimed}"), span);
        let macro_name = Ident::new(&format!("__buril_tool_named_{claimed}"), span);
        symbols.extend(quote_spanned! {span=>
            const _: () = {
                #[used]
                #[unsafe(export_name = #symbol)]
                static CLAIM: u8 = 0;
            };
        });
        macros.extend(quote_spanned! {span=>
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #macro_name { () => {}; }
        });
    }
    (symbols, macros)
}
