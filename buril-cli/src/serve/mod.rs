//! The `serve` subcommand: the binary's tools over MCP (stdio, or Streamable HTTP with
//! `--http`), with the dispatcher the host configured with `Cli::configure`.

mod args;
mod flags;

use std::pin::Pin;
use std::process::ExitCode;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::AsyncWrite;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

/// The `serve` subcommand's arguments.
pub(crate) fn command() -> clap::Command {
    self::args::command()
}
use self::flags::{options, with_tasks};
use crate::extension::Invocation;
use buril_core::DispatcherBuilder;
use buril_core::middleware::AuditLog;
use buril_mcp::server::{Server, ServerError, UntilStopped};

/// What the server thread hands the thread that owns standard output and error.
enum Message {
    Out(Vec<u8>),
    Err(String),
    Done(Result<(), ServerError>),
}

/// Runs `serve` as `invocation` asks, over a dispatcher `configure` made.
pub(crate) fn run(
    invocation: Invocation<'_>,
    configure: impl FnOnce(DispatcherBuilder) -> DispatcherBuilder,
) -> ExitCode {
    let Invocation {
        matches,
        registry,
        out,
        err,
        process_stdout,
        ..
    } = invocation;
    let (tx, mut rx) = unbounded_channel::<Message>();
    let sink = tx.clone();
    let messages = move |text: &str| drop(sink.send(Message::Err(text.to_owned())));
    let (options, http) = match options(matches, messages) {
        Ok(parsed) => parsed,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return ExitCode::from(2);
        }
    };
    let dispatcher = configure(DispatcherBuilder::default().registry(registry)).build();
    if matches.get_flag("audit") {
        // Outermost of the host's layers: it sees what they refuse.
        dispatcher.add_outer_layer(AuditLog::new());
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .thread_name("buril-server")
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(err, "error: cannot start the server's runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let options = match runtime.block_on(with_tasks(options, matches)) {
        Ok(options) => options,
        Err(message) => {
            let _ = writeln!(err, "error: {message}");
            return ExitCode::from(2);
        }
    };
    let server = match Server::new(dispatcher, options) {
        Ok(server) => server,
        Err(error) => {
            let _ = writeln!(err, "error: {error}");
            return ExitCode::from(2);
        }
    };
    // The CLI holds the locks of standard output and error on this thread, so the server runs
    // on another and sends this one what to write.
    let done = tx.clone();
    let stop = tx.clone();
    let writer = ChannelWriter(tx.clone());
    let thread = std::thread::Builder::new()
        .name("buril-serve".into())
        .spawn(move || {
            let result = runtime.block_on(async move {
                // Listened for from now on, before the server says it serves.
                let signalled = stop_signal();
                match http {
                    Some(addr) => {
                        let bound = server.bind_http(addr).await?;
                        let _ = tx.send(Message::Err(format!(
                            "buril: serving MCP over Streamable HTTP at {}",
                            bound.url()
                        )));
                        #[cfg(feature = "studio")]
                        if let Some(url) = bound.studio_url() {
                            let _ = tx.send(Message::Err(format!("buril: the studio is at {url}")));
                        }
                        let stopping = tx.clone();
                        let drain = bound.drain();
                        bound
                            .run_until(async move {
                                signalled.await;
                                let _ = stopping.send(Message::Err(format!(
                                    "buril: stopping: no new connections; calls in flight have \
                                     {:.1} s to finish (again to stop at once)",
                                    drain.as_secs_f64()
                                )));
                                // A second signal stops the process without waiting.
                                let again = stop_signal();
                                tokio::spawn(async move {
                                    again.await;
                                    std::process::exit(130);
                                });
                            })
                            .await
                    }
                    // At SIGTERM or Ctrl-C the input ends here: what was read is answered
                    // (calls in flight get their time, as when the client closes the input),
                    // then the server ends.
                    None => {
                        let stopping = tx.clone();
                        let stop = Box::pin(async move {
                            signalled.await;
                            let _ = stopping.send(Message::Err(
                                "buril: stopping: reading no more requests; answering those read"
                                    .into(),
                            ));
                        });
                        if process_stdout {
                            // Standard input and output as the reactor's pipes, as
                            // `Server::serve_stdio` reads and writes them.
                            server.serve_stdio_until(stop).await
                        } else {
                            let input = UntilStopped::new(tokio::io::stdin(), stop);
                            server.serve_io(input, writer).await
                        }
                    }
                }
            });
            let _ = done.send(Message::Done(result));
            runtime.shutdown_timeout(Duration::from_millis(200));
        });
    if let Err(error) = thread {
        let _ = writeln!(err, "error: cannot start the server's thread: {error}");
        return ExitCode::FAILURE;
    }
    if matches.get_flag("exit-with-parent") {
        watch_parent(stop);
    }
    while let Some(message) = rx.blocking_recv() {
        match message {
            Message::Out(bytes) => {
                if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
                    // The client closed its end: nobody is listening any more.
                    return ExitCode::SUCCESS;
                }
            }
            Message::Err(text) => {
                let _ = writeln!(err, "{text}");
            }
            Message::Done(Ok(())) => return ExitCode::SUCCESS,
            Message::Done(Err(error)) => {
                let _ = writeln!(err, "error: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    // The server thread ended without a word: it panicked.
    ExitCode::FAILURE
}

/// Completes at SIGTERM or SIGINT (Ctrl-C), listened for from the call on (the handlers are
/// installed at once, so that a signal before the future is first awaited is not the default
/// one, which ends the process); never where they cannot be listened for. Within a runtime.
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let signals = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        async move {
            match signals {
                (Ok(mut terminate), Ok(mut interrupt)) => {
                    tokio::select! {
                        _ = terminate.recv() => {}
                        _ = interrupt.recv() => {}
                    }
                }
                _ => std::future::pending().await,
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// `--exit-with-parent`: a thread that ends the server when this process's parent ends (on
/// Unix the process is then adopted by another, and its parent id changes). Over stdio the
/// parent's end closes the input, which ends the server anyway; over HTTP nothing else would.
fn watch_parent(stop: tokio::sync::mpsc::UnboundedSender<Message>) {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        let _ = std::thread::Builder::new()
            .name("buril-parent".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_millis(500));
                    if std::os::unix::process::parent_id() != parent {
                        let _ = stop.send(Message::Err(
                            "buril: the process that started this server ended; stopping".into(),
                        ));
                        let _ = stop.send(Message::Done(Ok(())));
                        return;
                    }
                }
            });
    }
    #[cfg(not(unix))]
    {
        let _ = stop.send(Message::Err(
            "buril: warning: --exit-with-parent is not supported on this system; stop the \
             server when its parent ends"
                .into(),
        ));
    }
}
/// Standard output for the server thread: every write goes to the thread that owns it.
struct ChannelWriter(UnboundedSender<Message>);

impl AsyncWrite for ChannelWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(match self.0.send(Message::Out(buf.to_vec())) {
            Ok(()) => Ok(buf.len()),
            Err(_) => Err(std::io::ErrorKind::BrokenPipe.into()),
        })
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::args::command;

    #[test]
    fn help_texts_read_as_one_line() {
        // A string continued on its next line without the `\` keeps that line's indentation.
        for arg in command().get_arguments() {
            for help in [arg.get_help(), arg.get_long_help()].into_iter().flatten() {
                let text = help.to_string();
                assert!(!text.contains("  "), "--{}'s help: {text:?}", arg.get_id());
            }
        }
    }
}
