//! Every exported name of the generated files, decided before anything is written: reserved
//! words escaped, and any two things wanting the same name reported as an error.

use std::collections::BTreeMap;

use crate::HashSet;

use super::names::{Registry, What, value_name};
use super::{client, envelope, tools, types};
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
pub(crate) struct Plan {
    /// Per tool, in the order of [`Api::tools`].
    pub(crate) tools: Vec<ToolNames>,
    /// The constant listing a string enum's values, by the enum's type name: `urgencyValues`.
    pub(crate) enum_values: BTreeMap<String, String>,
}

impl Plan {
    /// Decides every name, or says which two things would share one.
    pub(crate) fn new(api: &Api) -> Result<Plan, String> {
        let mut registry = Registry::default();
        for (file, names) in [
            ("envelope.ts", envelope::EXPORTS),
            ("tools.ts", tools::EXPORTS),
            ("client.ts", client::EXPORTS),
        ] {
            for name in names {
                let what = What::Runtime { name, file };
                if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                    registry.claim_type(*name, what)?;
                } else {
                    registry.claim_value(*name, what)?;
                }
            }
        }
        registry.claim_type(types::INT64, What::Int64)?;
        let mut enum_values = BTreeMap::new();
        for def in api.types.values() {
            let name = def.name();
            registry.claim_type(name, What::Type(name))?;
            match def {
                TypeDef::TaggedUnion(union) => {
                    for variant in &union.variants {
                        registry.claim_type(
                            variant.name.as_str(),
                            What::Variant {
                                tag: &variant.tag_value,
                                union: name,
                            },
                        )?;
                    }
                }
                TypeDef::Enum(_) => {
                    let constant = format!("{}Values", camel_case(name));
                    registry.claim_value(constant.clone(), What::EnumValues(name))?;
                    enum_values.insert(name.to_owned(), constant);
                }
                TypeDef::Struct(_) | TypeDef::Untagged(_) => {}
            }
        }
        let mut wire = HashSet::default();
        let mut tools = Vec::with_capacity(api.tools.len());
        for tool in &api.tools {
            if !wire.insert(tool.name.as_str()) {
                return Err(format!("two tools are named `{}`", tool.name));
            }
            let function = value_name(&tool.camel);
            registry.claim_value(function.clone(), What::ClientFunction(&tool.name))?;
            let constant = format!("{}Tool", tool.camel);
            registry.claim_value(constant.clone(), What::DefinitionConstant(&tool.name))?;
            tools.push(ToolNames {
                function,
                constant,
                aliases: Vec::new(),
            });
        }
        for (tool, names) in api.tools.iter().zip(&mut tools) {
            for alias in &tool.aliases {
                if !wire.insert(alias.as_str()) {
                    return Err(format!(
                        "`{alias}` (an alias of `{}`) is already the name or alias of a tool",
                        tool.name
                    ));
                }
                let function = value_name(&camel_case(alias));
                registry.claim_value(
                    function.clone(),
                    What::AliasFunction {
                        alias,
                        tool: &tool.name,
                    },
                )?;
                names.aliases.push((alias.clone(), function));
            }
        }
        Ok(Plan { tools, enum_values })
    }
}
