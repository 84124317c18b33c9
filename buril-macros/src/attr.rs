//! The keys of `#[tool(...)]`: each unknown, malformed or repeated key is its own spanned error.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Lit, LitBool};

use crate::diagnostics::Diagnostics;
use crate::symbol::*;

/// A value with the span of the tokens it came from.
#[derive(Clone)]
pub struct Sp<T> {
    pub value: T,
    pub span: Span,
}

/// The parsed keys.
#[derive(Default)]
pub struct Attrs {
    pub name: Option<Sp<String>>,
    pub family: Option<Sp<String>>,
    pub aliases: Vec<Sp<String>>,
    pub off_thread: bool,
    /// Where `inline` was set to true.
    pub inline: Option<Span>,
    pub dangerous: bool,
    pub undocumented_params: bool,
    pub title: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub krate: Option<syn::Path>,
    /// `fixed_name = "why"`: the name is fixed by someone else and exempt from the naming
    /// rule (not from MCP's).
    pub fixed_name: Option<Sp<String>>,
    /// `headers(param = "Name", ...)`: parameters mirrored into `Mcp-Param-Name` HTTP headers
    /// (MCP's `x-mcp-header`).
    pub headers: Vec<(Sp<String>, Sp<String>)>,
    /// `icons = ["https://…"]`: MCP's `icons`, by URI.
    pub icons: Vec<Sp<String>>,
    /// `meta = [("key", value)]`: MCP's `_meta`, each value as JSON text.
    pub meta: Vec<(Sp<String>, String)>,
    /// `confirm`: the caller's user allows each call first, when the caller can ask.
    pub confirm: bool,
    /// `task`, `task = "optional" | "required" | "handle" | "deferred"`: calls become tasks.
    pub task: Option<Sp<TaskMode>>,
    /// `ui = "map.html"`: the tool's MCP App, an HTML file beside the tool's source file.
    pub ui: Option<Sp<String>>,
    /// `editor`: declared here (a function without a body), done in the Unity editor.
    pub editor: Option<Span>,
}

impl Attrs {
    /// Where the tool's calls run, as one of `buril::Threading`'s variants: `off_thread`
    /// alone, or with `inline` (which `check/` says needs it)
    pub fn threading(&self) -> &'static str {
        if !self.off_thread {
            "Main"
        } else if self.inline.is_some() {
            "Inline"
        } else {
            "OffThread"
        }
    }
}

/// How a `task` tool's call goes where the caller cannot follow a task.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskMode {
    /// The call waits for the work.
    Optional,
    /// The call is refused.
    Required,
    /// The call answers with the task's handle.
    Handle,
    /// The call becomes a task when the tool says so.
    Deferred,
}

impl TaskMode {
    /// The variant of `buril::TaskSupport`.
    pub fn variant(self) -> &'static str {
        match self {
            TaskMode::Optional => "Optional",
            TaskMode::Required => "Required",
            TaskMode::Handle => "Handle",
            TaskMode::Deferred => "Deferred",
        }
    }
}

impl Attrs {
    pub fn parse(diag: &Diagnostics, args: TokenStream) -> Attrs {
        let mut attrs = Attrs::default();
        let mut seen: Vec<String> = Vec::new();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_else(|| {
                    let path = &meta.path;
                    quote::quote!(#path).to_string().replace(' ', "")
                });
            if seen.contains(&key) {
                diag.error_spanned_by(&meta.path, format!("duplicate key `{key}`: give it once"));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            if let Err(error) = attrs.parse_key(diag, &key, &meta) {
                diag.syn_error(error);
                return skip_value(&meta);
            }
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            diag.syn_error(error);
        }
        attrs
    }

    fn parse_key(
        &mut self,
        diag: &Diagnostics,
        key: &str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            NAME => self.name = Some(string_value(meta, key)?),
            FAMILY => self.family = Some(string_value(meta, key)?),
            TITLE => self.title = Some(string_value(meta, key)?.value),
            ALIASES => {
                self.aliases = string_list(
                    diag,
                    meta,
                    "`aliases` takes a list of former names: `aliases = [\"old_name\"]`",
                )?
            }
            ICONS => {
                self.icons = string_list(
                    diag,
                    meta,
                    "`icons` takes a list of URIs: `icons = [\"https://example.com/tool.png\"]`",
                )?
            }
            META => self.meta = meta_list(diag, meta)?,
            CONFIRM => self.confirm = flag(meta)?,
            TASK => self.task = task_mode(meta)?,
            UI => self.ui = Some(string_value(meta, key)?),
            EDITOR => self.editor = flag(meta)?.then(|| meta.path.span()),
            OFF_THREAD => self.off_thread = flag(meta)?,
            INLINE => self.inline = flag(meta)?.then(|| meta.path.span()),
            DANGEROUS => self.dangerous = flag(meta)?,
            UNDOCUMENTED_PARAMS => self.undocumented_params = flag(meta)?,
            READ_ONLY => self.read_only = Some(flag(meta)?),
            DESTRUCTIVE => self.destructive = Some(flag(meta)?),
            IDEMPOTENT => self.idempotent = Some(flag(meta)?),
            OPEN_WORLD => self.open_world = Some(flag(meta)?),
            CRATE => self.krate = Some(meta.value()?.parse()?),
            FIXED_NAME => self.fixed_name = Some(string_value(meta, key)?),
            HEADERS => self.headers = header_list(meta)?,
            _ => {
                let mut message = format!("unknown key `{key}`");
                if let Some(close) = closest_key(key) {
                    message.push_str(&format!(": did you mean `{close}`?"));
                }
                message.push_str(&format!(" (the keys are: {})", ALL.join(", ")));
                diag.error_spanned_by(&meta.path, message);
                skip_value(meta)?;
            }
        }
        Ok(())
    }
}

/// `key = "text"`.
fn string_value(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Sp<String>> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format!("`{key}` takes a string: `{key} = \"...\"`")));
    }
    let expr: Expr = meta.value()?.parse()?;
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(Sp {
            value: lit.value(),
            span: lit.span(),
        }),
        other => Err(syn::Error::new_spanned(
            other,
            format!("`{key}` takes a string literal: `{key} = \"...\"`"),
        )),
    }
}

/// `key = ["a", "b"]`.
fn string_list(
    diag: &Diagnostics,
    meta: &ParseNestedMeta<'_>,
    usage: &str,
) -> syn::Result<Vec<Sp<String>>> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(usage));
    }
    let expr: Expr = meta.value()?.parse()?;
    let Expr::Array(ExprArray { elems, .. }) = &expr else {
        return Err(syn::Error::new_spanned(&expr, usage));
    };
    let mut names = Vec::new();
    for elem in elems {
        match elem {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => names.push(Sp {
                value: lit.value(),
                span: lit.span(),
            }),
            other => diag.error_spanned_by(other, usage),
        }
    }
    Ok(names)
}

/// `headers(region = "Region", tenant = "Tenant")`.
fn header_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(Sp<String>, Sp<String>)>> {
    let usage = "`headers` maps parameters to HTTP header names: `headers(region = \"Region\")`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(usage));
    }
    let mut headers = Vec::new();
    meta.parse_nested_meta(|inner| {
        let Some(param) = inner.path.get_ident() else {
            return Err(inner.error(usage));
        };
        let param = Sp {
            value: param.to_string().trim_start_matches("r#").to_owned(),
            span: param.span(),
        };
        let header = string_value(&inner, "a header")?;
        headers.push((param, header));
        Ok(())
    })?;
    Ok(headers)
}

/// `meta = [("com.example/team", "tools"), ("com.example/rank", 3)]`: each value a string,
/// number or boolean literal, kept as JSON text.
fn meta_list(
    diag: &Diagnostics,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Vec<(Sp<String>, String)>> {
    let usage = "`meta` takes a list of (key, value) pairs, each value a string, number or \
                 boolean: `meta = [(\"com.example/team\", \"tools\")]`";
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(usage));
    }
    let expr: Expr = meta.value()?.parse()?;
    let Expr::Array(ExprArray { elems, .. }) = &expr else {
        return Err(syn::Error::new_spanned(&expr, usage));
    };
    let mut pairs = Vec::new();
    for elem in elems {
        let Expr::Tuple(tuple) = elem else {
            diag.error_spanned_by(elem, usage);
            continue;
        };
        let items: Vec<&Expr> = tuple.elems.iter().collect();
        let [key, value] = items.as_slice() else {
            diag.error_spanned_by(elem, usage);
            continue;
        };
        let key = match key {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => Sp {
                value: lit.value(),
                span: lit.span(),
            },
            other => {
                diag.error_spanned_by(other, usage);
                continue;
            }
        };
        let json = match value {
            Expr::Lit(ExprLit { lit, .. }) => match lit {
                Lit::Str(text) => json_string(&text.value()),
                Lit::Bool(flag) => flag.value.to_string(),
                Lit::Int(int) => int.base10_digits().to_owned(),
                Lit::Float(float) => float.base10_digits().to_owned(),
                other => {
                    diag.error_spanned_by(other, usage);
                    continue;
                }
            },
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => match &**expr {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(int), ..
                }) => format!("-{}", int.base10_digits()),
                Expr::Lit(ExprLit {
                    lit: Lit::Float(float),
                    ..
                }) => format!("-{}", float.base10_digits()),
                other => {
                    diag.error_spanned_by(other, usage);
                    continue;
                }
            },
            other => {
                diag.error_spanned_by(other, usage);
                continue;
            }
        };
        pairs.push((key, json));
    }
    Ok(pairs)
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `key` or `key = true|false`.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let value: LitBool = meta.value()?.parse().map_err(|error| {
            syn::Error::new(
                error.span(),
                "a flag is written bare, or as `= true` / `= false`",
            )
        })?;
        Ok(value.value)
    } else if meta.input.peek(syn::token::Paren) {
        Err(meta.error("a flag takes no arguments: write it bare, or as `= true` / `= false`"))
    } else {
        Ok(true)
    }
}

/// `task` (optional), `task = "optional" | "required" | "handle" | "deferred"`, or
/// `task = false`.
fn task_mode(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<Sp<TaskMode>>> {
    const USAGE: &str = "`task` is written bare (a task where the caller can follow one, else \
                         the call waits), or as `task = \"required\"` (callers who cannot follow \
                         a task are refused), `task = \"handle\"` (they get the task's handle) or \
                         `task = \"deferred\"` (a plain call until the tool calls \
                         `ctx.start_task()`)";
    let span = meta.path.span();
    if meta.input.peek(syn::token::Paren) {
        return Err(meta.error(USAGE));
    }
    if !meta.input.peek(syn::Token![=]) {
        return Ok(Some(Sp {
            value: TaskMode::Optional,
            span,
        }));
    }
    let expr: Expr = meta.value()?.parse()?;
    let mode = match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => match lit.value().as_str() {
            "optional" => TaskMode::Optional,
            "required" => TaskMode::Required,
            "handle" => TaskMode::Handle,
            "deferred" => TaskMode::Deferred,
            other => {
                return Err(syn::Error::new(
                    lit.span(),
                    format!("unknown task mode `{other}`: {USAGE}"),
                ));
            }
        },
        Expr::Lit(ExprLit {
            lit: Lit::Bool(flag),
            ..
        }) => {
            return Ok(flag.value.then_some(Sp {
                value: TaskMode::Optional,
                span,
            }));
        }
        _ => return Err(syn::Error::new(expr.span(), USAGE)),
    };
    Ok(Some(Sp { value: mode, span }))
}

/// Consumes whatever follows a key that was rejected, so that parsing goes on.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

fn closest_key(key: &str) -> Option<&'static str> {
    ALL.iter()
        .map(|candidate| (edit_distance(key, candidate), *candidate))
        .filter(|(distance, _)| *distance <= 2.max(key.len() / 4))
        .min()
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, for suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let current = row[j + 1];
            row[j + 1] = if ca == *cb {
                previous
            } else {
                1 + previous.min(row[j]).min(row[j + 1])
            };
            previous = current;
        }
    }
    row[b.len()]
}
