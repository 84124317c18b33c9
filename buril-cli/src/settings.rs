//! `settings`: shows the server's config file, or changes it (a running server reloads it).

use std::io::{self, Write};
use std::process::ExitCode;

use super::args::SettingsArgs;
use buril_core::Registry;
use buril_mcp::server::DEFAULT_CONFIG_FILE;
use buril_mcp::server::config_edit::{self, Change, View};

pub(crate) fn settings(
    registry: &Registry,
    args: SettingsArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let changes = match changes(&args) {
        Ok(changes) => changes,
        Err(error) => {
            writeln!(err, "error: {error}")?;
            return Ok(ExitCode::from(2));
        }
    };
    let path = args
        .config
        .clone()
        .unwrap_or_else(|| DEFAULT_CONFIG_FILE.into());
    let view = match config_edit::change(&path, &changes, registry) {
        Ok(view) => view,
        Err(error) => {
            writeln!(err, "error: {error}")?;
            return Ok(ExitCode::from(2));
        }
    };
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?;
    } else {
        write_text(&view, out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The changes the flags ask for, in a fixed order: the switch, rules taken out, rules added,
/// external servers, timeouts.
fn changes(args: &SettingsArgs) -> Result<Vec<Change>, String> {
    let mut changes = Vec::new();
    if let Some(allow) = args.allow_dangerous {
        changes.push(Change::AllowDangerous { allow });
    }
    changes.extend(
        args.reset
            .iter()
            .map(|rule| Change::Reset { rule: rule.clone() }),
    );
    changes.extend(
        args.enable
            .iter()
            .map(|rule| Change::Enable { rule: rule.clone() }),
    );
    changes.extend(
        args.disable
            .iter()
            .map(|rule| Change::Disable { rule: rule.clone() }),
    );
    for pair in &args.external_tools {
        let (server, switch) = split(pair, "--external-tools", "NAME=on")?;
        let enable = match switch {
            "on" | "true" => true,
            "off" | "false" => false,
            other => {
                return Err(format!(
                    "--external-tools {pair}: `{other}` is not `on` or `off`"
                ));
            }
        };
        changes.push(Change::External {
            server: server.to_owned(),
            enable,
        });
    }
    if let Some(timeout) = &args.timeout {
        changes.push(Change::Timeout {
            seconds: seconds(timeout, "--timeout")?,
        });
    }
    for pair in &args.tool_timeout {
        let (tool, value) = split(pair, "--tool-timeout", "NAME=SECONDS")?;
        changes.push(Change::ToolTimeout {
            tool: tool.to_owned(),
            seconds: seconds(value, "--tool-timeout")?,
        });
    }
    Ok(changes)
}

fn split<'a>(pair: &'a str, flag: &str, form: &str) -> Result<(&'a str, &'a str), String> {
    pair.split_once('=')
        .filter(|(name, _)| !name.trim().is_empty())
        .map(|(name, value)| (name.trim(), value.trim()))
        .ok_or_else(|| format!("{flag} {pair}: write it `{form}`"))
}

/// Seconds, or `default` (`None`): a positive number.
fn seconds(value: &str, flag: &str) -> Result<Option<f64>, String> {
    if value == "default" {
        return Ok(None);
    }
    match value.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds.is_finite() => Ok(Some(seconds)),
        _ => Err(format!(
            "{flag}: `{value}` is not a positive number of seconds or `default`"
        )),
    }
}

fn write_text(view: &View, out: &mut dyn Write) -> io::Result<()> {
    let list = |rules: &[String]| {
        if rules.is_empty() {
            "(none)".to_owned()
        } else {
            rules.join(", ")
        }
    };
    let missing = if view.exists {
        ""
    } else {
        " (missing: the defaults)"
    };
    writeln!(out, "config:          {}{missing}", view.config.display())?;
    writeln!(
        out,
        "dangerous tools: {}",
        if view.allow_dangerous {
            "all on (allow_dangerous)"
        } else {
            "off unless a rule enables them"
        }
    )?;
    writeln!(out, "enable:          {}", list(&view.enable))?;
    writeln!(out, "disable:         {}", list(&view.disable))?;
    match view.timeout {
        Some(seconds) => writeln!(out, "timeout:         {seconds} s")?,
        None => writeln!(out, "timeout:         the server's default")?,
    }
    if !view.timeouts.is_empty() {
        writeln!(out, "timeouts:")?;
        for (tool, seconds) in &view.timeouts {
            writeln!(out, "  {tool}: {seconds} s")?;
        }
    }
    if !view.externals.is_empty() {
        writeln!(out, "external servers:")?;
        for external in &view.externals {
            let state = if external.enabled { "on" } else { "off" };
            writeln!(
                out,
                "  {} (tools {}*): {state}",
                external.name, external.prefix
            )?;
        }
    }
    let dangerous_on: Vec<&str> = view
        .tools
        .iter()
        .filter(|tool| tool.dangerous && tool.enabled)
        .map(|tool| tool.name.as_str())
        .collect();
    if !dangerous_on.is_empty() {
        writeln!(out, "dangerous tools on: {}", dangerous_on.join(", "))?;
    }
    let off: Vec<_> = view.tools.iter().filter(|tool| !tool.enabled).collect();
    if off.is_empty() {
        writeln!(out, "every tool is on")?;
    } else {
        writeln!(out, "tools off ({} of {}):", off.len(), view.tools.len())?;
        for tool in off {
            let mark = if tool.dangerous { " [dangerous]" } else { "" };
            writeln!(out, "  {}{mark}", tool.name)?;
        }
    }
    Ok(())
}
