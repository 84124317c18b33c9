//! Writes the registration beside the user's function.
//!
//! The expansion is deliberately small, because compile time matters with hundreds of tools:
//! no derive, no generated struct. Each parameter becomes one line that takes it out of the
//! validated input object and one line of the lazily built input schema, both calling a
//! method of a runtime trait at the parameter's type, so a type that cannot be a parameter is
//! reported once, on the user's type.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, LitStr};

use crate::ast::{ParamKind, Return, ToolFn};
use crate::attr::Attrs;
use crate::check::{self, Resolved};
use crate::diagnostics::Diagnostics;

pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
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
    let stripped = &function.item;
    match diag.check() {
        Ok(()) => {
            let registration = registration(&attrs, &function, &resolved);
            // Each parameter is a property of the input, so long parameter lists are normal.
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

/// The pieces generated per parameter.
#[derive(Default)]
struct Params {
    /// The wire names of the properties, in order, and the locals `Args::split` puts their
    /// values in.
    split: Vec<(String, Ident)>,
    /// Statements taking each parameter out of the input.
    takes: Vec<TokenStream>,
    /// The function's arguments, in order.
    call_args: Vec<TokenStream>,
    /// `.param(...)` steps of the input schema.
    schema_steps: Vec<TokenStream>,
    /// The schema of a tool taking `Input<T>`.
    whole_schema: Option<TokenStream>,
}

fn registration(attrs: &Attrs, function: &ToolFn, resolved: &Resolved) -> TokenStream {
    let krate = attrs
        .krate
        .as_ref()
        .map(|path| quote!(#path))
        .unwrap_or_else(|| quote!(::buril));
    let private = quote!(#krate::__private);
    let ctx = Ident::new("__buril_ctx", Span::mixed_site());
    let args = Ident::new("__buril_args", Span::mixed_site());
    let params = params(function, &krate, &private, &ctx, &args, function.is_async);

    let fn_ident = &function.ident;
    let Params {
        split,
        mut takes,
        call_args,
        schema_steps,
        whole_schema,
    } = params;
    if !split.is_empty() {
        // One pass over the input takes every property out.
        let (wires, locals): (Vec<&String>, Vec<&Ident>) =
            split.iter().map(|(wire, local)| (wire, local)).unzip();
        takes.insert(0, quote!(let [#(#locals),*] = #args.split([#(#wires),*]);));
    }
    let call = if function.is_async {
        quote!(#fn_ident(#(#call_args),*).await)
    } else {
        quote!(#fn_ident(#(#call_args),*))
    };
    let (output, output_schema, returns_unit) = output(&function.ret, &private, call);
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
        let header = &header.value;
        quote!(.header(#wire, #header))
    });
    let input_schema = whole_schema.unwrap_or_else(
        || quote!(#private::InputSchema::new(generator) #(#schema_steps)* #(#headers)* .finish()),
    );

    // A tool marked `confirm` asks first, before its input is taken apart.
    let (confirm_sync, confirm_async) = if attrs.confirm {
        (
            quote!(#private::confirm_first(#ctx, &#args)?;),
            quote! {
                if let ::core::result::Result::Err(error) = #private::confirm_first(&#ctx, &#args) {
                    return #private::boxed(async move { ::core::result::Result::Err(error) });
                }
            },
        )
    } else {
        (TokenStream::new(), TokenStream::new())
    };
    let invoke = if function.is_async {
        quote! {
            fn invoke(
                #ctx: #private::Context,
                mut #args: #private::Args,
            ) -> #private::BoxFuture {
                #confirm_async
                #(#takes)*
                if let ::core::result::Result::Err(error) = #args.finish() {
                    return #private::boxed(async move { ::core::result::Result::Err(error) });
                }
                #private::boxed(async move { #output })
            }
            #private::Invoke::Async(invoke)
        }
    } else {
        quote! {
            fn invoke(
                #ctx: &#private::Context,
                mut #args: #private::Args,
            ) -> ::core::result::Result<#private::Value, #private::ToolError> {
                #confirm_sync
                #(#takes)*
                #args.finish()?;
                #output
            }
            #private::Invoke::Sync(invoke)
        }
    };

    let meta = meta(attrs, function, resolved, &private, returns_unit);
    let claims = claims(attrs, resolved);
    let holder = format_ident!("__BURIL_TOOL_{}", fn_ident, span = Span::mixed_site());

    let (symbols, macros) = claims;
    quote! {
        #macros

        #[doc(hidden)]
        #[allow(non_upper_case_globals, non_snake_case, unused_mut, clippy::all)]
        const #holder: () = {
            #symbols

            fn input_schema(
                generator: &mut #private::SchemaGenerator,
            ) -> #private::Schema {
                #input_schema
            }

            #[#private::linkme::distributed_slice(#private::TOOLS)]
            #[linkme(crate = #private::linkme)]
            static TOOL: #private::ToolDescriptor = #private::ToolDescriptor::new(
                #meta,
                { #invoke },
                input_schema,
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
    is_async: bool,
) -> Params {
    let mut out = Params::default();
    for (index, param) in function.params.iter().enumerate() {
        let local = format_ident!("__buril_p{}", index, span = Span::mixed_site());
        match &param.kind {
            ParamKind::Context => out.call_args.push(if is_async {
                // The context is moved into the future; the function borrows it from there.
                quote!(&#ctx)
            } else {
                quote!(#ctx)
            }),
            ParamKind::Input { inner } => {
                let parameter = quote_spanned!(inner.span()=> <#inner as #private::Parameter>);
                out.takes
                    .push(quote!(let #local = #parameter::whole(&mut #args);));
                out.call_args
                    .push(quote!(#krate::Input(#private::taken(#local))));
                out.whole_schema = Some(quote!(#parameter::input_schema(generator)));
            }
            ParamKind::Property(property) => {
                let wire = &property.wire;
                let docs = property.docs.clone().unwrap_or_default();
                let value = format_ident!("__buril_v{}", index, span = Span::mixed_site());
                out.split.push((wire.clone(), value.clone()));
                let (take, step) = match &property.optional {
                    Some(inner) => {
                        let parameter =
                            quote_spanned!(inner.span()=> <#inner as #private::Parameter>);
                        (
                            quote!(#parameter::from_optional(&mut #args, #wire, #value)),
                            quote!(#parameter::optional_property(schema, #wire, #docs)),
                        )
                    }
                    None => {
                        let ty = &property.ty;
                        let parameter = quote_spanned!(ty.span()=> <#ty as #private::Parameter>);
                        (
                            quote!(#parameter::from_required(&mut #args, #wire, #value)),
                            quote!(#parameter::property(schema, #wire, #docs)),
                        )
                    }
                };
                out.takes.push(quote!(let #local = #take;));
                out.call_args.push(quote!(#private::taken(#local)));
                out.schema_steps.push(quote!(.then(|schema| #step)));
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
) -> (TokenStream, TokenStream, bool) {
    match ret {
        Return::Unit | Return::Option(_) => (
            quote!(#private::unit_output(#call)),
            quote!(#private::unit_schema),
            true,
        ),
        Return::Result { ok, err } => {
            let ok_output = quote_spanned!(ok.span()=> <#ok as #private::Output>);
            (
                convert_result(call, &ok_output, err.span(), private),
                quote!(#ok_output::output_schema),
                false,
            )
        }
        Return::ResultAlias(ty) => {
            let ok_output = quote_spanned!(ty.span()=>
                <<#ty as #private::ToolResult>::Ok as #private::Output>
            );
            (
                convert_result(call, &ok_output, ty.span(), private),
                quote_spanned!(ty.span()=> #private::result_schema::<#ty>),
                false,
            )
        }
        Return::Plain(ty) => {
            let output = quote_spanned!(ty.span()=> <#ty as #private::Output>);
            (
                quote!(#output::into_output(#call)),
                quote!(#output::output_schema),
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
) -> TokenStream {
    let error = Ident::new("__buril_error", Span::mixed_site());
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
    quote! {
        match #call {
            ::core::result::Result::Ok(value) => #ok_output::into_output(value),
            ::core::result::Result::Err(#error) => ::core::result::Result::Err(#convert),
        }
    }
}

fn meta(
    attrs: &Attrs,
    function: &ToolFn,
    resolved: &Resolved,
    private: &TokenStream,
    returns_unit: bool,
) -> TokenStream {
    let name = &resolved.name.value;
    let family = &resolved.family;
    let description = function.docs.clone().unwrap_or_default();
    let aliases: Vec<&String> = attrs.aliases.iter().map(|a| &a.value).collect();
    let some_str = |value: &Option<String>| match value {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let some_bool = |value: Option<bool>| match value {
        Some(flag) => quote!(::core::option::Option::Some(#flag)),
        None => quote!(::core::option::Option::None),
    };
    let title = some_str(&attrs.title);
    let read_only = some_bool(attrs.read_only);
    let destructive = some_bool(attrs.destructive);
    let idempotent = some_bool(attrs.idempotent);
    let open_world = some_bool(attrs.open_world);
    let off_thread = attrs.off_thread;
    let inline = attrs.inline.is_some();
    let dangerous = attrs.dangerous;
    let confirm = attrs.confirm;
    let task = Ident::new(
        attrs
            .task
            .as_ref()
            .map_or("Never", |task| task.value.variant()),
        Span::call_site(),
    );
    let fixed_name = some_str(&attrs.fixed_name.as_ref().map(|r| r.value.clone()));
    let icons: Vec<&String> = attrs.icons.iter().map(|icon| &icon.value).collect();
    let meta_keys: Vec<&String> = attrs.meta.iter().map(|(key, _)| &key.value).collect();
    let meta_values: Vec<&String> = attrs.meta.iter().map(|(_, json)| json).collect();
    let location = quote_spanned! {function.ident.span()=>
        #private::SourceLocation {
            file: ::core::file!(),
            line: ::core::line!(),
            module: ::core::module_path!(),
        }
    };
    quote! {
        #private::ToolMeta::from_attribute(
            #name,
            #description,
            #family,
            {
                static ALIASES: &[#private::Cow<'static, str>] =
                    &[#(#private::Cow::Borrowed(#aliases)),*];
                ALIASES
            },
            #private::Annotations::from_attribute(
                #title,
                #read_only,
                #destructive,
                #idempotent,
                #open_world,
            ),
            [#off_thread, #inline, #dangerous, #returns_unit, #confirm],
            #location,
            #fixed_name,
            {
                static ICONS: &[#private::Cow<'static, str>] =
                    &[#(#private::Cow::Borrowed(#icons)),*];
                ICONS
            },
            {
                static META: &[(#private::Cow<'static, str>, #private::Cow<'static, str>)] =
                    &[#((#private::Cow::Borrowed(#meta_keys), #private::Cow::Borrowed(#meta_values))),*];
                META
            },
            #private::TaskSupport::#task,
        )
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
