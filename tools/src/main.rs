//! The `tools` binary: the command line (`list`, `describe`, `call`, `codegen`, `serve`,
//! `replay`) over every tool, working on the project folder named by `BURIL_PROJECT` (default:
//! `example-project` in the current folder), which is created with a sample project on first
//! use.

use std::cell::Cell;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

use buril::DispatcherBuilder;
use buril_team::Team;

use tools::Project;

/// The environment variable naming the project folder.
const PROJECT_VAR: &str = "BURIL_PROJECT";

/// The project folder used when the variable is not set, relative to the current folder.
const DEFAULT_PROJECT: &str = "example-project";

fn main() -> ExitCode {
    let root = std::env::var_os(PROJECT_VAR)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PROJECT));
    let project = match Project::open_or_create(&root) {
        Ok(project) => project,
        Err(error) => {
            eprintln!(
                "error: cannot open the project at {}: {error}\n\
                 set {PROJECT_VAR} to a project folder (one with an `Assets` folder), or to a \
                 missing or empty folder to create the sample project there",
                root.display()
            );
            return ExitCode::from(2);
        }
    };
    // The agent team (`agent_team_*` tools), with its traces in the project folder.
    let team = match tools::team::from_env(project.root()) {
        Ok(team) => team,
        Err(error) => {
            eprintln!("error: the agent team cannot be set up: {error}");
            return ExitCode::from(2);
        }
    };
    // One subcommand runs: the one that builds a dispatcher (`call`, `serve` or `replay`)
    // takes the project and the team.
    let project = Rc::new(Cell::new(Some((project, team))));
    let for_replay = Rc::clone(&project);
    buril::cli::Cli::new()
        .extend(buril_codegen::cli::extension())
        .extend(buril_team::cli::extension_with(move |dispatcher| {
            with_project(dispatcher, &for_replay)
        }))
        .configure(move |dispatcher| with_project(dispatcher, &project))
        .run()
}

/// Hands the dispatcher the project and the team, if no other command took them.
fn with_project(
    dispatcher: DispatcherBuilder,
    project: &Cell<Option<(Project, Team)>>,
) -> DispatcherBuilder {
    match project.take() {
        Some((project, team)) => dispatcher.state(project).state(team),
        None => dispatcher,
    }
}
