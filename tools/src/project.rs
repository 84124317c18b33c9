//! The project: a folder on disk (`Assets/`, `Library/`, `ProjectSettings/`) and the editor's
//! state in memory.
//!
//! Tools reach it through the call's context: `ctx.state::<Project>()?`.

pub(crate) mod console;
pub(crate) mod editor;
pub(crate) mod files;
pub(crate) mod glob;
pub(crate) mod meta;
pub(crate) mod paths;
pub(crate) mod scene;
mod seed;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use buril::ToolError;
use serde::{Deserialize, Serialize};

use self::console::{CONSOLE_LOG, LogContents, LogEntry, LogLevel};
use self::editor::{EditorState, OpenScene};
use self::files::Entry;
use self::scene::Scene;

/// Where the open scenes are remembered between runs, relative to the project folder.
pub const SESSION_FILE: &str = "Library/EditorSession.json";

/// An editor-like project: the files of a project folder and the editor state (open scenes
/// with unsaved changes, the active scene, play mode, the selection).
///
/// ```no_run
/// let project = tools::Project::open_or_create("example-project")?;
/// let dispatcher = buril::Dispatcher::builder().state(project).build();
/// let envelope = dispatcher
///     .invoke("scene_list", serde_json::json!({}), buril::CallOptions::default())
///     .into_envelope();
/// assert_eq!(envelope["ok"], true);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Project {
    root: PathBuf,
    editor: Mutex<EditorState>,
    console: Mutex<()>,
}

/// The part of the editor state kept in [`SESSION_FILE`].
#[derive(Debug, Default, Serialize, Deserialize)]
struct Session {
    #[serde(default)]
    open_scenes: Vec<String>,
    #[serde(default)]
    active_scene: Option<String>,
}

impl Project {
    /// Opens the project in `root`, a folder with an `Assets/` folder, and reopens the scenes
    /// that were open when it was last used. Unsaved changes are not kept between runs.
    pub fn open(root: impl AsRef<Path>) -> io::Result<Project> {
        let given = root.as_ref();
        let metadata = fs::metadata(given).map_err(|error| {
            io::Error::new(
                error.kind(),
                format!(
                    "the project folder {} cannot be read: {error}",
                    given.display()
                ),
            )
        })?;
        if !metadata.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a folder", given.display()),
            ));
        }
        if !given.join(paths::ASSETS).is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a project folder: it has no `Assets` folder",
                    given.display()
                ),
            ));
        }
        let root = fs::canonicalize(given)?;
        fs::create_dir_all(root.join("Library"))?;
        let project = Project {
            root,
            editor: Mutex::new(EditorState::default()),
            console: Mutex::new(()),
        };
        project.restore_session();
        Ok(project)
    }

    /// Opens the project in `root`; when `root` does not exist or is an empty folder, first
    /// writes the sample project there: a `Main` scene with a camera, a light, a ground plane
    /// and a player, two materials, two prefabs and three scripts.
    pub fn open_or_create(root: impl AsRef<Path>) -> io::Result<Project> {
        let root = root.as_ref();
        if seed::is_vacant(root)? {
            seed::write(root)?;
        }
        Project::open(root)
    }

    /// The project folder (absolute, symbolic links resolved).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The editor state, locked.
    pub(crate) fn editor(&self) -> MutexGuard<'_, EditorState> {
        self.editor.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The absolute path of a checked project-relative path (see [`paths::normalize`]). Fails
    /// when a symbolic link would lead outside the project folder.
    pub(crate) fn file(&self, relative: &str) -> Result<PathBuf, ToolError> {
        let path = self.root.join(relative);
        let mut probe = path.as_path();
        loop {
            if let Ok(real) = fs::canonicalize(probe) {
                if real.starts_with(&self.root) {
                    return Ok(path);
                }
                return Err(ToolError::invalid(format!(
                    "`{relative}` leads outside the project folder through a symbolic link"
                )));
            }
            match probe.parent() {
                Some(parent) => probe = parent,
                None => return Ok(path),
            }
        }
    }

    /// Every file and folder under the project-relative `folder`, sorted.
    pub(crate) fn walk(&self, folder: &str, recursive: bool) -> Result<Vec<Entry>, ToolError> {
        let absolute = self.file(folder)?;
        if !absolute.is_dir() {
            return Err(ToolError::invalid(format!(
                "`{folder}` is not a folder; asset_list with no folder lists `Assets`"
            )));
        }
        Ok(files::walk(&self.root, folder, recursive)?)
    }

    /// Writes a project file in one step; returns its size.
    pub(crate) fn write(&self, relative: &str, contents: &[u8]) -> Result<u64, ToolError> {
        files::write_atomic(&self.file(relative)?, contents)?;
        Ok(contents.len() as u64)
    }

    /// Reads and checks a scene file.
    pub(crate) fn load_scene(&self, relative: &str) -> Result<Scene, ToolError> {
        let file = self.file(relative)?;
        if !file.is_file() {
            return Err(ToolError::invalid(format!(
                "no scene file at `{relative}`; scene_list lists the scene files"
            )));
        }
        Scene::parse(&fs::read_to_string(file)?, relative)
    }

    /// Appends a message to the console log.
    pub(crate) fn log(
        &self,
        level: LogLevel,
        message: impl Into<String>,
        stack_trace: Option<String>,
    ) -> Result<LogEntry, ToolError> {
        let entry = LogEntry::now(level, message, stack_trace);
        let _guard = self.console.lock().unwrap_or_else(PoisonError::into_inner);
        console::append(&self.root.join(CONSOLE_LOG), &entry)?;
        Ok(entry)
    }

    /// Every console message.
    pub(crate) fn read_log(&self) -> Result<LogContents, ToolError> {
        let _guard = self.console.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(console::read(&self.root.join(CONSOLE_LOG))?)
    }

    /// Empties the console log and returns what it held.
    pub(crate) fn clear_log(&self) -> Result<LogContents, ToolError> {
        let _guard = self.console.lock().unwrap_or_else(PoisonError::into_inner);
        let file = self.root.join(CONSOLE_LOG);
        let contents = console::read(&file)?;
        console::clear(&file)?;
        Ok(contents)
    }

    /// Remembers which scenes are open, for the next run.
    pub(crate) fn save_session(&self, editor: &EditorState) -> Result<(), ToolError> {
        let session = Session {
            open_scenes: editor.scenes.iter().map(|s| s.path.clone()).collect(),
            active_scene: editor.active_path().map(str::to_owned),
        };
        let mut text = serde_json::to_string_pretty(&session)?;
        text.push('\n');
        self.write(SESSION_FILE, text.as_bytes())?;
        Ok(())
    }

    /// Reopens the scenes of the last run. A scene that cannot be reopened is reported on the
    /// console and skipped.
    fn restore_session(&self) {
        let Ok(text) = fs::read_to_string(self.root.join(SESSION_FILE)) else {
            return;
        };
        let session: Session = match serde_json::from_str(&text) {
            Ok(session) => session,
            Err(error) => {
                let message = format!("{SESSION_FILE} is unreadable and was ignored: {error}");
                let _ = self.log(LogLevel::Warning, message, None);
                return;
            }
        };
        let mut editor = self.editor();
        for path in &session.open_scenes {
            let loaded = paths::asset(path, "open_scenes").and_then(|path| {
                let scene = self.load_scene(&path)?;
                Ok(OpenScene {
                    path,
                    scene,
                    dirty: false,
                })
            });
            match loaded {
                Ok(open) if editor.by_path(&open.path).is_none() => editor.scenes.push(open),
                Ok(_) => {}
                Err(error) => {
                    let message = format!("the scene {path} could not be reopened: {error}");
                    let _ = self.log(LogLevel::Warning, message, None);
                }
            }
        }
        let active = session
            .active_scene
            .filter(|active| editor.by_path(active).is_some());
        editor.active = active;
    }
}
