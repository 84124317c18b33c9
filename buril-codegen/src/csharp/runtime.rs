//! `Buril.Runtime.cs`: the parts that do not depend on the tools (the `ITool` contract, the
//! transport, exceptions, JSON helpers and the client's plumbing), kept as C# in
//! `runtime/csharp/`, one file per concern ([`PIECES`]), and written out as one file: a host
//! copies or packages one file, and the types refer to each other across the pieces.
//!
//! Each piece is a complete C# file: a header comment (`//` lines), a blank line, then
//! `namespace Buril.Generated`, `{`, its declarations and `}`. [`RUNTIME`] is [`HEADER`], a
//! blank line, and the pieces' declarations in [`PIECES`]' order inside one namespace block,
//! a blank line between two pieces; the pieces' own header comments are left out.

use std::sync::LazyLock;

/// The namespace of everything generated.
pub const NAMESPACE: &str = "Buril.Generated";

/// The runtime's header comment, above its namespace.
const HEADER: &str = "\
// The buril runtime for the generated bindings: the ITool contract, the client's transport,
// the exceptions, and the JSON settings every generated class is read and written with.
// References: Newtonsoft.Json, System.Numerics, System.Runtime.Serialization, System.Net.Http.
";

/// `(file name, text)` of each file named, from `runtime/csharp/`.
macro_rules! pieces {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../runtime/csharp/", $name)))),*]
    };
}

/// The pieces of the runtime, `(file name, text)`, in the order the runtime declares them.
const PIECES: &[(&str, &str)] = pieces![
    "Contract.cs",
    "Tasks.cs",
    "Errors.cs",
    "ToolInfo.cs",
    "Json.cs",
    "Client.cs",
    "Mcp.cs",
    "Events.cs",
    "Callbacks.cs",
    "ProcessTransport.cs",
    "HttpTransport.cs",
];

/// The runtime's C# source, after the generated header: [`HEADER`] and the pieces in one
/// namespace. Every external type is written with `global::` so that no generated type can
/// shadow it.
/// The line of the runtime that says whether the bindings are for another server than buril's.
const OTHER_SERVER: &str = "private static readonly bool FromOtherServer = false;";

/// The runtime for `api`: reading another server's answers when its tools are another
/// server's (`codegen --from-server`).
pub(crate) fn runtime_for(api: &crate::ir::Api) -> std::borrow::Cow<'static, str> {
    debug_assert!(RUNTIME.contains(OTHER_SERVER));
    if api.from_other_server {
        RUNTIME
            .replace(
                OTHER_SERVER,
                "private static readonly bool FromOtherServer = true;",
            )
            .into()
    } else {
        RUNTIME.as_str().into()
    }
}

pub(crate) static RUNTIME: LazyLock<String> =
    LazyLock::new(|| assemble(PIECES).unwrap_or_else(|error| panic!("{error}")));

/// Joins the pieces' declarations into the runtime's text.
fn assemble(pieces: &[(&str, &str)]) -> Result<String, String> {
    let mut text = String::with_capacity(
        HEADER.len() + pieces.iter().map(|(_, piece)| piece.len()).sum::<usize>(),
    );
    text.push_str(HEADER);
    text.push('\n');
    text.push_str("namespace ");
    text.push_str(NAMESPACE);
    text.push_str("\n{\n");
    for (i, &(name, piece)) in pieces.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(declarations(name, piece)?);
    }
    text.push_str("}\n");
    Ok(text)
}

/// What a piece declares: the lines between its namespace's braces, each indented or blank,
/// neither the first nor the last blank. Refuses a piece of another shape, naming it.
fn declarations<'a>(name: &str, piece: &'a str) -> Result<&'a str, String> {
    let refuse = |what: &str| {
        Err(format!(
            "runtime/csharp/{name}: {what}; a piece is `//` comment lines, a blank line, \
             `namespace {NAMESPACE}`, `{{`, the declarations (indented) and `}}`, with \\n line ends"
        ))
    };
    if piece.contains('\r') {
        return refuse("it has \\r line ends");
    }
    let Some((header, rest)) = piece.split_once("\n\n") else {
        return refuse("no blank line ends the header comment");
    };
    if header.is_empty() || !header.lines().all(|line| line.starts_with("//")) {
        return refuse("it does not start with a header comment of `//` lines");
    }
    let Some(body) = rest
        .strip_prefix("namespace ")
        .and_then(|rest| rest.strip_prefix(NAMESPACE))
        .and_then(|rest| rest.strip_prefix("\n{\n"))
    else {
        return refuse("the header comment is not followed by the namespace and its `{`");
    };
    let Some(body) = body.strip_suffix("}\n") else {
        return refuse("it does not end with the namespace's `}` and a line end");
    };
    if body.is_empty() {
        return refuse("it declares nothing");
    }
    if body.starts_with('\n') || body.ends_with("\n\n") || !body.ends_with('\n') {
        return refuse("its declarations start or end with a blank line");
    }
    if let Some(line) = body
        .lines()
        .find(|line| !line.is_empty() && !line.starts_with("    "))
    {
        return refuse(&format!(
            "`{line}` is not indented inside the namespace (one namespace block a piece)"
        ));
    }
    Ok(body)
}

/// The types the generated files declare whatever the tools are: those of the runtime file,
/// `BurilCatalog` (in `Buril.Tools.cs`), and those of a Unity package's `Buril.Unity.cs`
/// ([`UNITY_RUNTIME`]). No generated type may take these names.
pub(crate) const FIXED_TYPES: &[&str] = &[
    "BurilAwaitables",
    "BurilCallOptions",
    "BurilCallRequest",
    "BurilCallbacks",
    "BurilCatalog",
    "BurilClient",
    "BurilConnection",
    "BurilConnectionMode",
    "BurilDeadlines",
    "BurilEditorHost",
    "BurilEditorHostOptions",
    "BurilHostedTool",
    "BurilHttpTransport",
    "BurilIntegerConverter",
    "BurilJson",
    "BurilMcp",
    "BurilMessageReader",
    "BurilNoConverter",
    "BurilProblem",
    "BurilProcessTransport",
    "BurilProgress",
    "BurilRestartedEventArgs",
    "BurilServerSettings",
    "BurilSettings",
    "BurilSettingsPage",
    "BurilTask",
    "BurilTaskSnapshot",
    "BurilToolException",
    "BurilToolInfo",
    "BurilTransportException",
    "BurilTransportFailure",
    "BurilUniTasks",
    "BurilWarningEventArgs",
    "IBurilDeclaredTool",
    "IBurilEnvelopeTransport",
    "IBurilRequestTransport",
    "IMcpToolTransport",
    "ITool",
    "IToolTransport",
    "OffThreadAttribute",
    "ToolValidationException",
];

/// The C# a Unity package adds to the runtime (`Buril.Unity.cs`), by file of `runtime/unity/`:
/// the connection that lives through domain reloads, its settings and page, the `Awaitable`
/// and UniTask forms; the server's config file read and changed; the editor's own tools served
/// to buril (`BurilEditorHost`).
pub(crate) const UNITY_RUNTIME: &[(&str, &str)] = &[
    (
        "Connection.cs",
        include_str!("../../runtime/unity/Connection.cs"),
    ),
    (
        "ServerSettings.cs",
        include_str!("../../runtime/unity/ServerSettings.cs"),
    ),
    (
        "EditorHost.cs",
        include_str!("../../runtime/unity/EditorHost.cs"),
    ),
];

/// The members of `BurilClient` that are not tool methods: its constructor, `Call`,
/// `CallAsync`, `ServerVersion`, `StartTaskAsync`, `Transport` and `WarningReceived`, declared in the runtime
/// file, and the generated `MetadataHash`. (Its private members are in camelCase, which no tool method is.)
pub(crate) const CLIENT_MEMBERS: &[&str] = &[
    "BurilClient",
    "Call",
    "CallAsync",
    "MetadataHash",
    "ServerVersion",
    "StartTaskAsync",
    "Transport",
    "WarningReceived",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.cs` file of `runtime/csharp/` is a piece, listed once: a new file cannot be left
    /// out of the runtime.
    #[test]
    fn every_file_of_the_folder_is_a_piece() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime/csharp");
        let mut files: Vec<String> = std::fs::read_dir(folder)
            .unwrap_or_else(|error| panic!("{folder}: {error}"))
            .map(|entry| entry.expect("a folder entry").file_name())
            .map(|name| name.into_string().expect("a UTF-8 file name"))
            .filter(|name| name.ends_with(".cs"))
            .collect();
        files.sort_unstable();
        let mut listed: Vec<&str> = PIECES.iter().map(|&(name, _)| name).collect();
        listed.sort_unstable();
        for pair in listed.windows(2) {
            assert_ne!(pair[0], pair[1], "{} is listed twice in PIECES", pair[0]);
        }
        for file in &files {
            assert!(
                listed.contains(&file.as_str()),
                "{folder}/{file} is not in PIECES (src/csharp/runtime.rs): list it where its \
                 declarations go in Buril.Runtime.cs"
            );
        }
        assert_eq!(listed, files, "PIECES and the .cs files of {folder}");
    }

    /// Every piece has the shape the assembler reads: a header comment, a blank line, one
    /// namespace block.
    #[test]
    fn every_piece_is_a_header_and_one_namespace() {
        for &(name, piece) in PIECES {
            if let Err(error) = declarations(name, piece) {
                panic!("{error}");
            }
        }
    }

    /// The runtime is its header, then the pieces' declarations, in order, in one namespace.
    #[test]
    fn the_runtime_joins_the_pieces_in_order() {
        let body = RUNTIME
            .strip_prefix(HEADER)
            .and_then(|rest| rest.strip_prefix("\nnamespace Buril.Generated\n{\n"))
            .and_then(|rest| rest.strip_suffix("}\n"))
            .expect("the header and one namespace");
        let mut rest = body;
        for (i, &(name, piece)) in PIECES.iter().enumerate() {
            if i > 0 {
                rest = rest
                    .strip_prefix('\n')
                    .expect("a blank line between two pieces");
            }
            let declarations = declarations(name, piece).expect("a piece");
            rest = rest
                .strip_prefix(declarations)
                .unwrap_or_else(|| panic!("{name}'s declarations, in order"));
        }
        assert_eq!(rest, "");
    }

    /// The assembler refuses a piece of another shape, naming the file.
    #[test]
    fn a_misshapen_piece_is_refused() {
        let good =
            "// What it holds.\n\nnamespace Buril.Generated\n{\n    class A\n    {\n    }\n}\n";
        assert_eq!(
            declarations("Good.cs", good),
            Ok("    class A\n    {\n    }\n")
        );
        for bad in [
            "namespace Buril.Generated\n{\n    class A\n    {\n    }\n}\n",
            "// What it holds.\nnamespace Buril.Generated\n{\n    class A\n    {\n    }\n}\n",
            "// What it holds.\n\nusing System;\nnamespace Buril.Generated\n{\n    class A\n    {\n    }\n}\n",
            "// What it holds.\n\nnamespace Other\n{\n    class A\n    {\n    }\n}\n",
            "// What it holds.\n\nnamespace Buril.Generated\n{\n    class A\n    {\n    }\n}",
            "// What it holds.\n\nnamespace Buril.Generated\n{\n\n    class A\n    {\n    }\n}\n",
            "// What it holds.\n\nnamespace Buril.Generated\n{\n}\n",
            "// What it holds.\n\nnamespace Buril.Generated\n{\n    class A\n    {\n    }\n}\nnamespace Buril.Generated\n{\n    class B\n    {\n    }\n}\n",
            "// What it holds.\r\n\r\nnamespace Buril.Generated\r\n{\r\n    class A\r\n    {\r\n    }\r\n}\r\n",
        ] {
            let error = declarations("Bad.cs", bad).expect_err(bad);
            assert!(error.starts_with("runtime/csharp/Bad.cs: "), "{error}");
        }
    }

    /// The names of the types the runtime declares at the namespace's level.
    fn declared_types() -> Vec<&'static str> {
        declared_in(&RUNTIME)
    }

    /// The names of the types `source` declares at the namespace's level.
    fn declared_in(source: &'static str) -> Vec<&'static str> {
        source
            .lines()
            .filter_map(|line| line.strip_prefix("    "))
            .filter(|line| !line.starts_with(' '))
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                words.position(|w| matches!(w, "class" | "interface" | "struct" | "enum"))?;
                // A generic type is named without its parameters (`BurilTask<TOutput>`).
                words.next().and_then(|name| name.split('<').next())
            })
            .collect()
    }

    #[test]
    fn the_fixed_types_are_the_runtime_types_and_the_catalog() {
        let mut declared = declared_types();
        assert!(!declared.contains(&"BurilCatalog"));
        declared.push("BurilCatalog");
        declared.extend(UNITY_RUNTIME.iter().flat_map(|(_, text)| declared_in(text)));
        declared.sort_unstable();
        assert_eq!(declared, FIXED_TYPES);
    }

    #[test]
    fn the_client_members_are_declared_by_the_runtime() {
        let client = &RUNTIME[RUNTIME
            .find("public sealed partial class BurilClient\n")
            .expect("the client")..];
        for declaration in [
            "public BurilClient(",
            "public IToolTransport Transport\n",
            "public TOutput Call<TOutput>(",
            "public global::System.Threading.Tasks.Task<TOutput> CallAsync<TOutput>(",
            "public string ServerVersion\n",
            "public global::System.Threading.Tasks.Task<BurilTask<TOutput>> StartTaskAsync<TOutput>(",
            "public event global::System.EventHandler<BurilWarningEventArgs> WarningReceived;\n",
        ] {
            assert!(client.contains(declaration), "{declaration}");
        }
        assert_eq!(
            CLIENT_MEMBERS,
            [
                "BurilClient",
                "Call",
                "CallAsync",
                "MetadataHash",
                "ServerVersion",
                "StartTaskAsync",
                "Transport",
                "WarningReceived"
            ]
        );
    }
}
