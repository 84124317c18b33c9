//! The rules a tool must follow, one small function each. Every violation is recorded, none
//! stops the others, so the user sees them all in one compile.

use quote::ToTokens;
use syn::Type;

use crate::ast::{Param, ParamKind, Return, ToolFn};
use crate::attr::{Attrs, Sp};
use crate::diagnostics::Diagnostics;
use buril_names as naming;

mod editor;

/// The tool's name and family after the checks.
pub struct Resolved {
    pub name: Sp<String>,
    pub family: String,
}

pub fn check(diag: &Diagnostics, attrs: &Attrs, function: &ToolFn) -> Resolved {
    let name = attrs.name.clone().unwrap_or_else(|| Sp {
        value: function
            .ident
            .to_string()
            .trim_start_matches("r#")
            .to_owned(),
        span: function.ident.span(),
    });
    let family = match &attrs.fixed_name {
        Some(reason) => {
            check_fixed_name(diag, &name, reason, attrs.family.as_ref());
            // A fixed name need not start with its family.
            check_family(diag, &name, attrs.family.as_ref(), false)
        }
        None => {
            let name_ok = check_name(diag, &name, attrs.family.as_ref());
            check_family(diag, &name, attrs.family.as_ref(), name_ok)
        }
    };
    check_aliases(diag, &name, &attrs.aliases, &family);
    check_description(diag, function, &name);
    check_param_docs(diag, attrs, function);
    check_param_kinds(diag, function);
    check_return(diag, function);
    check_inline(diag, attrs, function);
    editor::check(diag, attrs, function);
    check_task(diag, attrs);
    check_headers(diag, attrs, function);
    check_icons_and_meta(diag, attrs);
    check_ui(diag, attrs);
    Resolved { name, family }
}

/// An app is an HTML document (`ui = "map.html"`), a relative path beside the tool's source.
fn check_ui(diag: &Diagnostics, attrs: &Attrs) {
    let Some(path) = &attrs.ui else {
        return;
    };
    if !path.value.ends_with(".html") || path.value.starts_with('/') || path.value.contains('\\') {
        diag.error_at(
            path.span,
            format!(
                "`ui` names the tool's app: an HTML file beside the tool's source file, such as \
                 `ui = \"map.html\"`, not `{}`",
                path.value
            ),
        );
    }
}

/// Icons are URIs (`https:` or `data:` as MCP recommends, or any other scheme); `_meta` keys
/// are MCP's (an optional `prefix/` of dot-separated labels, then a name), given once, and
/// keep off the prefixes MCP and buril reserve.
fn check_icons_and_meta(diag: &Diagnostics, attrs: &Attrs) {
    for icon in &attrs.icons {
        let scheme = icon.value.split_once(':').map(|(scheme, _)| scheme);
        let is_scheme = scheme.is_some_and(|s| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
        if !is_scheme {
            diag.error_at(
                icon.span,
                format!(
                    "the icon `{}` is not a URI: give an `https:` URL or a `data:` URI (MCP \
                     clients fetch icons by URI)",
                    icon.value
                ),
            );
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (key, _) in &attrs.meta {
        if let Some(problem) = meta_key_problem(&key.value) {
            diag.error_at(
                key.span,
                format!("the `_meta` key `{}` {problem}", key.value),
            );
        } else if seen.contains(&key.value.as_str()) {
            diag.error_at(
                key.span,
                format!(
                    "the `_meta` key `{}` is given twice: give it once",
                    key.value
                ),
            );
        }
        seen.push(&key.value);
    }
}

/// What is wrong with a `_meta` key, as MCP defines them: `[prefix/]name`, the prefix
/// dot-separated labels (letters, digits, hyphens; a letter first, no hyphen last), the name
/// letters and digits at both ends with `-`, `_` and `.` between.
fn meta_key_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let name_ok = !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !name_ok {
        return Some(
            "has no valid name: letters and digits at both ends, `-`, `_` and `.` between \
             (`com.example/team`)"
                .to_owned(),
        );
    }
    let prefix = prefix?;
    let labels: Vec<&str> = prefix.split('.').collect();
    let labels_ok = labels.iter().all(|label| {
        !label.is_empty()
            && label.starts_with(|c: char| c.is_ascii_alphabetic())
            && label.ends_with(|c: char| c.is_ascii_alphanumeric())
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    if !labels_ok {
        return Some(
            "has an invalid prefix: dot-separated labels of letters, digits and hyphens, each \
             starting with a letter (`com.example/`)"
                .to_owned(),
        );
    }
    if labels
        .iter()
        .any(|label| matches!(*label, "modelcontextprotocol" | "mcp"))
    {
        return Some("uses a prefix MCP reserves for itself: use your own domain".to_owned());
    }
    if prefix == "buril" {
        return Some("uses the prefix buril's own keys have: use your own domain".to_owned());
    }
    None
}

/// Each `headers` entry names a required parameter, once, with a header name that is an HTTP
/// token; no two header names are the same ignoring case (MCP's `x-mcp-header` rules; that the
/// parameter is a string, an integer or a boolean is checked when the schema is made).
fn check_headers(diag: &Diagnostics, attrs: &Attrs, function: &ToolFn) {
    let mut seen: Vec<String> = Vec::new();
    for (param, header) in &attrs.headers {
        let property = function.params.iter().find_map(|p| match &p.kind {
            ParamKind::Property(property) if p.ident == param.value.as_str() => Some(property),
            _ => None,
        });
        match property {
            None => {
                let names: Vec<String> = function
                    .params
                    .iter()
                    .filter(|p| matches!(p.kind, ParamKind::Property(_)))
                    .map(|p| format!("`{}`", p.ident))
                    .collect();
                let known = if names.is_empty() {
                    "the tool has none".to_owned()
                } else {
                    format!("its parameters are {}", names.join(", "))
                };
                diag.error_at(
                    param.span,
                    format!(
                        "`headers` names `{}`, which is not a parameter of the tool: {known}",
                        param.value
                    ),
                );
            }
            Some(property) if property.optional.is_some() => diag.error_at(
                param.span,
                format!(
                    "`{}` is optional, and a header parameter must be required (a client sends \
                     the header with every call): make it `{}`",
                    param.value,
                    property
                        .optional
                        .as_ref()
                        .map(|ty| ty.to_token_stream().to_string())
                        .unwrap_or_default()
                ),
            ),
            Some(_) => {}
        }
        let is_token = !header.value.is_empty()
            && header
                .value
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !is_token {
            diag.error_at(
                header.span,
                format!(
                    "`{}` is not an HTTP header name (letters, digits and `!#$%&'*+-.^_`|~`): \
                     the header is sent as `Mcp-Param-<name>`",
                    header.value
                ),
            );
        } else if seen.contains(&header.value.to_ascii_lowercase()) {
            diag.error_at(
                header.span,
                format!(
                    "the header `{}` is given twice (header names ignore case): give each \
                     parameter its own",
                    header.value
                ),
            );
        }
        seen.push(header.value.to_ascii_lowercase());
    }
}

/// `inline` runs a sync tool on the caller's thread: the tool must be allowed off the main
/// thread, and an async tool has no thread of its own to save.
fn check_inline(diag: &Diagnostics, attrs: &Attrs, function: &ToolFn) {
    let Some(span) = attrs.inline else {
        return;
    };
    if function.is_async {
        diag.error_at(
            span,
            "`inline` is for sync tools: an `async fn` tool already runs as a task, without a \
             thread of its own; remove `inline`",
        );
    } else if !attrs.off_thread {
        diag.error_at(
            span,
            "`inline` runs the tool on whatever thread calls it, so it must be allowed off the \
             main thread: write `#[buril::tool(off_thread, inline)]`",
        );
    }
}

/// A task runs in the background, beside other calls: off the main thread (whose calls run one
/// at a time, in order), and never `inline` (which is for tools that return at once). An
/// editor tool's task waits for the editor here, whatever thread runs it there.
fn check_task(diag: &Diagnostics, attrs: &Attrs) {
    let Some(task) = &attrs.task else {
        return;
    };
    if attrs.editor.is_some() && attrs.inline.is_none() {
        return;
    }
    if attrs.inline.is_some() {
        diag.error_at(
            task.span,
            "`task` is for work that takes longer than a call should wait, and `inline` for \
             tools that return at once: remove one of them",
        );
    } else if !attrs.off_thread {
        diag.error_at(
            task.span,
            "a `task` tool runs in the background, beside other calls, which the host's main \
             thread (where a tool runs by default, one call at a time) would hold up: write \
             `#[buril::tool(task, off_thread)]`",
        );
    }
}

/// The name is `<family>_<verb>[_<noun>...]`, lowercase snake case, at most 64 characters.
/// Returns whether the name is valid.
fn check_name(diag: &Diagnostics, name: &Sp<String>, family: Option<&Sp<String>>) -> bool {
    let family = family.map(|f| f.value.as_str());
    match naming::check_name(&name.value, "tool name", family) {
        Some(message) => {
            let message = if name.value.len() > naming::MAX_LEN {
                message
            } else {
                format!(
                    "{message} (a name fixed by someone else, such as a protocol's test suite, \
                     takes `fixed_name = \"why\"`)"
                )
            };
            diag.error_at(name.span, message);
            false
        }
        None => true,
    }
}

/// A name fixed by someone else (`fixed_name = "why"`) keeps MCP's own rule (1 to 128 of
/// `A-Z a-z 0-9 _ - .`) and the providers' 64 characters, says why, and is not a name the
/// naming rule accepts anyway.
fn check_fixed_name(
    diag: &Diagnostics,
    name: &Sp<String>,
    reason: &Sp<String>,
    family: Option<&Sp<String>>,
) {
    if reason.value.trim().is_empty() {
        diag.error_at(
            reason.span,
            "`fixed_name` says who fixed the name, and why: `fixed_name = \"the MCP conformance \
             suite calls it so\"`",
        );
    }
    let text = &name.value;
    if text.is_empty()
        || !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        diag.error_at(
            name.span,
            format!(
                "tool name `{text}` breaks MCP's name rule, which `fixed_name` does not lift: 1 to \
                 128 of `A-Z a-z 0-9 _ - .`"
            ),
        );
    } else if text.len() > naming::MAX_LEN {
        diag.error_at(
            name.span,
            format!(
                "tool name `{text}` is {} characters long; the limit is {} (OpenAI and \
                 Anthropic reject longer names), which `fixed_name` does not lift",
                text.len(),
                naming::MAX_LEN
            ),
        );
    } else if naming::check_name(text, "tool name", family.map(|f| f.value.as_str())).is_none() {
        diag.error_at(
            reason.span,
            format!(
                "tool name `{text}` follows the naming rule: `fixed_name` is only for names that \
                 break it; remove `fixed_name`"
            ),
        );
    }
}

/// An explicit family is itself snake case and is the name's prefix (checked only when
/// `name_ok`: an invalid name was reported already, with the family in its fix, and a fixed
/// name need not have it); the default family is the name's first segment.
fn check_family(
    diag: &Diagnostics,
    name: &Sp<String>,
    family: Option<&Sp<String>>,
    name_ok: bool,
) -> String {
    let Some(family) = family else {
        return name.value.split('_').next().unwrap_or_default().to_owned();
    };
    if !naming::is_valid_family(&family.value) {
        diag.error_at(
            family.span,
            format!(
                "family `{}` is not lowercase snake case (`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`); use `{}`",
                family.value,
                naming::to_snake_case(&family.value)
            ),
        );
    } else if name_ok && !name.value.starts_with(&format!("{}_", family.value)) {
        let verb = name.value.rsplit('_').next().unwrap_or("verb");
        diag.error_at(
            family.span,
            format!(
                "family `{}` must be the prefix of the tool name `{}` (`<family>_<verb>...`): \
                 rename the tool `{}_{verb}` or drop `family`",
                family.value, name.value, family.value
            ),
        );
    }
    family.value.clone()
}

/// Aliases follow the naming rule, differ from the name and from each other.
fn check_aliases(diag: &Diagnostics, name: &Sp<String>, aliases: &[Sp<String>], family: &str) {
    let family = (!family.is_empty()).then_some(family);
    for (i, alias) in aliases.iter().enumerate() {
        if let Some(message) = naming::check_name(&alias.value, "alias", family) {
            diag.error_at(alias.span, message);
        }
        if alias.value == name.value {
            diag.error_at(
                alias.span,
                format!("alias `{}` is the tool's own name: remove it", alias.value),
            );
        }
        if aliases[..i]
            .iter()
            .any(|earlier| earlier.value == alias.value)
        {
            diag.error_at(
                alias.span,
                format!("alias `{}` is listed twice: remove one", alias.value),
            );
        }
    }
}

/// A tool has a description: its doc comment is what the model plans with.
fn check_description(diag: &Diagnostics, function: &ToolFn, name: &Sp<String>) {
    if function.docs.is_none() {
        diag.error_at(
            function.ident.span(),
            format!(
                "tool `{}` has no description: add a doc comment (`/// What it does and when to \
                 use it.`) above the function; the model plans with it",
                name.value
            ),
        );
    }
}

/// Every parameter has a description, unless the tool opts out. An undocumented parameter
/// that is the tool's only one and whose type looks like a struct was usually meant as the
/// whole input: the error says how to take it so.
fn check_param_docs(diag: &Diagnostics, attrs: &Attrs, function: &ToolFn) {
    if attrs.undocumented_params {
        return;
    }
    let properties = function
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Property(_)))
        .count();
    for param in &function.params {
        if let ParamKind::Property(property) = &param.kind
            && property.docs.is_none()
        {
            let mut message = format!(
                "parameter `{}` has no description: add a doc comment (`/// ...`) above it, or \
                 opt out with `#[buril::tool(undocumented_params)]`",
                property.wire
            );
            if properties == 1
                && let Some(name) = user_type_name(&property.ty)
            {
                let binding = &param.ident;
                message.push_str(&format!(
                    "; or, if `{name}` is a struct meant to be the whole input, take it as \
                     `buril::Input({binding}): buril::Input<{name}>`, whose fields become the \
                     tool's parameters, described by their own doc comments"
                ));
            }
            diag.error_at(param.ident.span(), message);
        }
    }
}

/// The type as written, when it is a path that is not a scalar or a standard container (so it
/// may be the user's struct): `SceneArgs`, `crate::args::Move`, not `String`, `Vec<T>` or
/// `serde_json::Value`.
fn user_type_name(ty: &Type) -> Option<String> {
    const KNOWN: &str = "String str bool char i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 \
        usize f32 f64 Vec VecDeque Option Box Cow Arc Rc HashMap BTreeMap IndexMap Map HashSet \
        BTreeSet IndexSet Value Number PathBuf Path Duration NonZeroU8 NonZeroU16 NonZeroU32 \
        NonZeroU64 NonZeroUsize";
    let Type::Path(path) = ty else {
        return match ty {
            Type::Group(group) => user_type_name(&group.elem),
            Type::Paren(paren) => user_type_name(&paren.elem),
            _ => None,
        };
    };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if KNOWN
        .split_ascii_whitespace()
        .any(|known| last.ident == known)
    {
        return None;
    }
    let written = path.to_token_stream().to_string();
    Some(
        written
            .replace(" :: ", "::")
            .replace(":: ", "::")
            .replace(" <", "<")
            .replace("< ", "<")
            .replace(" >", ">")
            .replace(" ,", ","),
    )
}

/// At most one context; an `Input<T>` parameter is the whole input, so it stands alone.
fn check_param_kinds(diag: &Diagnostics, function: &ToolFn) {
    let of_kind = |want: fn(&ParamKind) -> bool| -> Vec<&Param> {
        function.params.iter().filter(|p| want(&p.kind)).collect()
    };
    let contexts = of_kind(|k| matches!(k, ParamKind::Context));
    for extra in contexts.iter().skip(1) {
        diag.error_spanned_by(
            &extra.tokens,
            "a tool takes at most one `&buril::Context`: remove this one",
        );
    }
    let inputs = of_kind(|k| matches!(k, ParamKind::Input { .. }));
    for extra in inputs.iter().skip(1) {
        diag.error_spanned_by(
            &extra.tokens,
            "a tool takes at most one `buril::Input<T>`: merge the structs",
        );
    }
    if !inputs.is_empty() {
        for property in of_kind(|k| matches!(k, ParamKind::Property(_))) {
            diag.error_spanned_by(
                &property.tokens,
                format!(
                    "`{}` cannot sit beside `buril::Input<T>`, which is the whole input: move it \
                     into the struct, or drop `Input` and list each parameter",
                    property.ident
                ),
            );
        }
    }
}

/// Never signal failure with null: `Option` outputs are rejected.
fn check_return(diag: &Diagnostics, function: &ToolFn) {
    if let Return::Option(ty) = &function.ret {
        diag.error_spanned_by(
            ty,
            "a tool cannot return `Option`: never signal failure with null, the model reads it as \
             success with no data; return `Result<T, buril::ToolError>` and an error that says \
             what is missing",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::user_type_name;

    fn name(ty: &str) -> Option<String> {
        user_type_name(&syn::parse_str(ty).unwrap())
    }

    #[test]
    fn paths_that_may_be_structs_are_named_as_written() {
        assert_eq!(name("MoveArgs").as_deref(), Some("MoveArgs"));
        assert_eq!(
            name("crate::args::Move").as_deref(),
            Some("crate::args::Move")
        );
        assert_eq!(name("Page<Item>").as_deref(), Some("Page<Item>"));
        for known in [
            "String",
            "u32",
            "Vec<MoveArgs>",
            "Option<MoveArgs>",
            "std::collections::HashMap<String, u8>",
            "serde_json::Value",
            "(u8, u8)",
            "[f32; 3]",
        ] {
            assert_eq!(name(known), None, "{known}");
        }
    }
}
