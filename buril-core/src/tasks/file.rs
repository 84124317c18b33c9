//! Tasks in files: one JSON file per task in a folder (the project's `.buril/tasks` for the
//! CLI), changed under an exclusive lock of the folder, so that the processes of one machine
//! share them: `tools call --detach` in one, `tools jobs wait` in another.

use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::clock::now_ms;
use super::record::TaskRecord;
use super::store::{Change, StoreError, StoreFuture, TaskStore, sweep};

/// Tasks as files of a folder. Every change takes the folder's lock (`.lock`, an advisory
/// lock of the operating system, released when the process dies), reads the task's file,
/// and replaces it whole (written beside it, then renamed over it), so that a reader never
/// sees half a record and no change is lost between processes.
pub struct FileStore {
    dir: PathBuf,
    capacity: usize,
    /// Whether the folder has existed: one removed afterwards is not made again (a task of a
    /// project that was deleted has nobody left to follow it).
    existed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl FileStore {
    /// The store in `dir`, made when the first task is stored; at most 10,000 tasks.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        if dir.exists() && !dir.is_dir() {
            return Err(StoreError::Unavailable(format!(
                "{} is not a folder",
                dir.display()
            )));
        }
        let existed = dir.is_dir();
        Ok(FileStore {
            dir,
            capacity: 10_000,
            existed: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(existed)),
        })
    }

    /// At most `capacity` tasks; a new one past it is refused ([`StoreError::Full`]).
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        // A handle is letters, digits, `_` and `-`: nothing else reaches the file system.
        if id.is_empty()
            || !id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(StoreError::Unavailable(format!(
                "`{id}` is not a task handle"
            )));
        }
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// The folder's lock, held until the guard is dropped.
    fn lock(&self) -> Result<File, StoreError> {
        use std::sync::atomic::Ordering;
        if !self.dir.is_dir() {
            if self.existed.load(Ordering::Acquire) {
                return Err(StoreError::Unavailable(format!(
                    "the task folder {} was removed",
                    self.dir.display()
                )));
            }
            fs::create_dir_all(&self.dir)
                .map_err(|error| unavailable(&self.dir, "create", &error))?;
            self.existed.store(true, Ordering::Release);
        }
        let path = self.dir.join(".lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|error| unavailable(&path, "open", &error))?;
        file.lock()
            .map_err(|error| unavailable(&path, "lock", &error))?;
        Ok(file)
    }

    fn read(&self, path: &Path) -> Result<Option<TaskRecord>, StoreError> {
        match fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|error| {
                StoreError::Unavailable(format!("{} is not a task record: {error}", path.display()))
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(unavailable(path, "read", &error)),
        }
    }

    fn write(&self, path: &Path, record: &TaskRecord) -> Result<(), StoreError> {
        let staged = path.with_extension("json.new");
        let text = serde_json::to_vec(record)
            .map_err(|error| StoreError::Unavailable(format!("cannot write a record: {error}")))?;
        let mut file =
            File::create(&staged).map_err(|error| unavailable(&staged, "create", &error))?;
        let written = file
            .write_all(&text)
            .and_then(|()| file.sync_data())
            .map_err(|error| unavailable(&staged, "write", &error))
            .and_then(|()| {
                fs::rename(&staged, path).map_err(|error| unavailable(path, "replace", &error))
            });
        if written.is_err() {
            // A record cut short (a full disk) is not left beside the one it was to replace.
            let _ = fs::remove_file(&staged);
        }
        written
    }

    fn all(&self) -> Result<HashMap<String, TaskRecord>, StoreError> {
        let mut records = HashMap::new();
        let entries =
            fs::read_dir(&self.dir).map_err(|error| unavailable(&self.dir, "list", &error))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            if let Some(record) = self.read(&path)? {
                records.insert(record.id.clone(), record);
            }
        }
        Ok(records)
    }

    /// Applies the sweep's rule to the files: tombstones for what expired, nothing for what
    /// expired an hour ago. Under the lock.
    fn sweep(&self) -> Result<HashMap<String, TaskRecord>, StoreError> {
        let before = self.all()?;
        let mut after = before.clone();
        sweep(&mut after, now_ms());
        for (id, record) in &before {
            let path = self.path(id)?;
            match after.get(id) {
                None => {
                    let _ = fs::remove_file(&path);
                }
                Some(kept) if kept != record => self.write(&path, kept)?,
                Some(_) => {}
            }
        }
        Ok(after)
    }
}

impl fmt::Debug for FileStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileStore").field("dir", &self.dir).finish()
    }
}

fn unavailable(path: &Path, doing: &str, error: &io::Error) -> StoreError {
    let why = format!("cannot {doing} {}: {error}", path.display());
    // No space left, a file larger than allowed (`RLIMIT_FSIZE`), a quota reached.
    if matches!(error.raw_os_error(), Some(28 | 27 | 122)) {
        StoreError::Full(why)
    } else {
        StoreError::Unavailable(why)
    }
}

/// Runs file work where it may block: a blocking thread under a Tokio runtime, else here.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle
            .spawn_blocking(work)
            .await
            .map_err(|error| StoreError::Unavailable(format!("the file work stopped: {error}")))?,
        Err(_) => work(),
    }
}

impl FileStore {
    fn shared(&self) -> FileStore {
        FileStore {
            dir: self.dir.clone(),
            capacity: self.capacity,
            existed: std::sync::Arc::clone(&self.existed),
        }
    }
}

impl TaskStore for FileStore {
    fn kind(&self) -> &'static str {
        "file"
    }

    fn create<'a>(&'a self, record: &'a TaskRecord) -> StoreFuture<'a, ()> {
        let store = self.shared();
        let record = record.clone();
        Box::pin(blocking(move || {
            let path = store.path(&record.id)?;
            let _lock = store.lock()?;
            if path.exists() {
                return Err(StoreError::Exists(record.id.clone()));
            }
            let count = fs::read_dir(&store.dir)
                .map(|entries| entries.flatten().count())
                .unwrap_or(0);
            if count > store.capacity && store.sweep()?.len() >= store.capacity {
                return Err(StoreError::Full(format!(
                    "{} holds {} tasks, the most it keeps; they are forgotten as their TTLs pass",
                    store.dir.display(),
                    store.capacity
                )));
            }
            store.write(&path, &record)
        }))
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let store = self.shared();
        let id = id.to_owned();
        Box::pin(blocking(move || {
            let path = store.path(&id)?;
            store.read(&path)
        }))
    }

    fn modify<'a>(
        &'a self,
        id: &'a str,
        change: Change<'a>,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        // The change borrows from the caller, so it runs on this thread, under the lock (handed
        // over from the runtime's other tasks first: the lock may be another process's).
        Box::pin(async move {
            crate::context::block_here(|| {
                let path = self.path(id)?;
                if !path.exists() {
                    return Ok(None);
                }
                let _lock = self.lock()?;
                let Some(mut record) = self.read(&path)? else {
                    return Ok(None);
                };
                if change(&mut record) {
                    self.write(&path, &record)?;
                }
                Ok(Some(record))
            })
        })
    }

    fn list(&self) -> StoreFuture<'_, Vec<TaskRecord>> {
        let store = self.shared();
        Box::pin(blocking(move || {
            if !store.dir.exists() {
                return Ok(Vec::new());
            }
            let _lock = store.lock()?;
            Ok(store.sweep()?.into_values().collect())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::TaskState;

    #[test]
    fn a_removed_folder_is_not_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("tasks");
        let store = FileStore::open(&folder).unwrap();
        assert!(!folder.exists(), "made when the first task is stored");
        let block = |future| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(future)
        };
        let record = TaskRecord::new("task_1".into(), "demo".into(), None, now_ms());
        block(store.create(&record)).unwrap();
        assert!(folder.is_dir());
        fs::remove_dir_all(&folder).unwrap();
        // The project was deleted: its tasks' runners are told, not given a new folder.
        let again = TaskRecord::new("task_2".into(), "demo".into(), None, now_ms());
        let refused = block(store.create(&again)).unwrap_err();
        assert!(refused.to_string().contains("was removed"), "{refused}");
        assert!(!folder.exists());
    }

    #[test]
    fn records_survive_the_store_and_changes_are_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let store = FileStore::open(dir.path()).unwrap();
            let mut record = TaskRecord::new("task_1".into(), "demo".into(), None, now_ms());
            record.ttl_ms = 60_000;
            store.create(&record).await.unwrap();
            // Many changes from many tasks: none is lost.
            let store = std::sync::Arc::new(store);
            let mut changes = Vec::new();
            for _ in 0..32 {
                let store = std::sync::Arc::clone(&store);
                changes.push(tokio::spawn(async move {
                    store
                        .modify("task_1", &|record| {
                            record.poll_interval_ms += 1;
                            true
                        })
                        .await
                        .unwrap()
                }));
            }
            for change in changes {
                change.await.unwrap();
            }
            let again = FileStore::open(dir.path()).unwrap();
            let loaded = again.load("task_1").await.unwrap().unwrap();
            assert_eq!(loaded.poll_interval_ms, 32);
            assert_eq!(loaded.status, TaskState::Working);
            assert!(again.load("task_2").await.unwrap().is_none());
            assert!(again.load("../etc/passwd").await.is_err());
            assert_eq!(again.list().await.unwrap().len(), 1);
        });
    }
}
