//! The `tools` binary: the command line (`list`, `describe`, `call`, `codegen`) over every
//! tool, working on the project folder named by `BURIL_PROJECT` (default: `example-project` in
//! the current folder), which is created with a sample project on first use.

use std::path::PathBuf;
use std::process::ExitCode;

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
    buril::cli::Cli::new()
        .extend(buril_codegen::cli::extension())
        .configure(move |dispatcher| dispatcher.state(project))
        .run()
}
