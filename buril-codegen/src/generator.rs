//! The builder: generate bindings from a registry, write only what changed, or check that
//! committed bindings are current.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::csharp::CSharp;
use crate::ir::{self, NormalizeError};
use crate::skills::Skills;
use crate::source::ToolSource;
use crate::typescript::TypeScript;
use crate::unity::{self, UnityPackage};
use crate::writer::{GeneratedFile, LanguageWriter, WriterError};

/// Generates bindings. From a build script of a crate that depends on the tool crates:
///
/// ```no_run
/// // build.rs
/// use my_tools as _; // link the tools, so that the registry holds them
///
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
///     buril_codegen::Generator::new()
///         .csharp(out.join("csharp"))
///         .typescript(out.join("typescript"))
///         .write()?;
///     Ok(())
/// }
/// # mod my_tools {}
/// ```
///
/// Only files whose contents changed are written, so builds are not retriggered.
#[derive(Debug, Clone, Default)]
pub struct Generator {
    sources: Option<Vec<ToolSource>>,
    csharp: Option<PathBuf>,
    typescript: Option<PathBuf>,
    skills: Option<PathBuf>,
    skills_command: Option<String>,
    other_server: bool,
    unity: Option<(PathBuf, UnityPackage)>,
}

/// Generated files: (absolute path, contents).
type Files = Vec<(PathBuf, String)>;

/// Types renamed: (the tools' name, the name written).
type Renamed = Vec<(String, String)>;

/// Why generation failed.
#[derive(Debug)]
pub enum Error {
    /// The schemas cannot be expressed.
    Normalize(NormalizeError),
    /// A writer refused (a name collision, say).
    Writer(WriterError),
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: io::Error,
    },
    /// Nothing to write: no output folder was set.
    NoOutput,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Normalize(error) => error.fmt(f),
            Error::Writer(error) => error.fmt(f),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Error::NoOutput => write!(
                f,
                "no output folder was set: call csharp(), typescript(), skills(), \
                 unity_package() or out_dir()"
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<NormalizeError> for Error {
    fn from(error: NormalizeError) -> Self {
        Error::Normalize(error)
    }
}

impl From<WriterError> for Error {
    fn from(error: WriterError) -> Self {
        Error::Writer(error)
    }
}

/// How a file on disk compares with what would be generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileState {
    /// Written (or, in a check, would be): it was missing.
    Created,
    /// Written (or would be): its contents differ.
    Changed,
    /// Already current.
    Unchanged,
    /// A file this generator wrote earlier that is no longer generated: removed (or would be).
    Removed,
}

/// What a [`Generator::write`] or [`Generator::check`] found, file by file, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every file considered.
    pub files: Vec<(PathBuf, FileState)>,
    /// What a generator of [another server's tools](Generator::other_server) typed as any JSON
    /// value, and why.
    pub notes: Vec<String>,
    /// The C# types written under another name, so as not to take one Unity editor scripts
    /// have already (`("Color", "ColorData")`), when C# was written.
    pub renamed: Vec<(String, String)>,
}

impl Report {
    /// The files that are not current.
    pub fn stale(&self) -> impl Iterator<Item = &Path> {
        self.files
            .iter()
            .filter(|(_, state)| *state != FileState::Unchanged)
            .map(|(path, _)| path.as_path())
    }

    /// Whether every file is current.
    pub fn is_current(&self) -> bool {
        self.stale().next().is_none()
    }

    /// How many files are in `state`.
    pub fn count(&self, state: FileState) -> usize {
        self.files.iter().filter(|(_, s)| *s == state).count()
    }
}

impl Generator {
    /// A generator over every tool in the binary ([`buril_core::registry`]).
    pub fn new() -> Self {
        Generator::default()
    }

    /// Generates from these tools instead of the binary's registry.
    pub fn sources(mut self, sources: Vec<ToolSource>) -> Self {
        self.sources = Some(sources);
        self
    }

    /// Generates from `registry`.
    pub fn registry(self, registry: &buril_core::Registry) -> Self {
        self.sources(ToolSource::from_registry(registry))
    }

    /// Writes C# into `dir`.
    pub fn csharp(mut self, dir: impl Into<PathBuf>) -> Self {
        self.csharp = Some(dir.into());
        self
    }

    /// Writes TypeScript into `dir`.
    pub fn typescript(mut self, dir: impl Into<PathBuf>) -> Self {
        self.typescript = Some(dir.into());
        self
    }

    /// Writes one skill folder per family into `dir`.
    pub fn skills(mut self, dir: impl Into<PathBuf>) -> Self {
        self.skills = Some(dir.into());
        self
    }

    /// The command skills tell agents to run (default `tools`).
    pub fn skills_command(mut self, command: impl Into<String>) -> Self {
        self.skills_command = Some(command.into());
        self
    }

    /// The tools are another MCP server's than buril's (`codegen --from-server`): what no
    /// writer can express in their schemas (less tidy than buril's) is typed as any JSON value,
    /// saying why in the report's notes, instead of failing; and the clients read that
    /// server's answers as buril's hub reads them (content blocks as `{"content": [...]}`,
    /// `isError` as a `tool` failure), since it sends no envelope of buril's.
    pub fn other_server(mut self, other: bool) -> Self {
        self.other_server = other;
        self
    }

    /// Writes the C# bindings as a Unity package into `dir` (`package.json`, an Editor-only
    /// assembly, `.meta` files whose GUIDs do not change between runs, the connection that
    /// lives through domain reloads, a sample window): what Unity's Package Manager installs
    /// from a folder or a git URL. The plain C# files ([`csharp`](Self::csharp)) stay for
    /// other C# hosts.
    ///
    /// ```no_run
    /// let package = buril_codegen::UnityPackage::new("com.example.tools")?.version("1.0.0")?;
    /// buril_codegen::Generator::new()
    ///     .unity_package("bindings/unity", package)
    ///     .write()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn unity_package(mut self, dir: impl Into<PathBuf>, package: UnityPackage) -> Self {
        self.unity = Some((dir.into(), package));
        self
    }

    /// Writes everything under `dir`: `dir/csharp`, `dir/typescript` and `dir/skills`.
    pub fn out_dir(self, dir: impl AsRef<Path>) -> Self {
        let dir = dir.as_ref();
        self.csharp(dir.join("csharp"))
            .typescript(dir.join("typescript"))
            .skills(dir.join("skills"))
    }

    /// The files, in memory: (absolute path, contents), sorted by path.
    pub fn generate(&self) -> Result<Vec<(PathBuf, String)>, Error> {
        self.generate_noting().map(|(files, _, _)| files)
    }

    /// The files, the notes of a generator of another server's tools, and the C# types
    /// renamed.
    fn generate_noting(&self) -> Result<(Files, Vec<String>, Renamed), Error> {
        let from_registry;
        let sources = match &self.sources {
            Some(sources) => sources.as_slice(),
            None => {
                from_registry = ToolSource::from_registry(buril_core::registry());
                from_registry.as_slice()
            }
        };
        let mut notes = Vec::new();
        let api = ir::normalize_noting(sources, self.other_server.then_some(&mut notes))?;

        let skills = Skills::with_command(
            self.skills_command
                .clone()
                .unwrap_or_else(|| "tools".into()),
        );
        let targets: [(&Option<PathBuf>, &dyn LanguageWriter); 3] = [
            (&self.csharp, &CSharp),
            (&self.typescript, &TypeScript),
            (&self.skills, &skills),
        ];
        let mut files = Vec::new();
        let mut any = false;
        for (dir, writer) in targets {
            let Some(dir) = dir else { continue };
            any = true;
            for GeneratedFile { path, contents } in writer.write(&api)? {
                // Writers name files under their language folder (`csharp/X.cs`).
                let relative = path.split_once('/').map_or(path.as_str(), |(_, rest)| rest);
                files.push((dir.join(relative), contents));
            }
        }
        if let Some((dir, package)) = &self.unity {
            any = true;
            for GeneratedFile { path, contents } in unity::write(&api, package)? {
                files.push((dir.join(path), contents));
            }
        }
        if !any {
            return Err(Error::NoOutput);
        }
        files.sort();
        let renamed = if self.csharp.is_some() || self.unity.is_some() {
            crate::csharp::renamed_types(&api)
        } else {
            Vec::new()
        };
        Ok((files, notes, renamed))
    }

    /// Writes the files whose contents changed, and removes files this generator wrote earlier
    /// that are no longer generated. Other files in the folders are left alone.
    pub fn write(&self) -> Result<Report, Error> {
        self.apply(true)
    }

    /// Compares the folders with what would be generated, writing nothing.
    pub fn check(&self) -> Result<Report, Error> {
        self.apply(false)
    }

    fn apply(&self, write: bool) -> Result<Report, Error> {
        let (files, notes, renamed) = self.generate_noting()?;
        let mut report = Report {
            notes,
            renamed,
            ..Report::default()
        };
        for (path, contents) in &files {
            let state = match fs::read(path) {
                Ok(existing) if existing == contents.as_bytes() => FileState::Unchanged,
                Ok(_) => FileState::Changed,
                Err(error) if error.kind() == io::ErrorKind::NotFound => FileState::Created,
                Err(error) => {
                    return Err(Error::Io {
                        path: path.clone(),
                        error,
                    });
                }
            };
            if write && state != FileState::Unchanged {
                write_file(path, contents)?;
            }
            report.files.push((path.clone(), state));
        }
        let package_dir = self.unity.as_ref().map(|(dir, _)| dir.clone());
        for dir in [&self.csharp, &self.typescript, &self.skills, &package_dir]
            .into_iter()
            .flatten()
        {
            let mut found = generated_files_in(dir)?;
            // A package's files without a header (`.meta`, JSON) are in its listing.
            if Some(dir) == package_dir.as_ref() {
                found.extend(listed_in_package(dir)?);
                found.sort();
                found.dedup();
            }
            for stale in found {
                if !files.iter().any(|(path, _)| *path == stale) {
                    if write {
                        fs::remove_file(&stale).map_err(|error| Error::Io {
                            path: stale.clone(),
                            error,
                        })?;
                    }
                    report.files.push((stale, FileState::Removed));
                }
            }
        }
        report.files.sort();
        Ok(report)
    }
}

fn write_file(path: &Path, contents: &str) -> Result<(), Error> {
    let io_error = |error| Error::Io {
        path: path.to_owned(),
        error,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io_error)?;
    }
    // Write beside, then rename: a reader never sees half a file.
    let temporary = path.with_extension("buril-tmp");
    fs::write(&temporary, contents).map_err(io_error)?;
    fs::rename(&temporary, path).map_err(io_error)
}

/// The files a package's listing names (those an earlier run wrote), that exist.
fn listed_in_package(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let manifest = dir.join(unity::MANIFEST);
    let text = match fs::read_to_string(&manifest) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => {
            return Err(Error::Io {
                path: manifest,
                error,
            });
        }
    };
    Ok(unity::listed(&text)
        // Only paths inside the package: a listing edited by hand cannot reach elsewhere.
        .filter(|path| {
            Path::new(path)
                .components()
                .all(|part| matches!(part, std::path::Component::Normal(_)))
        })
        .map(|path| dir.join(path))
        .filter(|path| path.is_file())
        .collect())
}

/// Files under `dir` that carry this generator's header.
fn generated_files_in(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(folder) = pending.pop() {
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => {
                return Err(Error::Io {
                    path: folder,
                    error,
                });
            }
        };
        for entry in entries {
            let entry = entry.map_err(|error| Error::Io {
                path: folder.clone(),
                error,
            })?;
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if is_generated(&path) {
                found.push(path);
            }
        }
    }
    Ok(found)
}

fn is_generated(path: &Path) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    text.lines()
        .take(12)
        .any(|line| line.contains("Generated by buril-codegen"))
}
