//! `Buril.Client.cs`: the typed methods of `BurilClient`, a blocking `{Tool}` and a
//! `{Tool}Async` per tool (and a `Start{Tool}Async` per task tool) and per deprecated alias (marked `[Obsolete]`, calling the tool by its
//! current name), as the plan names them, and the bindings' `MetadataHash`.

use super::doc::{Code, code, summary};
use super::identifiers::identifier;
use super::literal::string_literal;
use super::plan::CSharpPlan;
use crate::ir::{Api, TypeDef};
use crate::writer::SourceWriter;

/// Writes the client's typed methods.
pub(crate) fn write_client(w: &mut SourceWriter, api: &Api, plan: &CSharpPlan<'_>) {
    w.line("public sealed partial class BurilClient");
    w.line("{");
    w.indent();
    w.line("/// <summary>");
    w.line("/// The hash of the tool metadata these bindings were generated from (the files' header says");
    w.line("/// it too). Sent with every call; a server with other metadata warns, and answers with its own");
    w.line("/// (<see cref=\"ServerVersion\"/>).");
    w.line("/// </summary>");
    w.line_fmt(format_args!(
        "public const string MetadataHash = {};",
        string_literal(&api.hash)
    ));
    for method in &plan.methods {
        w.blank();
        let tool = method.tool;
        let meta = &tool.meta;
        let input = identifier(&tool.input_type);
        let output = identifier(&tool.output_type);
        let name = identifier(&method.name);
        let input_optional = match api.types.get(&tool.input_type) {
            Some(TypeDef::Struct(def)) => def.fields.iter().all(|f| !f.required),
            _ => false,
        };
        let (parameter, async_parameters) = if input_optional {
            (
                format!("{input} input = null"),
                format!("{input} input = null, BurilCallOptions options = null"),
            )
        } else {
            (
                format!("{input} input"),
                format!("{input} input, BurilCallOptions options = null"),
            )
        };
        let input_doc = format!(
            "/// <param name=\"input\">The input{}.</param>",
            if input_optional {
                " (null sends <c>{}</c>)"
            } else {
                ""
            }
        );
        let task = format!("global::System.Threading.Tasks.Task<{output}>");
        match method.alias {
            None => {
                let wire = string_literal(&meta.name);
                let hash = string_literal(&tool.metadata_hash());
                summary(w, Code(&meta.name), Some(&meta.description));
                w.line(&input_doc);
                w.line("/// <returns>The tool's data.</returns>");
                w.line("/// <exception cref=\"ToolValidationException\">The tool refused the input, with every problem.</exception>");
                w.line("/// <exception cref=\"BurilToolException\">The tool answered <c>ok: false</c> (see <see cref=\"BurilToolException.Type\"/>), or the answer could not be read.</exception>");
                w.line("/// <exception cref=\"BurilTransportException\">No answer came back.</exception>");
                w.line_fmt(format_args!("public {output} {name}({parameter})"));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!(
                    "return invoke<{output}>({wire}, {hash}, input);"
                ));
                w.dedent();
                w.line("}");
                w.blank();
                summary(w, Code(&meta.name), Some(&meta.description));
                w.line_fmt(format_args!(
                    "/// <remarks>Without blocking: <c>await</c> it (from Unity's main thread too); the blocking form is <see cref=\"{name}\"/>.</remarks>"
                ));
                w.line(&input_doc);
                w.line("/// <param name=\"options\">A timeout, cancellation and progress (may be null).</param>");
                w.line("/// <returns>A task ending with the tool's data, or failing as the blocking form throws.</returns>");
                w.line_fmt(format_args!(
                    "public {task} {name}Async({async_parameters})"
                ));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!(
                    "return invokeAsync<{output}>({wire}, {hash}, input, options);"
                ));
                if meta.task.is_task() {
                    w.dedent();
                    w.line("}");
                    w.blank();
                    summary(w, Code(&meta.name), Some(&meta.description));
                    w.line_fmt(format_args!(
                        "/// <remarks>Starts it as a task (it is a task tool): follow it with the handle's <c>WaitAsync</c>, <c>PollAsync</c> and <c>CancelAsync</c>. The transport must be an <see cref=\"IBurilRequestTransport\"/>; <see cref=\"{name}Async\"/> waits for the work instead.</remarks>"
                    ));
                    w.line(&input_doc);
                    w.line("/// <param name=\"token\">Gives up starting it.</param>");
                    w.line("/// <returns>The task, once the server stored it.</returns>");
                    let optional = if input_optional { " = null" } else { "" };
                    w.line_fmt(format_args!(
                        "public global::System.Threading.Tasks.Task<BurilTask<{output}>> Start{name}Async({input} input{optional}, global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken))"
                    ));
                    w.line("{");
                    w.indent();
                    w.line_fmt(format_args!(
                        "return startTaskAsync<{output}>({wire}, {hash}, input, token);"
                    ));
                }
            }
            Some(alias) => {
                let current = identifier(&tool.pascal);
                let obsolete = format!(
                    "[global::System.Obsolete({})]",
                    string_literal(&format!(
                        "`{alias}` was renamed: use {} (`{}`)",
                        tool.pascal, meta.name
                    ))
                );
                w.line_fmt(format_args!(
                    "/// <summary>Deprecated: {} is a former name of {}; call <see cref=\"{current}\"/>.</summary>",
                    code(alias),
                    code(&meta.name),
                ));
                w.line("/// <param name=\"input\">The input.</param>");
                w.line("/// <returns>The tool's data.</returns>");
                w.line(&obsolete);
                w.line_fmt(format_args!("public {output} {name}({parameter})"));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!("return {current}(input);"));
                w.dedent();
                w.line("}");
                w.blank();
                w.line_fmt(format_args!(
                    "/// <summary>Deprecated: {} is a former name of {}; call <see cref=\"{current}Async\"/>.</summary>",
                    code(alias),
                    code(&meta.name),
                ));
                w.line("/// <param name=\"input\">The input.</param>");
                w.line("/// <param name=\"options\">A timeout, cancellation and progress (may be null).</param>");
                w.line("/// <returns>A task ending with the tool's data.</returns>");
                w.line(&obsolete);
                w.line_fmt(format_args!(
                    "public {task} {name}Async({async_parameters})"
                ));
                w.line("{");
                w.indent();
                w.line_fmt(format_args!("return {current}Async(input, options);"));
            }
        }
        w.dedent();
        w.line("}");
    }
    w.dedent();
    w.line("}");
}
