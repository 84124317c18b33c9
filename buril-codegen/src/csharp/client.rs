//! `Buril.Client.cs`: the typed methods of `BurilClient`, one per tool and one per deprecated
//! alias (marked `[Obsolete]`, calling the tool by its current name).

use crate::ir::{Api, TypeDef, pascal_case};
use crate::writer::{SourceWriter, WriterError};

use super::names::{CLIENT_MEMBERS, Members, OBJECT_MEMBERS, What, check_type_name, identifier};
use super::text::{Code, code, string_literal, summary};

/// A method of the client.
struct Method {
    name: String,
    tool: usize,
    /// The alias it stands for, if it is a deprecated name.
    alias: Option<String>,
}

/// Names the client's methods, failing on any clash.
fn methods(api: &Api) -> Result<Vec<Method>, WriterError> {
    let mut members = Members::new("BurilClient");
    for name in CLIENT_MEMBERS.iter().chain(OBJECT_MEMBERS) {
        if *name != "BurilClient" {
            members.add(name, What::ClientItself)?;
        }
    }
    let mut out = Vec::new();
    for (index, tool) in api.tools.iter().enumerate() {
        let what = What::ToolMethod(&tool.name);
        check_type_name(&tool.pascal, what)?;
        members.add(&tool.pascal, what)?;
        out.push(Method {
            name: tool.pascal.clone(),
            tool: index,
            alias: None,
        });
        for alias in &tool.aliases {
            let name = pascal_case(alias);
            check_type_name(&name, What::AliasMethod(alias))?;
            members.add(
                &name,
                What::Alias {
                    alias,
                    tool: &tool.name,
                },
            )?;
            out.push(Method {
                name,
                tool: index,
                alias: Some(alias.clone()),
            });
        }
    }
    Ok(out)
}

/// Checks the client's method names.
pub(crate) fn check(api: &Api) -> Result<(), WriterError> {
    methods(api).map(|_| ())
}

/// Writes the client's typed methods.
pub(crate) fn write_client(w: &mut SourceWriter, api: &Api) -> Result<(), WriterError> {
    let methods = methods(api)?;
    w.line("public sealed partial class BurilClient");
    w.line("{");
    w.indent();
    for (index, method) in methods.iter().enumerate() {
        if index > 0 {
            w.blank();
        }
        let tool = &api.tools[method.tool];
        let input = identifier(&tool.input);
        let output = identifier(&tool.output);
        let name = identifier(&method.name);
        let input_optional = match api.types.get(&tool.input) {
            Some(TypeDef::Struct(def)) => def.fields.iter().all(|f| !f.required),
            _ => false,
        };
        let parameter = if input_optional {
            format!("{input} input = null")
        } else {
            format!("{input} input")
        };
        match &method.alias {
            None => {
                summary(w, Code(&tool.name), Some(&tool.description));
                w.line_fmt(format_args!(
                    "/// <param name=\"input\">The input{}.</param>",
                    if input_optional {
                        " (null sends <c>{}</c>)"
                    } else {
                        ""
                    }
                ));
                w.line("/// <returns>The tool's data.</returns>");
                w.line("/// <exception cref=\"BurilToolException\">The tool answered <c>ok: false</c> (see <see cref=\"BurilToolException.Type\"/>), or the answer could not be read.</exception>");
                w.line_fmt(format_args!("public {output} {name}({parameter})"));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!(
                    "return Call<{output}>({}, input);",
                    string_literal(&tool.name)
                ));
            }
            Some(alias) => {
                w.line_fmt(format_args!(
                    "/// <summary>Deprecated: {} is a former name of {}; call <see cref=\"{}\"/>.</summary>",
                    code(alias),
                    code(&tool.name),
                    identifier(&tool.pascal)
                ));
                w.line("/// <param name=\"input\">The input.</param>");
                w.line("/// <returns>The tool's data.</returns>");
                w.line_fmt(format_args!(
                    "[global::System.Obsolete({})]",
                    string_literal(&format!(
                        "`{alias}` was renamed: use {} (`{}`)",
                        tool.pascal, tool.name
                    ))
                ));
                w.line_fmt(format_args!("public {output} {name}({parameter})"));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!("return {}(input);", identifier(&tool.pascal)));
            }
        }
        w.dedent();
        w.line("}");
    }
    w.dedent();
    w.line("}");
    Ok(())
}
