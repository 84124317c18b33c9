//! Bindings for anyone's MCP server (`codegen --from-server URL`, `--from-command CMD …`, feature
//! `hub`): its tools listed through buril's hub, read as the generator's sources, their
//! schemas typed leniently (what cannot be typed is any JSON value, with a note).

use std::time::Duration;

use buril_mcp::hub::{External, list_tools};
use clap::ArgMatches;

use crate::source::ToolSource;

/// How long the server may take to start and list its tools.
const LISTING: Duration = Duration::from_secs(60);

/// The sources the flags ask for: `None` when neither `--from-server` nor `--from-command` is
/// given (the binary's own tools then).
pub(crate) fn sources(matches: &ArgMatches) -> Result<Option<Vec<ToolSource>>, String> {
    let family = matches
        .get_one::<String>("server-name")
        .cloned()
        .unwrap_or_else(|| "server".to_owned());
    let external = if let Some(url) = matches.get_one::<String>("from-server") {
        External::url(&family, url)
    } else if let Some(mut words) = matches.get_many::<String>("from-command") {
        let command = words.next().ok_or("--from-command needs a command")?;
        External::command(&family, command, words)
    } else {
        return Ok(None);
    };
    let listed = list_tools(&external, LISTING).map_err(|error| error.to_string())?;
    Ok(Some(
        listed
            .into_iter()
            .map(|tool| {
                let mut source = ToolSource::new(tool.name, tool.input_schema, tool.output_schema);
                source.meta.family = family.clone().into();
                source.meta.description = tool.description.into();
                source.meta.annotations = tool.annotations;
                source
            })
            .collect(),
    ))
}
