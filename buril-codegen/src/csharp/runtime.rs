//! `Buril.Runtime.cs`: the parts that do not depend on the tools (the `ITool` contract, the
//! transport, exceptions, JSON helpers and the client's plumbing), kept as C# in
//! `runtime/csharp/Buril.Runtime.cs`.

/// The runtime's C# source, after the header. Every external type is written with `global::`
/// so that no generated type can shadow it.
pub(crate) const RUNTIME: &str = include_str!("../../runtime/csharp/Buril.Runtime.cs");

/// The types the generated files declare whatever the tools are: those of the runtime file, and
/// `BurilCatalog` (in `Buril.Tools.cs`). No generated type may take these names.
pub(crate) const FIXED_TYPES: &[&str] = &[
    "BurilCallOptions",
    "BurilCallRequest",
    "BurilCatalog",
    "BurilClient",
    "BurilDeadlines",
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
    "BurilTask",
    "BurilTaskSnapshot",
    "BurilToolException",
    "BurilToolInfo",
    "BurilTransportException",
    "BurilTransportFailure",
    "BurilWarningEventArgs",
    "IBurilEnvelopeTransport",
    "IBurilRequestTransport",
    "IMcpToolTransport",
    "ITool",
    "IToolTransport",
    "OffThreadAttribute",
    "ToolValidationException",
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

    /// The names of the types the runtime declares at the namespace's level.
    fn declared_types() -> Vec<&'static str> {
        RUNTIME
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
