// BurilHttpTransport: MCP over Streamable HTTP (tools serve --http) with one HttpClient and one
// session.
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>
    /// MCP over Streamable HTTP (<c>tools serve --http ADDR</c>, at <c>http://ADDR/mcp</c>) with
    /// one <c>HttpClient</c>, so that connections are reused: one session (<c>initialize</c>,
    /// then <c>Mcp-Session-Id</c> and <c>MCP-Protocol-Version</c> on every request), answers
    /// read as JSON or as an event stream (with the call's progress reports), a timeout per
    /// call, and cancellation sent as <c>notifications/cancelled</c>. Safe to use from several
    /// threads at once. A session the server no longer knows (HTTP 404, a restarted server) is
    /// started again once. <see cref="Dispose"/> ends the session.
    /// </summary>
    public sealed class BurilHttpTransport : IMcpToolTransport, IBurilEnvelopeTransport, IBurilRequestTransport, global::System.IDisposable
    {
        private readonly object gate = new object();
        private readonly global::System.Uri endpoint;
        private readonly global::System.Net.Http.HttpClient http;
        private readonly global::System.Threading.SemaphoreSlim starting = new global::System.Threading.SemaphoreSlim(1, 1);
        private HttpSession session;
        private bool disposed;
        private long nextId;
        private volatile string requestedVersion = BurilMcp.ProtocolVersion;
        private volatile string serverVersion;

        /// <summary>A transport to the MCP endpoint at <paramref name="url"/> (<c>http://127.0.0.1:PORT/mcp</c>).</summary>
        /// <param name="url">The endpoint.</param>
        public BurilHttpTransport(string url)
            : this(new global::System.Uri(url), null)
        {
        }

        /// <summary>A transport to <paramref name="endpoint"/> through <paramref name="handler"/>.</summary>
        /// <param name="endpoint">The endpoint (<c>http://127.0.0.1:PORT/mcp</c>).</param>
        /// <param name="handler">The message handler (null: a new <c>HttpClientHandler</c>); the transport does not dispose it.</param>
        public BurilHttpTransport(global::System.Uri endpoint, global::System.Net.Http.HttpMessageHandler handler)
        {
            if (endpoint == null)
            {
                throw new global::System.ArgumentNullException("endpoint");
            }
            this.endpoint = endpoint;
            http = handler == null
                ? new global::System.Net.Http.HttpClient()
                : new global::System.Net.Http.HttpClient(handler, false);
            // Each call has its own timeout (Timeout, BurilCallOptions.Timeout).
            http.Timeout = global::System.Threading.Timeout.InfiniteTimeSpan;
            http.DefaultRequestHeaders.ExpectContinue = false;
            try
            {
                // Mono and .NET Framework allow 2 connections per server by default.
                var point = global::System.Net.ServicePointManager.FindServicePoint(endpoint);
                point.ConnectionLimit = global::System.Math.Max(point.ConnectionLimit, 16);
            }
            catch (global::System.Exception)
            {
            }
            Timeout = global::System.TimeSpan.FromSeconds(60);
        }

        /// <summary>The endpoint.</summary>
        public global::System.Uri Endpoint
        {
            get { return endpoint; }
        }

        /// <summary>How long a call waits for its answer unless its options say otherwise (60 seconds; <c>Timeout.InfiniteTimeSpan</c>: no limit). Deadlines are looked at every 20 ms: a call times out up to that much late.</summary>
        public global::System.TimeSpan Timeout { get; set; }

        /// <summary>The session's id (<c>Mcp-Session-Id</c>), or null before the first call.</summary>
        public string SessionId
        {
            get
            {
                lock (gate)
                {
                    return session == null ? null : session.Id;
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

        /// <summary>How many sessions were started: 1 after the first call, more when the server forgot one.</summary>
        public int Sessions { get; private set; }

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
            var request = new BurilCallRequest(name, inputJson, null, null, null);
            return BurilMcp.Text(BurilMcp.Blocking(() => CallEnvelopeAsync(request)));
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

        async global::System.Threading.Tasks.Task<T> IBurilEnvelopeTransport.CallEnvelopeAsync<T>(BurilCallRequest request, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read)
        {
            return read(await CallEnvelopeAsync(request).ConfigureAwait(false));
        }

        global::Newtonsoft.Json.Linq.JObject IBurilEnvelopeTransport.CallEnvelope(BurilCallRequest request)
        {
            return BurilMcp.Blocking(() => CallEnvelopeAsync(request));
        }

        private async global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> CallEnvelopeAsync(BurilCallRequest request)
        {
            if (request == null)
            {
                throw new global::System.ArgumentNullException("request");
            }
            var options = request.Settings;
            var token = options.CancellationToken;
            var timeout = options.Timeout ?? Timeout;
            token.ThrowIfCancellationRequested();
            for (int attempt = 0; ; attempt++)
            {
                var current = Current() ?? await Session(token).ConfigureAwait(false);
                long id = global::System.Threading.Interlocked.Increment(ref nextId);
                var message = BurilMcp.CallText(id, request, options.Progress != null);
                global::Newtonsoft.Json.Linq.JObject response;
                try
                {
                    response = await Ask(current, id, message, options.Progress, timeout, token, request.Name).ConfigureAwait(false);
                }
                catch (BurilTransportException error)
                {
                    // The server does not know the session (it was restarted): a new one, once.
                    if (attempt > 0 || error.StatusCode != 404 || current.Id == null)
                    {
                        throw;
                    }
                    Forget(current);
                    continue;
                }
                string version;
                var envelope = BurilMcp.EnvelopeObject(response, out version);
                if (version != null)
                {
                    serverVersion = version;
                }
                return envelope;
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
                var current = Current() ?? await Session(token).ConfigureAwait(false);
                long id = global::System.Threading.Interlocked.Increment(ref nextId);
                var message = BurilMcp.Text(BurilMcp.Request(id, method, parameters));
                global::Newtonsoft.Json.Linq.JObject response;
                try
                {
                    response = await Ask(current, id, message, null, Timeout, token, method).ConfigureAwait(false);
                }
                catch (BurilTransportException error)
                {
                    // The server does not know the session (it was restarted): a new one, once.
                    if (attempt > 0 || error.StatusCode != 404 || current.Id == null)
                    {
                        throw;
                    }
                    Forget(current);
                    continue;
                }
                var result = BurilMcp.Materialized(BurilMcp.ResultOf(response, method));
                serverVersion = BurilMcp.ServerVersionOf(result) ?? serverVersion;
                return result;
            }
        }

        /// <summary>Ends the session (<c>DELETE</c>) and releases the connections.</summary>
        public void Dispose()
        {
            HttpSession current;
            lock (gate)
            {
                if (disposed)
                {
                    return;
                }
                disposed = true;
                current = session;
                session = null;
            }
            if (current != null && current.Id != null)
            {
                try
                {
                    var request = new global::System.Net.Http.HttpRequestMessage(global::System.Net.Http.HttpMethod.Delete, endpoint);
                    current.AddHeaders(request);
                    global::System.Threading.Tasks.Task.Run(() => http.SendAsync(request)).Wait(global::System.TimeSpan.FromSeconds(2));
                }
                catch (global::System.Exception)
                {
                    // The server may be gone already.
                }
            }
            http.Dispose();
            deadlines.Dispose();
        }

        /// <summary>
        /// Lets go of the connections at once, without ending the session (no <c>DELETE</c>,
        /// which would wait on the server), as a Unity editor must before a domain reload: calls
        /// in flight fail, and the server drops the session when it expires. The transport
        /// cannot be used after.
        /// </summary>
        public void Release()
        {
            lock (gate)
            {
                if (disposed)
                {
                    return;
                }
                disposed = true;
                session = null;
            }
            http.Dispose();
            deadlines.Dispose();
        }

        /// <summary>
        /// Continues the session an earlier transport opened, instead of opening one: its
        /// <see cref="SessionId"/> and <see cref="ProtocolVersion"/>, kept across a Unity domain
        /// reload after <see cref="Release"/>, so that the tasks it started stay this caller's.
        /// A session the server no longer knows is replaced by a new one on the first call, as
        /// always. Call it before the first call.
        /// </summary>
        /// <param name="sessionId">The session's <c>Mcp-Session-Id</c>.</param>
        /// <param name="protocolVersion">The protocol version it agreed.</param>
        public void ResumeSession(string sessionId, string protocolVersion)
        {
            if (sessionId == null)
            {
                throw new global::System.ArgumentNullException("sessionId");
            }
            if (protocolVersion == null)
            {
                throw new global::System.ArgumentNullException("protocolVersion");
            }
            lock (gate)
            {
                if (disposed)
                {
                    throw new global::System.ObjectDisposedException("BurilHttpTransport");
                }
                if (session != null)
                {
                    throw new global::System.InvalidOperationException("the transport has a session already");
                }
                session = new HttpSession(sessionId, protocolVersion);
            }
        }

        /// <summary>The session, when there is one (no task to await in the common case).</summary>
        private HttpSession Current()
        {
            lock (gate)
            {
                if (disposed)
                {
                    throw new global::System.ObjectDisposedException("BurilHttpTransport");
                }
                return session;
            }
        }

        /// <summary>The session: <c>initialize</c> and <c>notifications/initialized</c> on the first call.</summary>
        private async global::System.Threading.Tasks.Task<HttpSession> Session(global::System.Threading.CancellationToken token)
        {
            lock (gate)
            {
                if (disposed)
                {
                    throw new global::System.ObjectDisposedException("BurilHttpTransport");
                }
                if (session != null)
                {
                    return session;
                }
            }
            await starting.WaitAsync(token).ConfigureAwait(false);
            try
            {
                lock (gate)
                {
                    if (session != null)
                    {
                        return session;
                    }
                }
                long id = global::System.Threading.Interlocked.Increment(ref nextId);
                var answer = await Ask(null, id, BurilMcp.Text(BurilMcp.Initialize(id, requestedVersion)), null, Timeout, token, "initialize").ConfigureAwait(false);
                var version = BurilMcp.AcceptInitialize(answer);
                var fresh = new HttpSession(lastSessionId, version);
                using (var timer = BurilMcp.Timer(Timeout))
                using (var both = global::System.Threading.CancellationTokenSource.CreateLinkedTokenSource(timer.Token, token))
                {
                    await Post(fresh, BurilMcp.Text(BurilMcp.Notification("notifications/initialized", null)), null, null, both.Token, "notifications/initialized").ConfigureAwait(false);
                }
                lock (gate)
                {
                    if (disposed)
                    {
                        throw new global::System.ObjectDisposedException("BurilHttpTransport");
                    }
                    session = fresh;
                    Sessions++;
                    return fresh;
                }
            }
            finally
            {
                starting.Release();
            }
        }

        private void Forget(HttpSession old)
        {
            lock (gate)
            {
                if (session == old)
                {
                    session = null;
                }
            }
        }

        /// <summary>The <c>Mcp-Session-Id</c> of the latest <c>initialize</c> answer (read under <see cref="starting"/>).</summary>
        private string lastSessionId;

        /// <summary>Sends a request and reads its answer, within the timeout and the token; tells the server when it gives up.</summary>
        private async global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> Ask(
            HttpSession current,
            long id,
            string message,
            global::System.Action<BurilProgress> progress,
            global::System.TimeSpan timeout,
            global::System.Threading.CancellationToken token,
            string what)
        {
            using (var both = token.CanBeCanceled ? global::System.Threading.CancellationTokenSource.CreateLinkedTokenSource(token) : new global::System.Threading.CancellationTokenSource())
            {
                if (!deadlines.Add(id, timeout, Expire, both))
                {
                    both.Cancel();
                }
                try
                {
                    if (both.IsCancellationRequested)
                    {
                        token.ThrowIfCancellationRequested();
                        throw BurilMcp.TimedOut(what, timeout, false);
                    }
                    return await Post(current, message, id, progress, both.Token, what).ConfigureAwait(false);
                }
                catch (global::System.OperationCanceledException)
                {
                    if (!both.IsCancellationRequested)
                    {
                        throw;
                    }
                }
                finally
                {
                    deadlines.Remove(id);
                }
                if (current != null)
                {
                    var reason = token.IsCancellationRequested ? "cancelled by the caller" : "no answer within " + timeout;
                    Tell(current, BurilMcp.Cancelled(id, reason));
                }
                token.ThrowIfCancellationRequested();
                throw BurilMcp.TimedOut(what, timeout, true);
            }
        }

        /// <summary>Cancels a call's token source when its deadline passes.</summary>
        private static readonly global::System.Action<object> Expire = state => ((global::System.Threading.CancellationTokenSource)state).Cancel();

        private readonly BurilDeadlines deadlines = new BurilDeadlines();

        /// <summary>Sends a notification without waiting for it; a failure is ignored.</summary>
        private void Tell(HttpSession current, global::Newtonsoft.Json.Linq.JObject notification)
        {
            var sending = Post(current, BurilMcp.Text(notification), null, null, global::System.Threading.CancellationToken.None, (string)notification["method"]);
            sending.ContinueWith(
                task => { var ignored = task.Exception; },
                global::System.Threading.Tasks.TaskContinuationOptions.OnlyOnFaulted);
        }

        /// <summary>POSTs a message; for a request (an id), reads the answer with that id.</summary>
        private async global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> Post(
            HttpSession current,
            string message,
            long? id,
            global::System.Action<BurilProgress> progress,
            global::System.Threading.CancellationToken token,
            string what)
        {
            var request = new global::System.Net.Http.HttpRequestMessage(global::System.Net.Http.HttpMethod.Post, endpoint);
            request.Content = new global::System.Net.Http.StringContent(message, new global::System.Text.UTF8Encoding(false), "application/json");
            request.Headers.TryAddWithoutValidation("Accept", "application/json, text/event-stream");
            if (current != null)
            {
                current.AddHeaders(request);
            }
            global::System.Net.Http.HttpResponseMessage response;
            try
            {
                // Read as it comes when progress may come before the answer; else whole (the
                // server sends nothing this client must answer: it declares no capability that
                // would let the server ask), which costs Mono's HttpClient less.
                var completion = progress != null || id == null
                    ? global::System.Net.Http.HttpCompletionOption.ResponseHeadersRead
                    : global::System.Net.Http.HttpCompletionOption.ResponseContentRead;
                response = await http.SendAsync(request, completion, token).ConfigureAwait(false);
            }
            catch (global::System.OperationCanceledException)
            {
                token.ThrowIfCancellationRequested();
                throw;
            }
            catch (global::System.Exception error)
            {
                if (token.IsCancellationRequested)
                {
                    throw new global::System.OperationCanceledException(token);
                }
                if (error is global::System.Net.Http.HttpRequestException || error is global::System.Net.WebException || error is global::System.IO.IOException)
                {
                    throw new BurilTransportException(BurilTransportFailure.Connection, "cannot reach " + endpoint + " (" + what + ")", Causes(error), 0, 0, error);
                }
                throw;
            }
            using (response)
            using (token.Register(DisposeResponse, response))
            {
                try
                {
                    return await Read(response, id, progress, token, what).ConfigureAwait(false);
                }
                catch (global::System.Exception error)
                {
                    if (token.IsCancellationRequested && !(error is BurilTransportException))
                    {
                        throw new global::System.OperationCanceledException(token);
                    }
                    if (error is global::System.IO.IOException || error is global::System.Net.WebException)
                    {
                        throw new BurilTransportException(BurilTransportFailure.Connection, "the connection to " + endpoint + " broke while reading the answer to `" + what + "`", Causes(error), 0, 0, error);
                    }
                    throw;
                }
            }
        }

        /// <summary>Ends the reading of a response whose call was given up.</summary>
        private static readonly global::System.Action<object> DisposeResponse = state => ((global::System.IDisposable)state).Dispose();

        private async global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> Read(
            global::System.Net.Http.HttpResponseMessage response,
            long? id,
            global::System.Action<BurilProgress> progress,
            global::System.Threading.CancellationToken token,
            string what)
        {
            int status = (int)response.StatusCode;
            if (!response.IsSuccessStatusCode)
            {
                var body = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                throw new BurilTransportException(
                    BurilTransportFailure.HttpStatus,
                    "POST " + endpoint + " (" + what + ") answered HTTP " + status + " " + response.ReasonPhrase,
                    body.Trim(),
                    status,
                    0,
                    null);
            }
            if (what == "initialize")
            {
                global::System.Collections.Generic.IEnumerable<string> values;
                lastSessionId = null;
                if (response.Headers.TryGetValues("Mcp-Session-Id", out values))
                {
                    foreach (var value in values)
                    {
                        lastSessionId = value;
                        break;
                    }
                }
            }
            if (id == null)
            {
                return null;
            }
            var type = response.Content.Headers.ContentType;
            var media = type == null ? "" : type.MediaType;
            if (media == "application/json")
            {
                var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                var message = BurilMcp.ParseMessage(text, "the answer to `" + what + "`");
                if (BurilMcp.AnswerId(message) != id)
                {
                    throw new BurilTransportException(BurilTransportFailure.Protocol, "the answer to `" + what + "` has another id", text, 0, 0, null);
                }
                return message;
            }
            if (media != "text/event-stream")
            {
                var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
                throw new BurilTransportException(BurilTransportFailure.Protocol, "the answer to `" + what + "` has the content type `" + media + "`, neither JSON nor an event stream", text.Trim(), status, 0, null);
            }
            using (var reader = progress == null
                ? (global::System.IO.TextReader)new global::System.IO.StringReader(await response.Content.ReadAsStringAsync().ConfigureAwait(false))
                : new global::System.IO.StreamReader(await response.Content.ReadAsStreamAsync().ConfigureAwait(false), new global::System.Text.UTF8Encoding(false)))
            {
                var data = new global::System.Text.StringBuilder();
                while (true)
                {
                    token.ThrowIfCancellationRequested();
                    var line = await reader.ReadLineAsync().ConfigureAwait(false);
                    if (line == null || line.Length == 0)
                    {
                        // The end of an event: its data is one message (or nothing, a priming event).
                        var text = data.ToString();
                        data.Length = 0;
                        if (text.Trim().Length > 0)
                        {
                            var message = BurilMcp.ParseMessage(text, "an event of the answer to `" + what + "`");
                            if (BurilMcp.AnswerId(message) == id)
                            {
                                return message;
                            }
                            long progressToken;
                            BurilProgress report;
                            if (progress != null && BurilMcp.TryProgress(message, out progressToken, out report) && progressToken == id)
                            {
                                try
                                {
                                    progress(report);
                                }
                                catch (global::System.Exception)
                                {
                                    // A callback's failure is the caller's; the answer is still read.
                                }
                            }
                        }
                        if (line == null)
                        {
                            throw new BurilTransportException(BurilTransportFailure.Protocol, "the event stream of the answer to `" + what + "` ended without the answer", null, status, 0, null);
                        }
                        continue;
                    }
                    if (line[0] == ':')
                    {
                        continue;
                    }
                    int colon = line.IndexOf(':');
                    var field = colon < 0 ? line : line.Substring(0, colon);
                    if (field != "data")
                    {
                        continue;
                    }
                    var value = colon < 0 ? "" : line.Substring(colon + 1);
                    if (value.StartsWith(" ", global::System.StringComparison.Ordinal))
                    {
                        value = value.Substring(1);
                    }
                    if (data.Length > 0)
                    {
                        data.Append('\n');
                    }
                    data.Append(value);
                }
            }
        }

        /// <summary>An exception's message and its causes', which hold the socket's words.</summary>
        private static string Causes(global::System.Exception error)
        {
            var parts = new global::System.Collections.Generic.List<string>();
            for (var cause = error; cause != null; cause = cause.InnerException)
            {
                if (!parts.Contains(cause.Message))
                {
                    parts.Add(cause.Message);
                }
            }
            return string.Join(": ", parts.ToArray());
        }

        /// <summary>A session: its id (null when the server keeps none) and protocol version.</summary>
        private sealed class HttpSession
        {
            internal readonly string Id;
            internal readonly string ProtocolVersion;

            internal HttpSession(string id, string protocolVersion)
            {
                Id = id;
                ProtocolVersion = protocolVersion;
            }

            internal void AddHeaders(global::System.Net.Http.HttpRequestMessage request)
            {
                if (Id != null)
                {
                    request.Headers.TryAddWithoutValidation("Mcp-Session-Id", Id);
                }
                request.Headers.TryAddWithoutValidation("MCP-Protocol-Version", ProtocolVersion);
            }
        }
    }
}
