// BurilProcessTransport: MCP over a server process's standard input and output (tools serve),
// multiplexed over one reader thread, started again when the process dies.
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>
    /// MCP over a process's standard input and output: starts <c>tools serve</c> (or any
    /// command that serves MCP over stdio, newline-delimited JSON-RPC) on the first call and
    /// keeps it, sends every call over it with its own request id, and hands each answer to
    /// its caller from one reader thread. Safe to use from several threads at once. When the
    /// process dies, the calls waiting on it fail with <see cref="BurilTransportException"/>,
    /// the next call starts it again, and <see cref="Restarted"/> says so. <see cref="Dispose"/>
    /// stops it.
    /// </summary>
    public sealed class BurilProcessTransport : IMcpToolTransport, IBurilEnvelopeTransport, IBurilRequestTransport, global::System.IDisposable
    {
        private readonly object gate = new object();
        private readonly global::System.Diagnostics.ProcessStartInfo start;
        private Session session;
        private bool disposed;
        private int restarts;
        private long nextId;
        private volatile string requestedVersion = BurilMcp.ProtocolVersion;
        private volatile string serverVersion;

        /// <summary>A transport that will run <paramref name="executable"/> <c>serve</c>.</summary>
        /// <param name="executable">The program with the tools (the <c>tools</c> binary).</param>
        public BurilProcessTransport(string executable)
            : this(executable, "serve", null)
        {
        }

        /// <summary>A transport that will run <paramref name="executable"/> with <paramref name="arguments"/>.</summary>
        /// <param name="executable">The program.</param>
        /// <param name="arguments">Its arguments, as one command line (<c>serve</c>).</param>
        /// <param name="workingDirectory">Where it runs (null: this process's folder).</param>
        public BurilProcessTransport(string executable, string arguments, string workingDirectory)
        {
            if (executable == null)
            {
                throw new global::System.ArgumentNullException("executable");
            }
            start = new global::System.Diagnostics.ProcessStartInfo(executable, arguments ?? "serve")
            {
                UseShellExecute = false,
                CreateNoWindow = true,
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                StandardOutputEncoding = new global::System.Text.UTF8Encoding(false),
                StandardErrorEncoding = new global::System.Text.UTF8Encoding(false),
            };
            if (workingDirectory != null)
            {
                start.WorkingDirectory = workingDirectory;
            }
            Timeout = global::System.TimeSpan.FromSeconds(60);
            accept = Accept;
            made = global::System.Threading.SynchronizationContext.Current;
        }

        /// <summary>The <c>SynchronizationContext</c> the transport was made on, where <see cref="Restarted"/> is raised.</summary>
        private readonly global::System.Threading.SynchronizationContext made;

        /// <summary><see cref="Accept"/>, made once.</summary>
        private readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> accept;

        /// <summary>
        /// Raised when a call starts the process again after it died: on the
        /// <c>SynchronizationContext</c> the transport was made on (Unity's main thread, for a
        /// transport made there), else on the calling thread.
        /// </summary>
        public event global::System.EventHandler<BurilRestartedEventArgs> Restarted;

        /// <summary>The environment of the process (set before the first call): <c>BURIL_PROJECT</c>, say.</summary>
        public global::System.Collections.Specialized.StringDictionary Environment
        {
            get { return start.EnvironmentVariables; }
        }

        /// <summary>How long a call waits for its answer unless its options say otherwise (60 seconds; <c>Timeout.InfiniteTimeSpan</c>: no limit). Deadlines are looked at every 20 ms: a call times out up to that much late.</summary>
        public global::System.TimeSpan Timeout { get; set; }

        /// <summary>How many times the process was started again after it died.</summary>
        public int Restarts
        {
            get { lock (gate) { return restarts; } }
        }

        /// <summary>The running process's id, or 0 when none runs.</summary>
        public int ProcessId
        {
            get
            {
                lock (gate)
                {
                    return session == null || session.Dead ? 0 : session.Process.Id;
                }
            }
        }

        /// <summary>
        /// The protocol version <c>initialize</c> asks for: <c>2025-11-25</c> (the default),
        /// <c>2025-06-18</c> or <c>2025-03-26</c>. Set it before the first call.
        /// </summary>
        public string RequestedProtocolVersion
        {
            get { return requestedVersion; }
            set { requestedVersion = BurilMcp.Speaks(value); }
        }

        /// <summary>The protocol version the server agreed to, or null before the first call.</summary>
        public string ProtocolVersion
        {
            get
            {
                lock (gate)
                {
                    return session == null ? null : session.ProtocolVersion;
                }
            }
        }

        /// <inheritdoc/>
        public string ServerVersion
        {
            get { return serverVersion; }
        }

        /// <summary>Calls a tool and waits for its envelope (without the bindings' hashes: <see cref="BurilClient"/> sends them).</summary>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="inputJson">The input object as JSON text.</param>
        /// <returns>The envelope as JSON text.</returns>
        public string Call(string name, string inputJson)
        {
            return BurilMcp.Text(CallEnvelope(new BurilCallRequest(name, inputJson, null, null, null)));
        }

        /// <inheritdoc/>
        public async global::System.Threading.Tasks.Task<string> CallAsync(BurilCallRequest request)
        {
            return BurilMcp.Text(await CallEnvelopeAsync(request).ConfigureAwait(false));
        }

        global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> IBurilEnvelopeTransport.CallEnvelopeAsync(BurilCallRequest request)
        {
            return CallEnvelopeAsync(request);
        }

        global::System.Threading.Tasks.Task<T> IBurilEnvelopeTransport.CallEnvelopeAsync<T>(BurilCallRequest request, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
        {
            return CallEnvelopeAsync(request, read);
        }

        global::Newtonsoft.Json.Linq.JObject IBurilEnvelopeTransport.CallEnvelope(BurilCallRequest request)
        {
            return CallEnvelope(request);
        }

        private global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> CallEnvelopeAsync(BurilCallRequest request)
        {
            return CallEnvelopeAsync(request, Same);
        }

        /// <summary>The envelope as it is.</summary>
        private static readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> Same = envelope => envelope;

        /// <summary>The call; <paramref name="read"/> gets the envelope (of <see cref="Accept"/>) on the thread that received it.</summary>
        private global::System.Threading.Tasks.Task<T> CallEnvelopeAsync<T>(BurilCallRequest request, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
        {
            BurilCallOptions options;
            Session current;
            try
            {
                options = Check(request);
                current = Alive();
            }
            catch (global::System.Exception error)
            {
                return BurilMcp.Failed<T>(error);
            }
            if (current == null)
            {
                return StartThenCallAsync(request, read);
            }
            var answer = Send(current, request, options, read);
            var unsent = answer.IsFaulted ? answer.Exception.InnerException as Unsent : null;
            // No async frame of its own: the session's wait is the call's.
            return unsent == null ? answer : StartThenCallAsync(request, read);
        }

        private global::System.Threading.Tasks.Task<T> Send<T>(Session current, BurilCallRequest request, BurilCallOptions options, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
        {
            long id = global::System.Threading.Interlocked.Increment(ref nextId);
            global::System.Text.StringBuilder line;
            try
            {
                line = BurilMcp.CallLine(id, request, options.Progress != null);
            }
            catch (global::System.Exception error)
            {
                // An input the serializer refuses fails the task, as from an async method.
                return BurilMcp.Failed<T>(error);
            }
            return current.Ask(id, line, options.Progress, options.Timeout ?? Timeout, options.CancellationToken, request.Name, accept, read);
        }

        /// <summary>
        /// Starts the process (which waits for <c>initialize</c>: on a pool thread, not the
        /// caller's), again if it died, then calls.
        /// </summary>
        private async global::System.Threading.Tasks.Task<T> StartThenCallAsync<T>(BurilCallRequest request, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
        {
            var current = await global::System.Threading.Tasks.Task.Run(() => Running()).ConfigureAwait(false);
            try
            {
                return await Send(current, request, request.Settings, read).ConfigureAwait(false);
            }
            catch (Unsent unsent)
            {
                throw unsent.Died;
            }
        }

        /// <inheritdoc/>
        public async global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> RequestAsync(string method, global::Newtonsoft.Json.Linq.JObject parameters, global::System.Threading.CancellationToken token)
        {
            if (method == null)
            {
                throw new global::System.ArgumentNullException("method");
            }
            for (int attempt = 0; ; attempt++)
            {
                var current = Alive() ?? await global::System.Threading.Tasks.Task.Run(() => Running()).ConfigureAwait(false);
                long id = global::System.Threading.Interlocked.Increment(ref nextId);
                var line = BurilMcp.Line(BurilMcp.Text(BurilMcp.Request(id, method, parameters)));
                try
                {
                    return await current.Ask(id, line, null, Timeout, token, method, Same, response => Result(method, response)).ConfigureAwait(false);
                }
                catch (Unsent unsent)
                {
                    if (attempt > 0)
                    {
                        throw unsent.Died;
                    }
                }
            }
        }

        /// <summary>The result of a request's answer (the server's metadata hash kept), or the error it answered.</summary>
        private global::Newtonsoft.Json.Linq.JObject Result(string method, global::Newtonsoft.Json.Linq.JObject response)
        {
            var result = BurilMcp.Materialized(BurilMcp.ResultOf(response, method));
            serverVersion = BurilMcp.ServerVersionOf(result) ?? serverVersion;
            return result;
        }

        /// <summary>The blocking call: the caller's thread sends and waits, the reader thread wakes it.</summary>
        private global::Newtonsoft.Json.Linq.JObject CallEnvelope(BurilCallRequest request)
        {
            var options = Check(request);
            for (int attempt = 0; ; attempt++)
            {
                var current = Alive() ?? Running();
                long id = global::System.Threading.Interlocked.Increment(ref nextId);
                var line = BurilMcp.CallLine(id, request, options.Progress != null);
                try
                {
                    return Accept(current.AskBlocking(id, line, options.Progress, options.Timeout ?? Timeout, options.CancellationToken, request.Name));
                }
                catch (Unsent unsent)
                {
                    // The process had died unseen: start it again (once) and send the request there.
                    if (attempt > 0)
                    {
                        throw unsent.Died;
                    }
                }
            }
        }

        private static BurilCallOptions Check(BurilCallRequest request)
        {
            if (request == null)
            {
                throw new global::System.ArgumentNullException("request");
            }
            var options = request.Settings;
            options.CancellationToken.ThrowIfCancellationRequested();
            return options;
        }

        /// <summary>The envelope of an answer, noting the server's metadata hash.</summary>
        private global::Newtonsoft.Json.Linq.JObject Accept(global::Newtonsoft.Json.Linq.JObject response)
        {
            string version;
            var envelope = BurilMcp.EnvelopeObject(response, out version);
            if (version != null)
            {
                serverVersion = version;
            }
            return envelope;
        }

        /// <summary>Stops the process: closes its input, and kills it if it does not exit.</summary>
        public void Dispose()
        {
            Session old;
            lock (gate)
            {
                if (disposed)
                {
                    return;
                }
                disposed = true;
                old = session;
                session = null;
            }
            if (old != null)
            {
                old.Stop();
            }
        }

        /// <summary>
        /// Lets the process go without waiting for it, as a Unity editor must before a domain
        /// reload: closes its input (a buril server answers what it read and exits when its input
        /// ends), fails the calls in flight, and answers the process's id (-1 when none runs), so
        /// that whoever comes next (the next domain) can make sure it exited and stop it if not.
        /// The transport cannot be used after.
        /// </summary>
        /// <returns>The process's id, or -1.</returns>
        public int Release()
        {
            Session old;
            lock (gate)
            {
                if (disposed)
                {
                    return -1;
                }
                disposed = true;
                old = session;
                session = null;
            }
            return old == null ? -1 : old.Release();
        }

        /// <summary>The session when its process runs, else null.</summary>
        private Session Alive()
        {
            lock (gate)
            {
                if (disposed)
                {
                    throw new global::System.ObjectDisposedException("BurilProcessTransport");
                }
                // The flag only (no look at the process on every call): a process that died
                // unseen fails the write, and the call starts it again (`Unsent`).
                return session != null && !session.KnownDead ? session : null;
            }
        }

        /// <summary>The running session: started, or started again after the process died.</summary>
        private Session Running()
        {
            string restartedFor = null;
            int count = 0;
            Session current;
            lock (gate)
            {
                if (disposed)
                {
                    throw new global::System.ObjectDisposedException("BurilProcessTransport");
                }
                if (session != null && session.Dead)
                {
                    restartedFor = session.DeathReason();
                    session.Stop();
                    session = null;
                    restarts++;
                    count = restarts;
                }
                if (session == null)
                {
                    var fresh = new Session(start);
                    fresh.Initialize(global::System.Threading.Interlocked.Increment(ref nextId), requestedVersion, Timeout);
                    session = fresh;
                }
                current = session;
            }
            if (restartedFor != null)
            {
                var handler = BurilCallbacks.On(made, Restarted);
                if (handler != null)
                {
                    handler(this, new BurilRestartedEventArgs(count, restartedFor));
                }
            }
            return current;
        }

        /// <summary>
        /// A blocking call waiting for its answer: its task is never handed out, so nothing
        /// continues on it but the wait itself, which the reader thread ends directly, with no
        /// hop through the pool. A null answer means none came (a timeout or a cancellation).
        /// An async call is an <see cref="Asked{T}"/>, which overrides how it ends.
        /// </summary>
        private class Pending
        {
            private readonly global::System.Threading.Tasks.TaskCompletionSource<global::Newtonsoft.Json.Linq.JObject> answer;

            internal Pending()
            {
                answer = new global::System.Threading.Tasks.TaskCompletionSource<global::Newtonsoft.Json.Linq.JObject>();
            }

            /// <summary>For <see cref="Asked{T}"/>, which has a task of its own.</summary>
            protected Pending(bool unused)
            {
            }

            internal global::System.Action<BurilProgress> Progress;

            /// <summary>Ends the wait with no answer (a timeout or a cancellation).</summary>
            internal static readonly global::System.Action<object> GiveUp = state => ((Pending)state).Answer(null);

            internal virtual bool IsDone
            {
                get { return answer.Task.IsCompleted; }
            }

            internal virtual void Answer(global::Newtonsoft.Json.Linq.JObject message)
            {
                answer.TrySetResult(message);
            }

            internal virtual void Fail(global::System.Exception error)
            {
                answer.TrySetException(error);
            }

            /// <summary>A blocking caller's answer, once there is one (or null).</summary>
            internal global::Newtonsoft.Json.Linq.JObject Wait()
            {
                return answer.Task.GetAwaiter().GetResult();
            }
        }

        /// <summary>
        /// An async call waiting for its answer, without an async frame: the answer (or the
        /// timeout, the cancellation, the process's death) ends it once, and its typed output is
        /// read on a pool thread, never on the reader thread (which a slow read would hold up)
        /// nor on the thread that cancelled it; the caller's continuation runs there too.
        /// </summary>
        private sealed class Asked<T> : Pending
        {
            private readonly global::System.Threading.Tasks.TaskCompletionSource<T> result = new global::System.Threading.Tasks.TaskCompletionSource<T>();
            private readonly Session session;
            private readonly long id;
            private readonly global::System.TimeSpan timeout;
            private readonly global::System.Threading.CancellationToken token;
            private readonly string what;
            private readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> accept;
            private readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read;
            private global::System.Threading.CancellationTokenRegistration registration;
            /// <summary>0: no registration yet; 1: registered; 2: the call ended (the registration is dropped).</summary>
            private int registered;
            private global::Newtonsoft.Json.Linq.JObject message;
            private global::System.Exception failure;
            private int settled;
            private int sent;
            private int gaveUp;
            private int cancelSent;

            internal Asked(Session session, long id, global::System.TimeSpan timeout, global::System.Threading.CancellationToken token, string what, global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> accept, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
                : base(false)
            {
                this.session = session;
                this.id = id;
                this.timeout = timeout;
                this.token = token;
                this.what = what;
                this.accept = accept;
                this.read = read;
            }

            internal global::System.Threading.Tasks.Task<T> Task
            {
                get { return result.Task; }
            }

            internal override bool IsDone
            {
                get { return global::System.Threading.Volatile.Read(ref settled) != 0; }
            }

            /// <summary>Watches <paramref name="token"/> (set once, from the thread that sends).</summary>
            internal void Register()
            {
                registration = token.Register(GiveUp, this);
                if (global::System.Threading.Interlocked.CompareExchange(ref registered, 1, 0) == 2)
                {
                    registration.Dispose();
                }
            }

            private void DropRegistration()
            {
                if (global::System.Threading.Interlocked.Exchange(ref registered, 2) == 1)
                {
                    registration.Dispose();
                }
            }

            /// <summary>The request was written to the process.</summary>
            internal void Sent()
            {
                global::System.Threading.Interlocked.Exchange(ref sent, 1);
                if (global::System.Threading.Volatile.Read(ref gaveUp) != 0)
                {
                    TellServerToCancel();
                }
            }

            /// <summary>The request never reached the process: ends the call with no trace.</summary>
            internal bool Abandon()
            {
                if (global::System.Threading.Interlocked.Exchange(ref settled, 1) != 0)
                {
                    return false;
                }
                DropRegistration();
                session.Forget(id);
                return true;
            }

            internal override void Answer(global::Newtonsoft.Json.Linq.JObject answer)
            {
                if (global::System.Threading.Interlocked.Exchange(ref settled, 1) != 0)
                {
                    return;
                }
                session.Forget(id);
                if (answer == null)
                {
                    global::System.Threading.Interlocked.Exchange(ref gaveUp, 1);
                    if (global::System.Threading.Volatile.Read(ref sent) != 0)
                    {
                        TellServerToCancel();
                    }
                }
                message = answer;
                global::System.Threading.ThreadPool.UnsafeQueueUserWorkItem(FinishOnPool, this);
            }

            internal override void Fail(global::System.Exception error)
            {
                if (global::System.Threading.Interlocked.Exchange(ref settled, 1) != 0)
                {
                    return;
                }
                session.Forget(id);
                failure = error;
                global::System.Threading.ThreadPool.UnsafeQueueUserWorkItem(FinishOnPool, this);
            }

            private void TellServerToCancel()
            {
                if (global::System.Threading.Interlocked.Exchange(ref cancelSent, 1) == 0)
                {
                    session.TrySendCancelled(id, token.IsCancellationRequested ? "cancelled by the caller" : "no answer within " + timeout);
                }
            }

            private static readonly global::System.Threading.WaitCallback FinishOnPool = state => ((Asked<T>)state).Finish();

            /// <summary>On a pool thread: the output, or why there is none.</summary>
            private void Finish()
            {
                DropRegistration();
                if (failure != null)
                {
                    result.TrySetException(failure);
                    return;
                }
                if (message == null)
                {
                    if (token.IsCancellationRequested)
                    {
                        result.TrySetCanceled(token);
                    }
                    else
                    {
                        result.TrySetException(BurilMcp.TimedOut(what, timeout, global::System.Threading.Volatile.Read(ref sent) != 0));
                    }
                    return;
                }
                T output;
                try
                {
                    output = read(accept(message));
                }
                catch (global::System.Exception error)
                {
                    result.TrySetException(error);
                    return;
                }
                result.TrySetResult(output);
            }
        }

        /// <summary>
        /// A request that never reached the process, which is gone: the transport starts it
        /// again and sends the request once more (<c>InnerException</c>:
        /// what failed).
        /// </summary>
        private sealed class Unsent : global::System.Exception
        {
            internal Unsent(BurilTransportException died)
                : base(died.Message, died)
            {
            }

            internal BurilTransportException Died
            {
                get { return (BurilTransportException)InnerException; }
            }
        }

        /// <summary>One process and what is waiting on it.</summary>
        private sealed class Session
        {
            internal readonly global::System.Diagnostics.Process Process;
            internal string ProtocolVersion;
            private static readonly global::System.Text.UTF8Encoding Utf8 = new global::System.Text.UTF8Encoding(false);
            private readonly object writeGate = new object();
            private readonly global::System.IO.Stream input;
            private readonly global::System.Collections.Concurrent.ConcurrentDictionary<long, Pending> pending =
                new global::System.Collections.Concurrent.ConcurrentDictionary<long, Pending>();
            private readonly global::System.Collections.Generic.Queue<string> errors = new global::System.Collections.Generic.Queue<string>();
            /// <summary>Set once standard error has been read to its end (waited on rather than joining the reader thread: Mono's <c>Thread.Join</c> can crash the runtime when the thread ends meanwhile).</summary>
            private readonly global::System.Threading.ManualResetEventSlim stderrRead = new global::System.Threading.ManualResetEventSlim(false);
            private volatile bool dead;
            private string failure;

            internal Session(global::System.Diagnostics.ProcessStartInfo start)
            {
                try
                {
                    Process = global::System.Diagnostics.Process.Start(start);
                }
                catch (global::System.Exception error)
                {
                    throw new BurilTransportException(
                        BurilTransportFailure.Process,
                        "cannot start `" + start.FileName + " " + start.Arguments + "`",
                        error.Message, 0, 0, error);
                }
                input = Process.StandardInput.BaseStream;
                var reader = new global::System.Threading.Thread(Read) { IsBackground = true, Name = "buril-stdio-reader" };
                reader.Start();
                new global::System.Threading.Thread(ReadErrors) { IsBackground = true, Name = "buril-stdio-stderr" }.Start();
            }

            internal bool Dead
            {
                get
                {
                    if (!dead)
                    {
                        try
                        {
                            if (Process.HasExited)
                            {
                                dead = true;
                            }
                        }
                        catch (global::System.InvalidOperationException)
                        {
                            dead = true;
                        }
                    }
                    return dead;
                }
            }

            /// <summary><c>initialize</c>, then <c>notifications/initialized</c>.</summary>
            internal void Initialize(long id, string version, global::System.TimeSpan timeout)
            {
                try
                {
                    global::Newtonsoft.Json.Linq.JObject answer;
                    try
                    {
                        answer = AskBlocking(id, BurilMcp.Line(BurilMcp.Text(BurilMcp.Initialize(id, version))), null, timeout, global::System.Threading.CancellationToken.None, "initialize");
                    }
                    catch (Unsent unsent)
                    {
                        throw unsent.Died;
                    }
                    ProtocolVersion = BurilMcp.AcceptInitialize(answer);
                    Send(BurilMcp.Text(BurilMcp.Notification("notifications/initialized", null)));
                }
                catch
                {
                    Stop();
                    throw;
                }
            }

            /// <summary>
            /// Sends a request and waits for its answer, the timeout or the token; the answer
            /// goes through <c>accept</c> (the transport's envelope) and <c>read</c> (the
            /// client's typed output) before the task completes. A request that could not be
            /// written (the process is gone) fails with <see cref="Unsent"/> at once.
            /// </summary>
            internal global::System.Threading.Tasks.Task<T> Ask<T>(
                long id,
                global::System.Text.StringBuilder message,
                global::System.Action<BurilProgress> progress,
                global::System.TimeSpan timeout,
                global::System.Threading.CancellationToken token,
                string what,
                global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> accept,
                global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
            {
                var waiting = new Asked<T>(this, id, timeout, token, what, accept, read) { Progress = progress };
                pending[id] = waiting;
                // Watched before sending, as Watch says.
                if (!deadlines.Add(id, timeout, Pending.GiveUp, waiting))
                {
                    waiting.Answer(null);
                }
                if (token.CanBeCanceled)
                {
                    waiting.Register();
                }
                try
                {
                    if (SendUnlessDone(waiting, message))
                    {
                        waiting.Sent();
                    }
                }
                catch (Unsent unsent)
                {
                    if (waiting.Abandon())
                    {
                        return BurilMcp.Failed<T>(unsent);
                    }
                }
                return waiting.Task;
            }

            /// <summary>Stops watching a call that ended.</summary>
            internal void Forget(long id)
            {
                deadlines.Remove(id);
                Pending ignored;
                pending.TryRemove(id, out ignored);
            }

            internal void TrySendCancelled(long id, string reason)
            {
                TrySend(BurilMcp.Text(BurilMcp.Cancelled(id, reason)));
            }

            /// <summary><c>Ask</c> for a blocking caller: the reader thread wakes it, no thread pool involved.</summary>
            internal global::Newtonsoft.Json.Linq.JObject AskBlocking(
                long id,
                global::System.Text.StringBuilder message,
                global::System.Action<BurilProgress> progress,
                global::System.TimeSpan timeout,
                global::System.Threading.CancellationToken token,
                string what)
            {
                var waiting = new Pending() { Progress = progress };
                pending[id] = waiting;
                try
                {
                    using (Watch(id, waiting, timeout, token))
                    {
                        bool sent = SendUnlessDone(waiting, message);
                        return Settle(id, waiting.Wait(), sent, timeout, token, what);
                    }
                }
                finally
                {
                    deadlines.Remove(id);
                    Pending ignored;
                    pending.TryRemove(id, out ignored);
                }
            }

            /// <summary>
            /// Ends the wait of <paramref name="waiting"/> when the timeout passes or the token is
            /// cancelled. Watched before sending, so that a cancellation (from a progress report,
            /// say) always comes before the answer that follows it.
            /// </summary>
            private global::System.Threading.CancellationTokenRegistration Watch(long id, Pending waiting, global::System.TimeSpan timeout, global::System.Threading.CancellationToken token)
            {
                if (!deadlines.Add(id, timeout, Pending.GiveUp, waiting))
                {
                    waiting.Answer(null);
                }
                return token.CanBeCanceled ? token.Register(Pending.GiveUp, waiting) : default(global::System.Threading.CancellationTokenRegistration);
            }

            private readonly BurilDeadlines deadlines = new BurilDeadlines();

            private bool SendUnlessDone(Pending waiting, global::System.Text.StringBuilder message)
            {
                if (dead)
                {
                    throw new Unsent(Died());
                }
                if (waiting.IsDone)
                {
                    return false;
                }
                try
                {
                    Send(message);
                }
                catch (BurilTransportException error)
                {
                    // A process that is gone cannot read what is written to it: the write
                    // fails, and the request never reached it.
                    throw new Unsent(error);
                }
                return true;
            }

            /// <summary>Whether this session's process is known to be gone (its output ended, or a write to it failed).</summary>
            internal bool KnownDead
            {
                get { return dead; }
            }

            /// <summary>The answer; for none, tells the server to cancel and throws the cancellation or the timeout.</summary>
            private global::Newtonsoft.Json.Linq.JObject Settle(
                long id,
                global::Newtonsoft.Json.Linq.JObject answer,
                bool sent,
                global::System.TimeSpan timeout,
                global::System.Threading.CancellationToken token,
                string what)
            {
                if (answer != null)
                {
                    return answer;
                }
                if (sent)
                {
                    TrySend(BurilMcp.Text(BurilMcp.Cancelled(id, token.IsCancellationRequested ? "cancelled by the caller" : "no answer within " + timeout)));
                }
                token.ThrowIfCancellationRequested();
                throw BurilMcp.TimedOut(what, timeout, sent);
            }

            private void Send(string message)
            {
                Send(BurilMcp.Line(message));
            }

            /// <summary>The calling thread's buffers for a line's characters and bytes (up to 64 KiB kept).</summary>
            [global::System.ThreadStatic]
            private static char[] lineChars;

            [global::System.ThreadStatic]
            private static byte[] lineBytes;

            /// <summary>Writes a line (a message and its line feed) as UTF-8, through the calling thread's buffers.</summary>
            private void Send(global::System.Text.StringBuilder line)
            {
                const int Kept = 1 << 16;
                int length = line.Length;
                var chars = lineChars;
                if (chars == null || chars.Length < length)
                {
                    chars = new char[global::System.Math.Max(length, 512)];
                    if (length <= Kept)
                    {
                        lineChars = chars;
                    }
                }
                line.CopyTo(0, chars, 0, length);
                int count = Utf8.GetByteCount(chars, 0, length);
                var bytes = lineBytes;
                if (bytes == null || bytes.Length < count)
                {
                    bytes = new byte[global::System.Math.Max(count, 1024)];
                    if (count <= Kept)
                    {
                        lineBytes = bytes;
                    }
                }
                Utf8.GetBytes(chars, 0, length, bytes, 0);
                try
                {
                    lock (writeGate)
                    {
                        input.Write(bytes, 0, count);
                        input.Flush();
                    }
                }
                catch (global::System.Exception error)
                {
                    if (error is global::System.IO.IOException || error is global::System.ObjectDisposedException)
                    {
                        dead = true;
                        throw Died();
                    }
                    throw;
                }
            }

            private void TrySend(string message)
            {
                try
                {
                    Send(message);
                }
                catch (BurilTransportException)
                {
                }
            }

            /// <summary>The reader thread: hands each answer to its caller, progress to its callback.</summary>
            private void Read()
            {
                var output = Process.StandardOutput;
                try
                {
                    string line;
                    while ((line = output.ReadLine()) != null)
                    {
                        if (line.Trim().Length == 0)
                        {
                            continue;
                        }
                        global::Newtonsoft.Json.Linq.JObject message;
                        try
                        {
                            message = BurilMcp.ParseMessage(line, "a line of the server's output");
                        }
                        catch (BurilTransportException error)
                        {
                            failure = error.Message;
                            continue;
                        }
                        Dispatch(message);
                    }
                }
                catch (global::System.Exception error)
                {
                    failure = "reading the server's output failed: " + error.Message;
                }
                dead = true;
                deadlines.Dispose();
                var died = Died();
                foreach (var key in pending.Keys)
                {
                    Pending waiting;
                    if (pending.TryRemove(key, out waiting))
                    {
                        waiting.Fail(died);
                    }
                }
            }

            private void Dispatch(global::Newtonsoft.Json.Linq.JObject message)
            {
                var id = BurilMcp.AnswerId(message);
                if (id != null)
                {
                    Pending waiting;
                    if (pending.TryGetValue(id.Value, out waiting))
                    {
                        waiting.Answer(message);
                    }
                    return;
                }
                long token;
                BurilProgress progress;
                if (BurilMcp.TryProgress(message, out token, out progress))
                {
                    Pending waiting;
                    if (pending.TryGetValue(token, out waiting) && waiting.Progress != null)
                    {
                        try
                        {
                            waiting.Progress(progress);
                        }
                        catch (global::System.Exception)
                        {
                            // A callback's failure is the caller's; the reader goes on.
                        }
                    }
                    return;
                }
                // A request from the server: answer `ping`, refuse the rest.
                var method = message["method"];
                var requestId = message["id"];
                if (method != null && requestId != null)
                {
                    var reply = new global::Newtonsoft.Json.Linq.JObject();
                    reply["jsonrpc"] = "2.0";
                    reply["id"] = requestId;
                    if ((string)method == "ping")
                    {
                        reply["result"] = new global::Newtonsoft.Json.Linq.JObject();
                    }
                    else
                    {
                        var error = new global::Newtonsoft.Json.Linq.JObject();
                        error["code"] = -32601;
                        error["message"] = "this client does not answer `" + (string)method + "`";
                        reply["error"] = error;
                    }
                    TrySend(BurilMcp.Text(reply));
                }
            }

            private void ReadErrors()
            {
                try
                {
                    string line;
                    while ((line = Process.StandardError.ReadLine()) != null)
                    {
                        lock (errors)
                        {
                            errors.Enqueue(line);
                            while (errors.Count > 20)
                            {
                                errors.Dequeue();
                            }
                        }
                    }
                }
                catch (global::System.Exception)
                {
                }
                finally
                {
                    stderrRead.Set();
                }
            }

            /// <summary>How the process ended: its exit code, its last lines of standard error.</summary>
            internal string DeathReason()
            {
                string code = "";
                try
                {
                    if (Process.WaitForExit(5000))
                    {
                        // Standard error may still hold its last lines.
                        stderrRead.Wait(5000);
                        code = " with code " + Process.ExitCode;
                    }
                }
                catch (global::System.Exception)
                {
                }
                string tail;
                lock (errors)
                {
                    tail = string.Join("\n", errors.ToArray());
                }
                var text = "the server process `" + Process.StartInfo.FileName + "` exited" + code;
                if (failure != null)
                {
                    text += " (" + failure + ")";
                }
                return tail.Length == 0 ? text : text + "; its standard error ends with: " + tail;
            }

            private BurilTransportException Died()
            {
                return new BurilTransportException(BurilTransportFailure.Process, DeathReason(), null, 0, 0, null);
            }

            /// <summary>Closes the input (the server then exits), and kills a process that does not.</summary>
            /// <summary>Closes the input and fails the calls in flight without waiting for the process; answers its id.</summary>
            internal int Release()
            {
                int id = -1;
                try
                {
                    id = Process.Id;
                }
                catch (global::System.Exception)
                {
                }
                CloseInput();
                End("the transport was released");
                return id;
            }

            /// <summary>Closes the input, waits up to 2 s for the process to exit and kills it if not, and fails the calls in flight.</summary>
            internal void Stop()
            {
                CloseInput();
                try
                {
                    if (!Process.WaitForExit(2000))
                    {
                        Process.Kill();
                        Process.WaitForExit(2000);
                    }
                }
                catch (global::System.Exception)
                {
                }
                End("the transport was disposed");
            }

            /// <summary>Closes the process's input: a buril server exits when its input ends.</summary>
            private void CloseInput()
            {
                try
                {
                    lock (writeGate)
                    {
                        input.Close();
                    }
                }
                catch (global::System.Exception)
                {
                }
            }

            /// <summary>Marks the session dead and fails every call in flight, saying <paramref name="why"/>.</summary>
            private void End(string why)
            {
                dead = true;
                deadlines.Dispose();
                foreach (var key in pending.Keys)
                {
                    Pending waiting;
                    if (pending.TryRemove(key, out waiting))
                    {
                        waiting.Fail(new global::System.ObjectDisposedException("BurilProcessTransport", why));
                    }
                }
            }
        }
    }
}
