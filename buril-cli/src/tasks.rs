//! Calls that outlive the command: `call --detach` starts the call as a task in a detached
//! process of this binary and prints its handle; `tasks list|get|wait|cancel|answer` follow
//! the tasks from any later process. Tasks live in files (`.buril/tasks` unless
//! `--tasks-dir` or `BURIL_TASKS_DIR` says otherwise), so they survive the processes that
//! started and followed them.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::call::{CallFlags, Configure, dispatcher_for, parse_input, timeout_of};
use super::messages::usage;
use super::pipe::unless_closed;
use buril_core::Outcome;
use buril_core::Registry;
use buril_core::tasks::{FileStore, TaskEnd, TaskError, TaskState, Tasks, now_ms};

/// Where tasks live when nothing says otherwise, relative to the working folder.
pub(crate) const DEFAULT_TASKS_DIR: &str = ".buril/tasks";

/// The hidden subcommand the detached process runs.
pub(crate) const RUN_TASK: &str = "__run-task";

/// The tasks folder: `--tasks-dir`, else `BURIL_TASKS_DIR`, else [`DEFAULT_TASKS_DIR`].
pub(crate) fn tasks_dir(given: Option<PathBuf>) -> PathBuf {
    given
        .or_else(|| std::env::var_os("BURIL_TASKS_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_TASKS_DIR))
}

/// What the detached process is to call, written beside the task.
#[derive(Serialize, Deserialize)]
struct Detached {
    name: String,
    input: Value,
    timeout: Option<f64>,
    enable: Vec<String>,
    disable: Vec<String>,
    allow_dangerous: bool,
}

impl Detached {
    fn path(dir: &Path, id: &str) -> PathBuf {
        dir.join(format!("{id}.call"))
    }

    fn flags(&self, dir: &Path) -> CallFlags {
        CallFlags {
            tasks_dir: dir.to_owned(),
            timeout: self.timeout,
            enable: self.enable.clone(),
            disable: self.disable.clone(),
            allow_dangerous: self.allow_dangerous,
            compact: true,
            binary_dir: None,
            no_input: true,
        }
    }
}

fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

fn print(out: &mut dyn Write, value: &Value, compact: bool) -> io::Result<()> {
    let text = if compact {
        serde_json::to_string(value)?
    } else {
        serde_json::to_string_pretty(value)?
    };
    unless_closed(writeln!(out, "{text}"))
}

/// `call --detach`: checks the call (an unknown tool or an invalid input is answered at once,
/// as `call` answers it), hands it to a detached process of this binary, waits until the task
/// is stored, and prints `{"ok": true, "data": {"handle": …, "status": "working"}}`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn detach(
    configure: Configure,
    registry: &'static Registry,
    name: &str,
    input: Option<&str>,
    flags: CallFlags,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let dir = flags.tasks_dir.clone();
    let dispatcher = match dispatcher_for(configure, registry, &flags) {
        Ok(dispatcher) => dispatcher,
        Err(message) => return usage(err, &message),
    };
    if let Err(message) = timeout_of(flags.timeout) {
        return usage(err, &message);
    }
    let input = match parse_input(input, &dispatcher) {
        Ok(input) => input,
        Err(error) => {
            print(out, &Outcome::err(error).into_envelope(), flags.compact)?;
            return Ok(ExitCode::from(1));
        }
    };
    // Admitted here and dropped unpolled: the tool does not run in this process, but an
    // unknown tool, a disabled one or an invalid input is answered now.
    if let Err(refused) = dispatcher.admit_detached(name, input.clone(), Default::default()) {
        print(out, &refused.outcome.into_envelope(), flags.compact)?;
        return Ok(ExitCode::from(1));
    }
    let store = match FileStore::open(&dir) {
        Ok(store) => store,
        Err(error) => return usage(err, &error.to_string()),
    };
    let tasks = Tasks::new(store);
    let id = match tasks.prepare() {
        Ok(start) => start.id().to_owned(),
        Err(error) => return usage(err, &error.to_string()),
    };
    let detached = Detached {
        name: name.to_owned(),
        input,
        timeout: flags.timeout,
        enable: flags.enable.clone(),
        disable: flags.disable.clone(),
        allow_dangerous: flags.allow_dangerous,
    };
    fs::create_dir_all(&dir)?;
    fs::write(Detached::path(&dir, &id), serde_json::to_vec(&detached)?)?;
    let log = fs::File::create(dir.join(format!("{id}.log")))?;
    let mut command = Command::new(std::env::current_exe()?);
    command
        .arg(RUN_TASK)
        .arg(&dir)
        .arg(&id)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    #[cfg(unix)]
    {
        // Its own process group: the terminal's Ctrl-C for this command does not reach it.
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn()?;
    // Printed once the task is stored, so that the handle works the moment it is read.
    let rt = runtime()?;
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        match rt.block_on(tasks.get(&id, None)) {
            // The handle alone, so that it can be passed on as it is
            // (`tools tasks wait "$(tools call slow_tool '{}' --detach)"`).
            Ok(record) => {
                writeln!(out, "{}", record.id)?;
                return Ok(ExitCode::SUCCESS);
            }
            Err(TaskError::Unknown(_)) if Instant::now() < until => {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = fs::read_to_string(dir.join(format!("{id}.log"))).unwrap_or_default();
                    writeln!(
                        err,
                        "error: the detached call stopped before it started ({status}): {}",
                        log.trim()
                    )?;
                    return Ok(ExitCode::from(2));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(error) => {
                writeln!(err, "error: the detached call did not start: {error}")?;
                return Ok(ExitCode::from(2));
            }
        }
    }
}

/// The detached process: runs the call written beside task `id` as that task, and returns
/// when it ended.
pub(crate) fn run_detached(
    configure: Configure,
    registry: &'static Registry,
    dir: &Path,
    id: &str,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let path = Detached::path(dir, id);
    let detached: Detached = serde_json::from_slice(&fs::read(&path)?)
        .map_err(|error| io::Error::other(format!("{}: {error}", path.display())))?;
    let _ = fs::remove_file(&path);
    let flags = detached.flags(dir);
    let dispatcher = match dispatcher_for(configure, registry, &flags) {
        Ok(dispatcher) => dispatcher,
        Err(message) => return usage(err, &message),
    };
    let store = FileStore::open(dir).map_err(io::Error::other)?;
    let tasks = Tasks::new(store);
    let start = tasks.prepare_with_id(id.to_owned());
    let mut options = buril_core::CallOptions::of_task(&start);
    options.timeout = timeout_of(flags.timeout).map_err(io::Error::other)?;
    let (tool, call) = match dispatcher.admit_detached(&detached.name, detached.input, options) {
        Ok(admitted) => admitted,
        Err(refused) => {
            writeln!(err, "{}", refused.outcome.into_envelope())?;
            return Ok(ExitCode::from(1));
        }
    };
    let rt = runtime()?;
    rt.block_on(async {
        let work = async move { TaskEnd::from_outcome(call.await, |_| None) };
        let record = tasks
            .launch(start, tool.name(), None, work)
            .await
            .map_err(io::Error::other)?;
        // Until the runner has recorded the end.
        while tasks.is_running(&record.id) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Ok::<_, io::Error>(())
    })?;
    let _ = fs::remove_file(dir.join(format!("{id}.log")));
    Ok(ExitCode::SUCCESS)
}

/// What `tasks` does.
pub(crate) enum TasksAction {
    List,
    Get(String),
    Wait(String, Option<f64>),
    Cancel(String),
    Answer(String, String, String),
}

/// `tasks …`: the tasks of the folder.
pub(crate) fn tasks(
    action: TasksAction,
    dir: PathBuf,
    json_lines: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<ExitCode> {
    let store = match FileStore::open(&dir) {
        Ok(store) => store,
        Err(error) => return usage(err, &error.to_string()),
    };
    let tasks = Tasks::new(store);
    let rt = runtime()?;
    let failed = |err: &mut dyn Write, error: TaskError| -> io::Result<ExitCode> {
        writeln!(err, "error: {error}")?;
        Ok(ExitCode::from(1))
    };
    match action {
        TasksAction::List => {
            let records = match rt.block_on(tasks.list(None)) {
                Ok(records) => records,
                Err(error) => return failed(err, error),
            };
            if json_lines {
                let now = now_ms();
                let all: Vec<Value> = records
                    .iter()
                    .map(|record| json!(record.summary(now)))
                    .collect();
                print(out, &Value::Array(all), false)?;
            } else if records.is_empty() {
                unless_closed(writeln!(out, "no tasks in {}", dir.display()))?;
            } else {
                for record in &records {
                    unless_closed(writeln!(
                        out,
                        "{}  {:<14}  {}  {}",
                        record.id,
                        record.status.as_str(),
                        buril_core::tasks::iso(record.created_ms),
                        record.tool
                    ))?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TasksAction::Get(id) => match rt.block_on(tasks.get(&id, None)) {
            Ok(record) => {
                print(out, &json!(record.summary(now_ms())), false)?;
                Ok(ExitCode::SUCCESS)
            }
            Err(error) => failed(err, error),
        },
        TasksAction::Cancel(id) => match rt.block_on(tasks.cancel(&id, None)) {
            Ok(record) => {
                print(out, &json!(record.summary(now_ms())), false)?;
                Ok(ExitCode::SUCCESS)
            }
            Err(error) => failed(err, error),
        },
        TasksAction::Answer(id, key, answer) => {
            let answer: Value = match serde_json::from_str(&answer) {
                Ok(answer) => answer,
                Err(error) => return usage(err, &format!("the answer is not JSON: {error}")),
            };
            let responses = BTreeMap::from([(key.clone(), answer)]);
            match rt.block_on(tasks.answer(&id, None, &responses)) {
                Ok(record) if record.input_responses.contains_key(&key) => {
                    print(out, &json!(record.summary(now_ms())), false)?;
                    Ok(ExitCode::SUCCESS)
                }
                Ok(record) => {
                    let waiting: Vec<&String> = record.input_requests.keys().collect();
                    usage(
                        err,
                        &format!(
                            "the task `{id}` is not waiting for `{key}` (it waits for {waiting:?})"
                        ),
                    )
                }
                Err(error) => failed(err, error),
            }
        }
        TasksAction::Wait(id, timeout) => {
            let timeout = match timeout_of(timeout) {
                Ok(timeout) => timeout,
                Err(message) => return usage(err, &message),
            };
            match rt.block_on(tasks.wait(&id, None, timeout)) {
                Ok(record) if record.status.is_terminal() => {
                    let envelope = record.envelope.clone().unwrap_or(Value::Null);
                    print(out, &envelope, false)?;
                    let ok = record.status == TaskState::Completed
                        && envelope.get("ok") == Some(&Value::Bool(true));
                    Ok(if ok {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    })
                }
                Ok(record) => {
                    print(out, &json!(record.summary(now_ms())), false)?;
                    writeln!(
                        err,
                        "error: the task `{id}` is still {}",
                        record.status.as_str()
                    )?;
                    Ok(ExitCode::from(1))
                }
                Err(error) => failed(err, error),
            }
        }
    }
}
