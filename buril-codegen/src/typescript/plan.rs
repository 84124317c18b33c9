//! Every exported name of the generated files, decided before anything is written: reserved
//! words escaped, and any two things wanting the same name reported as an error.

use std::collections::BTreeMap;

use super::exported_names::{ExportedItem, ExportedNames};
use super::fixed_exports;
use super::identifiers::value_name;
use crate::collections::HashSet;
use crate::ir::{Api, TypeDef, camel_case};

/// The names of one tool's generated items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolNames {
    /// The typed client function: `sceneOpen`.
    pub(crate) function: String,
    /// The definition constant: `sceneOpenTool`.
    pub(crate) constant: String,
    /// The deprecated forwarding functions, one per alias: (alias wire name, function name).
    pub(crate) aliases: Vec<(String, String)>,
}

/// The names of everything the TypeScript writer generates for an [`Api`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeScriptPlan {
    /// Per tool, in the order of [`Api::tools`].
    pub(crate) tools: Vec<ToolNames>,
    /// The constant listing a string enum's values, by the enum's type name: `urgencyValues`.
    pub(crate) enum_values: BTreeMap<String, String>,
}

impl TypeScriptPlan {
    /// Decides every name, or says which two things would share one.
    pub(crate) fn new(api: &Api) -> Result<TypeScriptPlan, String> {
        let mut exported = ExportedNames::default();
        for (file, names) in [
            ("envelope.ts", fixed_exports::ENVELOPE),
            ("tools.ts", fixed_exports::TOOLS),
            ("client.ts", fixed_exports::CLIENT),
            ("mcp.ts", fixed_exports::MCP),
            ("http.ts", fixed_exports::HTTP),
            ("stdio.ts", fixed_exports::STDIO),
        ] {
            for name in names {
                let owner = ExportedItem::Runtime { name, file };
                // `Envelope` is a type, `METADATA_HASH` a value.
                if name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name.contains(|c: char| c.is_ascii_lowercase())
                {
                    exported.claim_type(*name, owner)?;
                } else {
                    exported.claim_value(*name, owner)?;
                }
            }
        }
        exported.claim_type(fixed_exports::INT64, ExportedItem::Int64)?;
        let mut enum_values = BTreeMap::new();
        for def in api.types.values() {
            let name = def.name();
            exported.claim_type(name, ExportedItem::Type(name))?;
            match def {
                TypeDef::TaggedUnion(union) => {
                    for variant in &union.variants {
                        exported.claim_type(
                            variant.name.as_str(),
                            ExportedItem::Variant {
                                tag: &variant.tag_value,
                                union: name,
                            },
                        )?;
                    }
                }
                TypeDef::Enum(_) => {
                    let constant = format!("{}Values", camel_case(name));
                    exported.claim_value(constant.clone(), ExportedItem::EnumValues(name))?;
                    enum_values.insert(name.to_owned(), constant);
                }
                TypeDef::Struct(_) | TypeDef::Untagged(_) => {}
            }
        }
        let mut wire = HashSet::default();
        let mut tools = Vec::with_capacity(api.tools.len());
        for tool in &api.tools {
            let name = &tool.meta.name;
            if !wire.insert(name.as_ref()) {
                return Err(format!("two tools are named `{name}`"));
            }
            let function = value_name(&tool.camel);
            exported.claim_value(function.clone(), ExportedItem::ClientFunction(name))?;
            let constant = format!("{}Tool", tool.camel);
            exported.claim_value(constant.clone(), ExportedItem::DefinitionConstant(name))?;
            tools.push(ToolNames {
                function,
                constant,
                aliases: Vec::new(),
            });
        }
        for (tool, names) in api.tools.iter().zip(&mut tools) {
            for alias in tool.meta.alias_names() {
                if !wire.insert(alias) {
                    return Err(format!(
                        "`{alias}` (an alias of `{}`) is already the name or alias of a tool",
                        tool.meta.name
                    ));
                }
                let function = value_name(&camel_case(alias));
                exported.claim_value(
                    function.clone(),
                    ExportedItem::AliasFunction {
                        alias,
                        tool: &tool.meta.name,
                    },
                )?;
                names.aliases.push((alias.to_owned(), function));
            }
        }
        Ok(TypeScriptPlan { tools, enum_values })
    }
}
