//! The readable report: per crate, its cycles, the files in each and the steps between them.

use std::fmt;
use std::path::Path;

use crate::check::CrateCheck;
use crate::workspace::WorkspaceCheck;

impl fmt::Display for WorkspaceCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cycles: usize = self.crates.iter().map(|check| check.cycles.len()).sum();
        let crates = self
            .crates
            .iter()
            .filter(|check| !check.cycles.is_empty())
            .count();
        writeln!(
            f,
            "import cycles in the workspace at {}: {cycles} in {crates} of {} crates",
            self.root.display(),
            self.crates.len()
        )?;
        for check in &self.crates {
            write_crate(f, check, &self.root)?;
        }
        Ok(())
    }
}

impl fmt::Display for CrateCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_crate(f, self, Path::new(""))
    }
}

fn write_crate(f: &mut fmt::Formatter<'_>, check: &CrateCheck, base: &Path) -> fmt::Result {
    let shown = |path: &Path| {
        path.strip_prefix(base)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let count = match check.cycles.len() {
        0 => "no cycle".to_owned(),
        n => counted(n, "cycle"),
    };
    writeln!(
        f,
        "\n{}: {}, {}, {count}",
        shown(&check.root),
        counted(check.files.len(), "file"),
        counted(check.edges.len(), "edge")
    )?;
    for edge in &check.allowed {
        writeln!(
            f,
            "  allowed: {}:{} -> {}  via `{}`",
            shown(&edge.from),
            edge.line,
            shown(&edge.to),
            edge.path
        )?;
    }
    for cycle in &check.within_folders {
        let files: Vec<String> = cycle.files.iter().map(|file| shown(file)).collect();
        writeln!(f, "  within one folder: {}", files.join(", "))?;
    }
    for (n, cycle) in check.cycles.iter().enumerate() {
        writeln!(
            f,
            "  cycle {}: {}",
            n + 1,
            counted(cycle.files.len(), "file")
        )?;
        for file in &cycle.files {
            writeln!(f, "    {}", shown(file))?;
        }
        writeln!(
            f,
            "    steps (file:line of the first path that makes it -> the file it names):"
        )?;
        for step in &cycle.steps {
            let edge = &step.edge;
            write!(
                f,
                "      {}:{} -> {}  via `{}`",
                shown(&edge.from),
                edge.line,
                shown(&edge.to),
                edge.path
            )?;
            if !step.also.is_empty() {
                let lines: Vec<String> = step.also.iter().map(usize::to_string).collect();
                write!(f, " (also lines {})", lines.join(", "))?;
            }
            writeln!(f)?;
        }
    }
    Ok(())
}

/// `1 file`, `2 files`.
fn counted(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}
