// The buril runtime for the generated bindings: the ITool contract, the client's transport,
// the exceptions, and the JSON settings every generated class is read and written with.
// References: Newtonsoft.Json, System.Numerics, System.Runtime.Serialization, System.Net.Http.

namespace Buril.Generated
{
    /// <summary>
    /// A tool an agent can call: a name, a description, the JSON Schema of its input, and
    /// <see cref="Run"/>. The generated <c>{Tool}Tool</c> classes implement it; subclass them.
    /// </summary>
    public interface ITool
    {
        /// <summary>The stable wire name the agent calls the tool by (<c>scene_open</c>).</summary>
        string Name { get; }

        /// <summary>What the tool does, for the agent planning its calls.</summary>
        string Description { get; }

        /// <summary>The JSON Schema of the input, as JSON text.</summary>
        string InputSchemaJson { get; }

        /// <summary>
        /// Runs the tool. Returns the envelope: <c>{"ok": true, "data": ...}</c>, or
        /// <c>{"ok": false, "type": "validation", "error": ...}</c> for input the tool refuses.
        /// Any other exception is a runtime failure for the dispatcher to report. Parse the
        /// input with <see cref="BurilJson.Parse"/>, so that strings that look like dates stay
        /// strings.
        /// </summary>
        /// <param name="input">The input object.</param>
        /// <returns>The envelope, as a <c>JObject</c>.</returns>
        object Run(global::Newtonsoft.Json.Linq.JObject input);
    }

    /// <summary>Marks a tool that may run off the editor's main thread.</summary>
    [global::System.AttributeUsage(global::System.AttributeTargets.Class, Inherited = true, AllowMultiple = false)]
    public sealed class OffThreadAttribute : global::System.Attribute
    {
    }

    /// <summary>
    /// Carries calls from a <see cref="BurilClient"/> to the tools: a process, a socket, HTTP,
    /// an in-process dispatcher.
    /// </summary>
    public interface IToolTransport
    {
        /// <summary>Calls a tool and returns the envelope it answered, as JSON text.</summary>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="inputJson">The input object as JSON text.</param>
        /// <returns>The envelope: <c>{"ok": true, "data": ...}</c> or <c>{"ok": false, ...}</c>.</returns>
        string Call(string name, string inputJson);
    }

    /// <summary>
    /// A transport that carries calls over MCP: asynchronously, with the bindings' metadata
    /// hashes, a timeout, cancellation and progress, and that knows the server's metadata hash.
    /// <see cref="BurilProcessTransport"/> and <see cref="BurilHttpTransport"/> are two.
    /// </summary>
    public interface IMcpToolTransport : IToolTransport
    {
        /// <summary>Calls a tool; the task ends with the envelope, as JSON text.</summary>
        /// <param name="request">The call.</param>
        /// <returns>The envelope: <c>{"ok": true, "data": ...}</c> or <c>{"ok": false, ...}</c>.</returns>
        /// <exception cref="BurilTransportException">No envelope came back.</exception>
        /// <exception cref="System.OperationCanceledException">The call's token was cancelled (the server was told).</exception>
        global::System.Threading.Tasks.Task<string> CallAsync(BurilCallRequest request);

        /// <summary>The server's tool metadata hash from its latest answer, or null before one.</summary>
        string ServerVersion { get; }
    }

    /// <summary>What one call may set: a timeout, a cancellation token, a progress callback.</summary>
    public sealed class BurilCallOptions
    {
        /// <summary>How long to wait for the answer (null: the transport's <c>Timeout</c>).</summary>
        public global::System.TimeSpan? Timeout { get; set; }

        /// <summary>Cancels the call: the transport sends <c>notifications/cancelled</c> and the call throws <c>OperationCanceledException</c>.</summary>
        public global::System.Threading.CancellationToken CancellationToken { get; set; }

        /// <summary>Called with each progress report the tool sends (on a transport thread, not the caller's), or null.</summary>
        public global::System.Action<BurilProgress> Progress { get; set; }
    }

    /// <summary>A progress report of a running call (MCP <c>notifications/progress</c>).</summary>
    public sealed class BurilProgress
    {
        /// <summary>A report.</summary>
        /// <param name="progress">How far the call is.</param>
        /// <param name="total">Out of how much, or null.</param>
        /// <param name="message">What it is doing, or null.</param>
        public BurilProgress(double progress, double? total, string message)
        {
            Progress = progress;
            Total = total;
            Message = message;
        }

        /// <summary>How far the call is.</summary>
        public double Progress { get; private set; }

        /// <summary>Out of how much, or null.</summary>
        public double? Total { get; private set; }

        /// <summary>What it is doing, or null.</summary>
        public string Message { get; private set; }
    }

    /// <summary>One call as an <see cref="IMcpToolTransport"/> sends it.</summary>
    public sealed class BurilCallRequest
    {
        /// <summary>A call.</summary>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="inputJson">The input object as JSON text.</param>
        /// <param name="metadataHash">The bindings' tool metadata hash (sent as <c>_meta["buril/metadata"]</c>; may be null).</param>
        /// <param name="toolMetadataHash">The called tool's own hash in the bindings (<c>_meta["buril/tool-metadata"]</c>; may be null).</param>
        /// <param name="options">The call's options (may be null).</param>
        public BurilCallRequest(string name, string inputJson, string metadataHash, string toolMetadataHash, BurilCallOptions options)
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            Name = name;
            inputJson = inputJson ?? "{}";
            this.inputJson = inputJson;
            MetadataHash = metadataHash;
            ToolMetadataHash = toolMetadataHash;
            this.options = options;
        }

        /// <summary>
        /// A call whose input is an object (a generated input class, a <c>JObject</c>, or null
        /// for <c>{}</c>) that this runtime's serializer writes when the call is sent, straight
        /// into the request.
        /// </summary>
        internal BurilCallRequest(string name, object input, string metadataHash, string toolMetadataHash, BurilCallOptions options, bool unused)
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            Name = name;
            this.input = input ?? new global::Newtonsoft.Json.Linq.JObject();
            MetadataHash = metadataHash;
            ToolMetadataHash = toolMetadataHash;
            this.options = options;
            Serialized = true;
        }

        private readonly object input;
        private string inputJson;
        private BurilCallOptions options;

        /// <summary>The options of calls that set none, read (never changed) by the transports.</summary>
        private static readonly BurilCallOptions NoOptions = new BurilCallOptions();

        /// <summary>The tool's wire name.</summary>
        public string Name { get; private set; }

        /// <summary>The input object as JSON text.</summary>
        public string InputJson
        {
            get
            {
                if (inputJson == null)
                {
                    inputJson = BurilJson.Serialize(input);
                }
                return inputJson;
            }
        }

        /// <summary>Writes the input's JSON at the end of <paramref name="text"/>.</summary>
        internal void AppendInput(global::System.Text.StringBuilder text)
        {
            if (inputJson == null)
            {
                BurilJson.SerializeInto(text, input);
            }
            else
            {
                text.Append(inputJson);
            }
        }

        /// <summary>The bindings' tool metadata hash, or null.</summary>
        public string MetadataHash { get; private set; }

        /// <summary>The called tool's own metadata hash in the bindings, or null.</summary>
        public string ToolMetadataHash { get; private set; }

        /// <summary>The call's options.</summary>
        public BurilCallOptions Options
        {
            get
            {
                if (options == null)
                {
                    options = new BurilCallOptions();
                }
                return options;
            }
        }

        /// <summary>The options as the transports read them: the defaults when none were set (no object made for them).</summary>
        internal BurilCallOptions Settings
        {
            get { return options ?? NoOptions; }
        }

        /// <summary>Whether <see cref="InputJson"/> is a JSON object this runtime's serializer wrote (sent as it is, not parsed again).</summary>
        internal bool Serialized { get; set; }
    }

    /// <summary>The transports of this runtime: a call's envelope as parsed JSON, for <see cref="BurilClient"/> to read without printing and parsing it again.</summary>
    internal interface IBurilEnvelopeTransport
    {
        global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> CallEnvelopeAsync(BurilCallRequest request);

        /// <summary><see cref="CallEnvelopeAsync"/> with the envelope read by <paramref name="read"/> as the answer comes (no frame of its own around the wait).</summary>
        global::System.Threading.Tasks.Task<T> CallEnvelopeAsync<T>(BurilCallRequest request, global::System.Func<global::Newtonsoft.Json.Linq.JObject, T> read);

        /// <summary>The blocking form: never needs the caller's thread for a continuation.</summary>
        global::Newtonsoft.Json.Linq.JObject CallEnvelope(BurilCallRequest request);
    }

    /// <summary>
    /// A transport that sends any JSON-RPC request of MCP: what <see cref="BurilTask{TOutput}"/>
    /// starts, polls and cancels tasks with. <see cref="BurilProcessTransport"/> and
    /// <see cref="BurilHttpTransport"/> are ones.
    /// </summary>
    public interface IBurilRequestTransport
    {
        /// <summary>Sends <paramref name="method"/> with <paramref name="parameters"/>; the task ends with the answer's <c>result</c>.</summary>
        /// <param name="method">The JSON-RPC method (<c>tasks/get</c>, ...).</param>
        /// <param name="parameters">Its params.</param>
        /// <param name="token">Gives up the request (the server is told).</param>
        /// <returns>The result.</returns>
        /// <exception cref="BurilTransportException">The server answered an error (<see cref="BurilTransportFailure.RpcError"/>, with its code), or no answer came.</exception>
        global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> RequestAsync(string method, global::Newtonsoft.Json.Linq.JObject parameters, global::System.Threading.CancellationToken token);
    }

    /// <summary>A task as <c>tasks/get</c> answered it.</summary>
    public sealed class BurilTaskSnapshot
    {
        internal BurilTaskSnapshot(global::Newtonsoft.Json.Linq.JObject task)
        {
            TaskId = (string)task["taskId"] ?? "";
            Status = (string)task["status"] ?? "working";
            StatusMessage = (string)task["statusMessage"];
            var poll = task["pollIntervalMs"];
            PollIntervalMs = poll != null && poll.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer ? (long)poll : 500;
            InputRequests = task["inputRequests"] as global::Newtonsoft.Json.Linq.JObject;
            var result = task["result"] as global::Newtonsoft.Json.Linq.JObject;
            if (Status == "completed" && result != null)
            {
                var response = new global::Newtonsoft.Json.Linq.JObject();
                response["result"] = result;
                string ignored;
                Envelope = BurilMcp.EnvelopeObject(response, out ignored);
            }
        }

        internal BurilTaskSnapshot(global::Newtonsoft.Json.Linq.JObject envelope, bool settled)
        {
            TaskId = "";
            Status = "completed";
            PollIntervalMs = 0;
            Envelope = envelope;
        }

        /// <summary>The task's handle.</summary>
        public string TaskId { get; private set; }

        /// <summary><c>working</c> or <c>input_required</c> until it ends <c>completed</c>, <c>failed</c> or <c>cancelled</c>.</summary>
        public string Status { get; private set; }

        /// <summary>What it is doing, or why it ended.</summary>
        public string StatusMessage { get; private set; }

        /// <summary>How often to poll it, in milliseconds.</summary>
        public long PollIntervalMs { get; private set; }

        /// <summary>The questions it waits on, by key (<c>input_required</c>), or null.</summary>
        public global::Newtonsoft.Json.Linq.JObject InputRequests { get; private set; }

        /// <summary>Its envelope, once it completed; null before.</summary>
        public global::Newtonsoft.Json.Linq.JObject Envelope { get; private set; }

        /// <summary>Whether it ended.</summary>
        public bool IsEnded
        {
            get { return Status == "completed" || Status == "failed" || Status == "cancelled"; }
        }
    }

    /// <summary>
    /// A running task of a task tool (<c>#[tool(task)]</c>): poll it, wait for its output, answer
    /// its questions, or cancel it. Made by the client's <c>Start{Tool}Async</c> methods.
    /// </summary>
    /// <typeparam name="TOutput">The tool's output class.</typeparam>
    public sealed class BurilTask<TOutput>
        where TOutput : class
    {
        private readonly IBurilRequestTransport transport;
        private readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, TOutput> read;

        internal BurilTask(string tool, IBurilRequestTransport transport, BurilTaskSnapshot first, global::System.Func<global::Newtonsoft.Json.Linq.JObject, TOutput> read)
        {
            Tool = tool;
            this.transport = transport;
            this.read = read;
            Last = first;
        }

        /// <summary>The tool.</summary>
        public string Tool { get; private set; }

        /// <summary>The task's handle (<c>task_…</c>), valid for its TTL; empty for a task the server answered at once.</summary>
        public string TaskId
        {
            get { return Last.TaskId; }
        }

        /// <summary>The task as last seen.</summary>
        public BurilTaskSnapshot Last { get; private set; }

        /// <summary>The task now (<c>tasks/get</c>).</summary>
        /// <param name="token">Gives up the request.</param>
        /// <returns>The task.</returns>
        public async global::System.Threading.Tasks.Task<BurilTaskSnapshot> PollAsync(global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken))
        {
            if (Last.TaskId.Length == 0)
            {
                return Last;
            }
            var answer = await transport.RequestAsync("tasks/get", Params(), token).ConfigureAwait(false);
            Last = new BurilTaskSnapshot(answer);
            return Last;
        }

        /// <summary>
        /// Waits for the task to end, polling at its interval, and reads its output. Cancelling
        /// <paramref name="token"/> cancels the task (<c>tasks/cancel</c>) and fails the wait with
        /// an <see cref="System.OperationCanceledException"/>.
        /// </summary>
        /// <param name="token">Cancels the task.</param>
        /// <param name="timeout">Gives up waiting (the task goes on): a <see cref="BurilToolException"/> of type <c>timeout</c>.</param>
        /// <param name="onStatus">Told of each status the task is seen in.</param>
        /// <returns>The tool's output.</returns>
        /// <exception cref="BurilToolException">The tool failed (<c>ok: false</c>; <see cref="ToolValidationException"/> for <c>validation</c>), the task failed (<c>runtime</c>) or was cancelled (<c>cancelled</c>), or the timeout passed (<c>timeout</c>).</exception>
        public async global::System.Threading.Tasks.Task<TOutput> WaitAsync(
            global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken),
            global::System.TimeSpan? timeout = null,
            global::System.Action<BurilTaskSnapshot> onStatus = null)
        {
            var watch = global::System.Diagnostics.Stopwatch.StartNew();
            string seen = null;
            while (true)
            {
                if (token.IsCancellationRequested)
                {
                    await CancelAsync().ConfigureAwait(false);
                    token.ThrowIfCancellationRequested();
                }
                var task = await PollAsync().ConfigureAwait(false);
                if (task.Status != seen)
                {
                    seen = task.Status;
                    if (onStatus != null)
                    {
                        onStatus(task);
                    }
                }
                if (task.IsEnded)
                {
                    return Output(task);
                }
                if (timeout.HasValue && watch.Elapsed >= timeout.Value)
                {
                    var envelope = new global::Newtonsoft.Json.Linq.JObject();
                    envelope["ok"] = false;
                    envelope["type"] = "timeout";
                    envelope["error"] = "the task " + TaskId + " was still " + task.Status + " after " + timeout.Value;
                    // The client's reading of a failed envelope throws.
                    return read(envelope);
                }
                var pause = global::System.Math.Min(global::System.Math.Max(task.PollIntervalMs, 10), 1000);
                try
                {
                    await global::System.Threading.Tasks.Task.Delay((int)pause, token).ConfigureAwait(false);
                }
                catch (global::System.OperationCanceledException)
                {
                    // Seen at the loop's top: the task is cancelled there.
                }
            }
        }

        /// <summary>Asks the server to cancel the task (an ended task stays as it is).</summary>
        /// <returns>When the server took the request.</returns>
        public async global::System.Threading.Tasks.Task CancelAsync()
        {
            if (Last.TaskId.Length == 0)
            {
                return;
            }
            await transport.RequestAsync("tasks/cancel", Params(), global::System.Threading.CancellationToken.None).ConfigureAwait(false);
        }

        /// <summary>Answers the question <paramref name="key"/> (see <see cref="BurilTaskSnapshot.InputRequests"/>) with <paramref name="answer"/> (<c>tasks/update</c>).</summary>
        /// <param name="key">The question's key.</param>
        /// <param name="answer">The answer (an elicitation's <c>{"action": "accept", "content": {...}}</c>).</param>
        /// <returns>When the server took it.</returns>
        public async global::System.Threading.Tasks.Task AnswerAsync(string key, global::Newtonsoft.Json.Linq.JToken answer)
        {
            var parameters = Params();
            var responses = new global::Newtonsoft.Json.Linq.JObject();
            responses[key] = answer;
            parameters["inputResponses"] = responses;
            await transport.RequestAsync("tasks/update", parameters, global::System.Threading.CancellationToken.None).ConfigureAwait(false);
        }

        private global::Newtonsoft.Json.Linq.JObject Params()
        {
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["taskId"] = TaskId;
            parameters["_meta"] = BurilMcp.FollowsTasks();
            return parameters;
        }

        private TOutput Output(BurilTaskSnapshot task)
        {
            if (task.Status == "completed" && task.Envelope != null)
            {
                return read(task.Envelope);
            }
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            envelope["ok"] = false;
            envelope["type"] = task.Status == "cancelled" ? "cancelled" : "runtime";
            envelope["error"] = task.StatusMessage ?? ("the task " + task.TaskId + " ended " + task.Status);
            return read(envelope);
        }
    }

    /// <summary>One problem with an input: where (a JSON pointer) and what.</summary>
    public sealed class BurilProblem
    {
        /// <summary>A problem at <paramref name="path"/>.</summary>
        /// <param name="path">A JSON pointer into the input (<c>""</c> is the input itself).</param>
        /// <param name="message">What is wrong.</param>
        public BurilProblem(string path, string message)
        {
            Path = path ?? "";
            Message = message ?? "";
        }

        /// <summary>A JSON pointer into the input (<c>""</c> is the input itself).</summary>
        public string Path { get; private set; }

        /// <summary>What is wrong.</summary>
        public string Message { get; private set; }

        /// <summary>The problem as text: <c>/path: message</c>.</summary>
        /// <returns>The text.</returns>
        public override string ToString()
        {
            return Path.Length == 0 ? Message : Path + ": " + Message;
        }
    }

    /// <summary>
    /// Input refused as <c>validation</c>, with every problem (a JSON pointer and a message).
    /// A tool throws it for input it refuses (<see cref="ITool.Run"/> answers it as
    /// <c>{"ok": false, "type": "validation", ...}</c> so that the agent can retry), and
    /// <see cref="BurilClient"/> throws it when a tool answers <c>validation</c>.
    /// </summary>
    public class ToolValidationException : BurilToolException
    {
        /// <summary>Refuses the input for <paramref name="message"/>.</summary>
        /// <param name="message">Why, in words the agent can act on.</param>
        public ToolValidationException(string message)
            : this(message, null)
        {
        }

        /// <summary>Refuses the input for the given problems.</summary>
        /// <param name="message">Why, in words the agent can act on.</param>
        /// <param name="problems">Where and what, one problem each (may be null).</param>
        public ToolValidationException(string message, global::System.Collections.Generic.IList<BurilProblem> problems)
            : base(null, "validation", message, problems, null, null, null)
        {
        }

        /// <summary>A call a tool refused as <c>validation</c>.</summary>
        /// <param name="tool">The tool called.</param>
        /// <param name="error">The envelope's message.</param>
        /// <param name="problems">The envelope's problems (may be null).</param>
        /// <param name="envelopeJson">The envelope as received (may be null).</param>
        public ToolValidationException(string tool, string error, global::System.Collections.Generic.IList<BurilProblem> problems, string envelopeJson)
            : base(tool, "validation", error, problems, null, envelopeJson, null)
        {
        }
    }

    /// <summary>
    /// A call through <see cref="BurilClient"/> failed: the tool answered <c>ok: false</c>
    /// (<c>validation</c> failures are <see cref="ToolValidationException"/>s), or the answer
    /// could not be read (<see cref="Type"/> is then <c>"protocol"</c>). A call that never got
    /// an answer throws <see cref="BurilTransportException"/> instead.
    /// </summary>
    public class BurilToolException : global::System.Exception
    {
        /// <summary>A failed call.</summary>
        /// <param name="tool">The tool called (null: thrown by a tool itself).</param>
        /// <param name="type">The kind of failure (<c>validation</c>, <c>runtime</c>, <c>not_found</c>, <c>protocol</c>, ...).</param>
        /// <param name="error">The message.</param>
        /// <param name="problems">The problems with the input (may be null).</param>
        /// <param name="suggestions">Tool names the caller may have meant (may be null).</param>
        /// <param name="envelopeJson">The answer as received (may be null).</param>
        /// <param name="inner">The cause (may be null).</param>
        public BurilToolException(
            string tool,
            string type,
            string error,
            global::System.Collections.Generic.IList<BurilProblem> problems,
            global::System.Collections.Generic.IList<string> suggestions,
            string envelopeJson,
            global::System.Exception inner)
            : base(tool == null ? error : "`" + tool + "` failed (" + type + "): " + error, inner)
        {
            Tool = tool;
            Type = type;
            Error = error;
            Problems = new global::System.Collections.ObjectModel.ReadOnlyCollection<BurilProblem>(
                problems == null ? new BurilProblem[0] : new global::System.Collections.Generic.List<BurilProblem>(problems).ToArray());
            Suggestions = new global::System.Collections.ObjectModel.ReadOnlyCollection<string>(
                suggestions == null ? new string[0] : new global::System.Collections.Generic.List<string>(suggestions).ToArray());
            EnvelopeJson = envelopeJson;
        }

        /// <summary>The tool called, or null for an exception a tool threw itself.</summary>
        public string Tool { get; private set; }

        /// <summary>The envelope's <c>type</c>: <c>validation</c>, <c>runtime</c>, <c>panic</c>, <c>not_found</c>, <c>disabled</c>, <c>timeout</c>, <c>cancelled</c>, <c>limited</c>; or <c>protocol</c> when the answer could not be read.</summary>
        public string Type { get; private set; }

        /// <summary>The envelope's <c>error</c>.</summary>
        public string Error { get; private set; }

        /// <summary>The envelope's <c>problems</c> (a JSON pointer and a message each), possibly none.</summary>
        public global::System.Collections.Generic.IList<BurilProblem> Problems { get; private set; }

        /// <summary>The envelope's <c>suggestions</c>, possibly none.</summary>
        public global::System.Collections.Generic.IList<string> Suggestions { get; private set; }

        /// <summary>The envelope as received, or null.</summary>
        public string EnvelopeJson { get; private set; }
    }

    /// <summary>What part of carrying a call failed (see <see cref="BurilTransportException"/>).</summary>
    public enum BurilTransportFailure
    {
        /// <summary>The server could not be reached (connection refused, name not resolved).</summary>
        Connection,

        /// <summary>The server answered with an HTTP status other than success.</summary>
        HttpStatus,

        /// <summary>The answer was not the MCP the transport speaks (not JSON-RPC, no result, an unknown protocol version).</summary>
        Protocol,

        /// <summary>The server answered the request with a JSON-RPC error (an unknown tool is one).</summary>
        RpcError,

        /// <summary>No answer came within the call's timeout; the server was told to cancel the call.</summary>
        Timeout,

        /// <summary>The server process could not start, or exited.</summary>
        Process,
    }

    /// <summary>
    /// A call got no envelope: the server could not be reached, answered an HTTP error or a
    /// JSON-RPC error, spoke another protocol, exited, or did not answer in time. The message
    /// says what failed and quotes what the server said (<see cref="ServerText"/>).
    /// </summary>
    public class BurilTransportException : global::System.Exception
    {
        /// <summary>A failed transport.</summary>
        /// <param name="failure">What failed.</param>
        /// <param name="message">What failed, in words.</param>
        /// <param name="serverText">What the server said: an HTTP body, a JSON-RPC error's message, the process's last lines of standard error (may be null).</param>
        /// <param name="statusCode">The HTTP status, or 0.</param>
        /// <param name="rpcCode">The JSON-RPC error code, or 0.</param>
        /// <param name="inner">The cause (may be null).</param>
        public BurilTransportException(BurilTransportFailure failure, string message, string serverText, int statusCode, int rpcCode, global::System.Exception inner)
            : base(string.IsNullOrEmpty(serverText) ? message : message + ": " + serverText, inner)
        {
            Failure = failure;
            ServerText = serverText;
            StatusCode = statusCode;
            RpcCode = rpcCode;
        }

        /// <summary>What failed.</summary>
        public BurilTransportFailure Failure { get; private set; }

        /// <summary>What the server said, or null.</summary>
        public string ServerText { get; private set; }

        /// <summary>The HTTP status, or 0.</summary>
        public int StatusCode { get; private set; }

        /// <summary>The JSON-RPC error code, or 0.</summary>
        public int RpcCode { get; private set; }
    }

    /// <summary>What the bindings know about one tool (see <see cref="BurilCatalog"/>).</summary>
    public sealed class BurilToolInfo
    {
        /// <summary>Describes a tool.</summary>
        /// <param name="name">The wire name.</param>
        /// <param name="title">The display title, or null.</param>
        /// <param name="description">The description.</param>
        /// <param name="family">The family.</param>
        /// <param name="aliases">Deprecated former names.</param>
        /// <param name="toolType">The generated abstract tool class.</param>
        /// <param name="inputType">The input class.</param>
        /// <param name="outputType">The output class.</param>
        /// <param name="inputSchemaJson">The input's JSON Schema as JSON text.</param>
        /// <param name="outputSchemaJson">The output's JSON Schema as JSON text.</param>
        /// <param name="dangerous">Whether the tool stays off until a host enables it.</param>
        /// <param name="offThread">Whether the tool may run off the main thread.</param>
        public BurilToolInfo(
            string name,
            string title,
            string description,
            string family,
            string[] aliases,
            global::System.Type toolType,
            global::System.Type inputType,
            global::System.Type outputType,
            string inputSchemaJson,
            string outputSchemaJson,
            bool dangerous,
            bool offThread)
        {
            Name = name;
            Title = title;
            Description = description;
            Family = family;
            Aliases = new global::System.Collections.ObjectModel.ReadOnlyCollection<string>(aliases ?? new string[0]);
            ToolType = toolType;
            InputType = inputType;
            OutputType = outputType;
            InputSchemaJson = inputSchemaJson;
            OutputSchemaJson = outputSchemaJson;
            Dangerous = dangerous;
            OffThread = offThread;
        }

        /// <summary>The wire name.</summary>
        public string Name { get; private set; }

        /// <summary>The display title, or null.</summary>
        public string Title { get; private set; }

        /// <summary>The description.</summary>
        public string Description { get; private set; }

        /// <summary>The family.</summary>
        public string Family { get; private set; }

        /// <summary>Deprecated former names, still accepted.</summary>
        public global::System.Collections.Generic.IList<string> Aliases { get; private set; }

        /// <summary>The generated abstract tool class.</summary>
        public global::System.Type ToolType { get; private set; }

        /// <summary>The input class.</summary>
        public global::System.Type InputType { get; private set; }

        /// <summary>The output class.</summary>
        public global::System.Type OutputType { get; private set; }

        /// <summary>The input's JSON Schema as JSON text.</summary>
        public string InputSchemaJson { get; private set; }

        /// <summary>The output's JSON Schema as JSON text.</summary>
        public string OutputSchemaJson { get; private set; }

        /// <summary>Whether the tool stays off until a host enables it.</summary>
        public bool Dangerous { get; private set; }

        /// <summary>Whether the tool may run off the main thread.</summary>
        public bool OffThread { get; private set; }
    }

    /// <summary>
    /// The JSON settings of the bindings. Read and write the generated classes through these
    /// (or settings from <see cref="CreateSettings"/>): strings that look like dates stay
    /// strings, floating-point numbers are read as <c>double</c>, and integers are read exactly
    /// (<see cref="BurilIntegerConverter"/>).
    /// </summary>
    public static class BurilJson
    {
        /// <summary>New settings for the generated classes.</summary>
        /// <returns>The settings.</returns>
        public static global::Newtonsoft.Json.JsonSerializerSettings CreateSettings()
        {
            return new global::Newtonsoft.Json.JsonSerializerSettings
            {
                DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None,
                FloatParseHandling = global::Newtonsoft.Json.FloatParseHandling.Double,
                Culture = global::System.Globalization.CultureInfo.InvariantCulture,
                Converters = new global::System.Collections.Generic.List<global::Newtonsoft.Json.JsonConverter>
                {
                    new BurilIntegerConverter(),
                },
            };
        }

        /// <summary>A new serializer with <see cref="CreateSettings"/>.</summary>
        /// <returns>The serializer.</returns>
        public static global::Newtonsoft.Json.JsonSerializer CreateSerializer()
        {
            return global::Newtonsoft.Json.JsonSerializer.Create(CreateSettings());
        }

        // One serializer for every call: a configured JsonSerializer is safe to share between
        // threads, and making one per call costs more than many a call's JSON.
        private static readonly global::Newtonsoft.Json.JsonSerializer Shared = CreateSerializer();

        /// <summary>A value as compact JSON text.</summary>
        /// <param name="value">The value.</param>
        /// <returns>The JSON text.</returns>
        public static string Serialize(object value)
        {
            var text = new global::System.IO.StringWriter(new global::System.Text.StringBuilder(256), global::System.Globalization.CultureInfo.InvariantCulture);
            using (var writer = new global::Newtonsoft.Json.JsonTextWriter(text) { Formatting = global::Newtonsoft.Json.Formatting.None })
            {
                Shared.Serialize(writer, value);
            }
            return text.ToString();
        }

        /// <summary>Writes a value as compact JSON text at the end of <paramref name="text"/>.</summary>
        internal static void SerializeInto(global::System.Text.StringBuilder text, object value)
        {
            var output = new global::System.IO.StringWriter(text, global::System.Globalization.CultureInfo.InvariantCulture);
            using (var writer = new global::Newtonsoft.Json.JsonTextWriter(output) { Formatting = global::Newtonsoft.Json.Formatting.None })
            {
                Shared.Serialize(writer, value);
            }
        }

        /// <summary>Reads JSON text as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="json">The JSON text.</param>
        /// <returns>The value.</returns>
        public static T Deserialize<T>(string json)
        {
            return (T)Deserialize(json, typeof(T));
        }

        /// <summary>Reads JSON text as a value of <paramref name="type"/>.</summary>
        /// <param name="json">The JSON text.</param>
        /// <param name="type">The type to read.</param>
        /// <returns>The value.</returns>
        public static object Deserialize(string json, global::System.Type type)
        {
            try
            {
                using (var reader = new global::Newtonsoft.Json.JsonTextReader(new global::System.IO.StringReader(json)))
                {
                    var value = Shared.Deserialize(reader, type);
                    while (reader.Read())
                    {
                        if (reader.TokenType != global::Newtonsoft.Json.JsonToken.Comment)
                        {
                            throw new global::Newtonsoft.Json.JsonReaderException("unexpected content after the JSON value");
                        }
                    }
                    return value;
                }
            }
            catch (global::System.Exception error)
            {
                throw Refused(error);
            }
        }

        /// <summary>
        /// What Newtonsoft.Json throws for some text it cannot read other than as a
        /// <c>JsonException</c> (a bad <c>\u</c> escape is a <c>FormatException</c>, a number
        /// too large for a double an <c>OverflowException</c>, a duplicate member an
        /// <c>ArgumentException</c>), as a <c>JsonReaderException</c>; anything else as it is.
        /// </summary>
        private static global::System.Exception Refused(global::System.Exception error)
        {
            if (error is global::System.FormatException || error is global::System.OverflowException
                || (error is global::System.ArgumentException && !(error is global::System.ArgumentNullException)))
            {
                return new global::Newtonsoft.Json.JsonReaderException(error.Message, error);
            }
            return error;
        }

        /// <summary>Parses JSON text, keeping strings as strings; fails on trailing content, and on any text it cannot read with a <c>JsonException</c>.</summary>
        /// <param name="json">The JSON text.</param>
        /// <returns>The value.</returns>
        public static global::Newtonsoft.Json.Linq.JToken Parse(string json)
        {
            if (json == null)
            {
                throw new global::System.ArgumentNullException("json");
            }
            try
            {
                using (var reader = new global::Newtonsoft.Json.JsonTextReader(new global::System.IO.StringReader(json)))
                {
                    reader.DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None;
                    reader.FloatParseHandling = global::Newtonsoft.Json.FloatParseHandling.Double;
                    var token = global::Newtonsoft.Json.Linq.JToken.ReadFrom(reader);
                    while (reader.Read())
                    {
                        if (reader.TokenType != global::Newtonsoft.Json.JsonToken.Comment)
                        {
                            throw new global::Newtonsoft.Json.JsonReaderException("unexpected content after the JSON value");
                        }
                    }
                    return token;
                }
            }
            catch (global::System.Exception error)
            {
                throw Refused(error);
            }
        }

        /// <summary>Reads a JSON value as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="token">The JSON value.</param>
        /// <returns>The value.</returns>
        public static T FromToken<T>(global::Newtonsoft.Json.Linq.JToken token)
        {
            return (T)FromToken(token, typeof(T));
        }

        /// <summary>Reads a JSON value as a value of <paramref name="type"/>.</summary>
        /// <param name="token">The JSON value.</param>
        /// <param name="type">The type to read.</param>
        /// <returns>The value.</returns>
        public static object FromToken(global::Newtonsoft.Json.Linq.JToken token, global::System.Type type)
        {
            if (token == null)
            {
                throw new global::System.ArgumentNullException("token");
            }
            // A value the transports kept as its JSON text (a result's structured content) is
            // read from that text, with no JSON tree made for it first.
            var raw = token as global::Newtonsoft.Json.Linq.JRaw;
            if (raw != null && raw.Value is string)
            {
                return Deserialize((string)raw.Value, type);
            }
            return token.ToObject(type, Shared);
        }

        /// <summary>
        /// A value as a JSON value (<c>null</c> as a JSON null). A <c>ulong</c> beyond
        /// <c>long.MaxValue</c> is held as a <c>BigInteger</c>, which every Newtonsoft.Json
        /// writes (before version 7, a JSON value holding such a <c>ulong</c> fails to be written).
        /// </summary>
        /// <param name="value">The value.</param>
        /// <returns>The JSON value.</returns>
        public static global::Newtonsoft.Json.Linq.JToken ToToken(object value)
        {
            if (value == null)
            {
                return global::Newtonsoft.Json.Linq.JValue.CreateNull();
            }
            var token = global::Newtonsoft.Json.Linq.JToken.FromObject(value, Shared);
            WidenUnsigned(token as global::Newtonsoft.Json.Linq.JValue);
            var container = token as global::Newtonsoft.Json.Linq.JContainer;
            if (container != null)
            {
                foreach (var descendant in container.Descendants())
                {
                    WidenUnsigned(descendant as global::Newtonsoft.Json.Linq.JValue);
                }
            }
            return token;
        }

        /// <summary>Makes a JSON value holding a <c>ulong</c> beyond <c>long.MaxValue</c> hold it as a <c>BigInteger</c>.</summary>
        private static void WidenUnsigned(global::Newtonsoft.Json.Linq.JValue token)
        {
            if (token != null && token.Value is ulong && (ulong)token.Value > long.MaxValue)
            {
                token.Value = new global::System.Numerics.BigInteger((ulong)token.Value);
            }
        }

        /// <summary>Tries to read a JSON value as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="token">The JSON value.</param>
        /// <param name="shapeMatches">Whether the value has the JSON type <typeparamref name="T"/> is written as.</param>
        /// <param name="value">The value read, or the default.</param>
        /// <returns>Whether the value could be read.</returns>
        public static bool TryFromToken<T>(global::Newtonsoft.Json.Linq.JToken token, bool shapeMatches, out T value)
        {
            value = default(T);
            if (token == null || !shapeMatches)
            {
                return false;
            }
            try
            {
                value = FromToken<T>(token);
                return true;
            }
            catch (global::Newtonsoft.Json.JsonException)
            {
                return false;
            }
            catch (global::System.ArgumentException)
            {
                return false;
            }
            catch (global::System.FormatException)
            {
                return false;
            }
            catch (global::System.InvalidCastException)
            {
                return false;
            }
            catch (global::System.OverflowException)
            {
                return false;
            }
        }

        /// <summary>The success envelope: <c>{"ok": true, "data": data}</c>.</summary>
        /// <param name="data">The data.</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject Success(object data)
        {
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            envelope["ok"] = true;
            envelope["data"] = ToToken(data);
            return envelope;
        }

        /// <summary>A failure envelope: <c>{"ok": false, "type": type, "error": error, "problems": [...]}</c>.</summary>
        /// <param name="type">The kind of failure (<c>validation</c>, <c>runtime</c>, ...).</param>
        /// <param name="error">The message.</param>
        /// <param name="problems">The problems with the input (may be null or empty: then left out).</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject Failure(string type, string error, global::System.Collections.Generic.IList<BurilProblem> problems)
        {
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            envelope["ok"] = false;
            envelope["type"] = type;
            envelope["error"] = error;
            if (problems != null && problems.Count > 0)
            {
                var list = new global::Newtonsoft.Json.Linq.JArray();
                foreach (var problem in problems)
                {
                    var item = new global::Newtonsoft.Json.Linq.JObject();
                    item["path"] = problem.Path;
                    item["message"] = problem.Message;
                    list.Add(item);
                }
                envelope["problems"] = list;
            }
            return envelope;
        }

        /// <summary>
        /// Runs a typed tool on an input object: reads the input, calls <paramref name="execute"/>
        /// and wraps its output in the success envelope. Input that cannot be read, and a
        /// <see cref="ToolValidationException"/> from <paramref name="execute"/>, give the
        /// validation envelope; other exceptions propagate.
        /// </summary>
        /// <typeparam name="TInput">The input class.</typeparam>
        /// <typeparam name="TOutput">The output class.</typeparam>
        /// <param name="name">The tool's wire name, for messages.</param>
        /// <param name="input">The input object (null reads as <c>{}</c>).</param>
        /// <param name="execute">The tool's typed work.</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject RunTool<TInput, TOutput>(
            string name,
            global::Newtonsoft.Json.Linq.JObject input,
            global::System.Func<TInput, TOutput> execute)
            where TInput : class
            where TOutput : class
        {
            if (execute == null)
            {
                throw new global::System.ArgumentNullException("execute");
            }
            TInput typed;
            try
            {
                typed = FromToken<TInput>(input ?? new global::Newtonsoft.Json.Linq.JObject());
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                return Failure("validation", "invalid input for `" + name + "`: " + error.Message, null);
            }
            TOutput output;
            try
            {
                output = execute(typed);
            }
            catch (ToolValidationException error)
            {
                return Failure("validation", error.Error, error.Problems);
            }
            if (output == null)
            {
                throw new global::System.InvalidOperationException("the tool `" + name + "` returned null; return an output object");
            }
            return Success(output);
        }

        /// <summary>Reads the object at the reader (for union converters), keeping strings as strings.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject ReadObject(global::Newtonsoft.Json.JsonReader reader, string typeName)
        {
            var token = ReadToken(reader);
            var json = token as global::Newtonsoft.Json.Linq.JObject;
            if (json == null)
            {
                throw new global::Newtonsoft.Json.JsonSerializationException(
                    "expected an object for `" + typeName + "`, got " + token.Type + " at '" + reader.Path + "'");
            }
            return json;
        }

        /// <summary>Reads the value at the reader (for union converters), keeping strings as strings.</summary>
        internal static global::Newtonsoft.Json.Linq.JToken ReadToken(global::Newtonsoft.Json.JsonReader reader)
        {
            var dates = reader.DateParseHandling;
            reader.DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None;
            try
            {
                return global::Newtonsoft.Json.Linq.JToken.ReadFrom(reader);
            }
            finally
            {
                reader.DateParseHandling = dates;
            }
        }

        /// <summary>The string value of a tagged union's tag.</summary>
        internal static string ReadTag(global::Newtonsoft.Json.Linq.JObject json, string tag, string typeName)
        {
            var value = json[tag];
            if (value == null || value.Type != global::Newtonsoft.Json.Linq.JTokenType.String)
            {
                throw new global::Newtonsoft.Json.JsonSerializationException(
                    "`" + typeName + "` needs the string property `" + tag + "` at '" + json.Path + "'");
            }
            return (string)value;
        }

        /// <summary>The error for a tag value no variant has.</summary>
        internal static global::System.Exception UnknownTag(global::Newtonsoft.Json.Linq.JObject json, string tag, string typeName)
        {
            return new global::Newtonsoft.Json.JsonSerializationException(
                "`" + typeName + "` has no variant with `" + tag + "` = \"" + (string)json[tag] + "\" at '" + json.Path + "'");
        }

        /// <summary>Fills a union variant from its object.</summary>
        internal static void Populate(global::Newtonsoft.Json.Linq.JObject json, object target, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            using (var reader = json.CreateReader())
            {
                serializer.Populate(reader, target);
            }
        }

        /// <summary>Writes a JSON value (null as a JSON null).</summary>
        internal static void WriteToken(global::Newtonsoft.Json.JsonWriter writer, global::Newtonsoft.Json.Linq.JToken token)
        {
            if (token == null)
            {
                writer.WriteNull();
            }
            else
            {
                token.WriteTo(writer);
            }
        }
    }

    /// <summary>
    /// Reads the integer types of the bindings exactly: <c>int</c>, <c>uint</c>, <c>long</c>,
    /// <c>ulong</c>, <c>System.Numerics.BigInteger</c> and their nullable forms. A JSON integer,
    /// or a number without a fractional part (<c>2.0</c>, as the host accepts), is read when the
    /// type holds it; anything else (<c>1.5</c>, a value beyond the type's range, a string, null
    /// for a type that is not nullable) fails with a <c>JsonSerializationException</c> naming
    /// its path. Newtonsoft.Json alone rounds <c>1.5</c> to <c>2</c> for most of these types,
    /// and cannot read an integer beyond <c>long</c> (which it parses as a <c>BigInteger</c>)
    /// into a <c>ulong?</c>. <see cref="BurilJson.CreateSettings"/> includes it; add it to
    /// settings of your own. Writing is left to Newtonsoft.Json, which writes each of them as a
    /// plain JSON integer.
    /// </summary>
    public sealed class BurilIntegerConverter : global::Newtonsoft.Json.JsonConverter
    {
        /// <summary>Whether <paramref name="objectType"/> is one of the integer types.</summary>
        /// <param name="objectType">The type to read.</param>
        /// <returns>Whether this converter reads it.</returns>
        public override bool CanConvert(global::System.Type objectType)
        {
            // Asked for every value read or written: the common answers first, with no reflection.
            if (objectType == typeof(string) || objectType == typeof(double) || objectType == typeof(bool))
            {
                return false;
            }
            var type = global::System.Nullable.GetUnderlyingType(objectType) ?? objectType;
            return type == typeof(int)
                || type == typeof(uint)
                || type == typeof(long)
                || type == typeof(ulong)
                || type == typeof(global::System.Numerics.BigInteger);
        }

        /// <summary>False: Newtonsoft.Json writes integers as they are.</summary>
        public override bool CanWrite
        {
            get { return false; }
        }

        /// <summary>Reads the integer at the reader as <paramref name="objectType"/>.</summary>
        /// <param name="reader">The reader, at the value.</param>
        /// <param name="objectType">The integer type, or its nullable form.</param>
        /// <param name="existingValue">Not used.</param>
        /// <param name="serializer">Not used.</param>
        /// <returns>The value, boxed (null for a JSON null read as a nullable type).</returns>
        public override object ReadJson(global::Newtonsoft.Json.JsonReader reader, global::System.Type objectType, object existingValue, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            var underlying = global::System.Nullable.GetUnderlyingType(objectType);
            var type = underlying ?? objectType;
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Null && underlying != null)
            {
                return null;
            }
            global::System.Numerics.BigInteger value;
            if (!TryInteger(reader, out value))
            {
                throw Refuse(reader, type, "expected an integer");
            }
            if (type == typeof(global::System.Numerics.BigInteger))
            {
                return value;
            }
            if (type == typeof(int) && value >= int.MinValue && value <= int.MaxValue)
            {
                return (int)value;
            }
            if (type == typeof(uint) && value >= uint.MinValue && value <= uint.MaxValue)
            {
                return (uint)value;
            }
            if (type == typeof(long) && value >= long.MinValue && value <= long.MaxValue)
            {
                return (long)value;
            }
            if (type == typeof(ulong) && value >= ulong.MinValue && value <= ulong.MaxValue)
            {
                return (ulong)value;
            }
            throw Refuse(reader, type, "out of range");
        }

        /// <summary>Not called (<see cref="CanWrite"/> is false).</summary>
        /// <param name="writer">The writer.</param>
        /// <param name="value">The value.</param>
        /// <param name="serializer">The serializer.</param>
        public override void WriteJson(global::Newtonsoft.Json.JsonWriter writer, object value, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException("integers are written by Newtonsoft.Json");
        }

        /// <summary>The integer at the reader, exactly: an integer token, or a float token without a fractional part.</summary>
        private static bool TryInteger(global::Newtonsoft.Json.JsonReader reader, out global::System.Numerics.BigInteger value)
        {
            value = global::System.Numerics.BigInteger.Zero;
            var raw = reader.Value;
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Integer)
            {
                if (raw is global::System.Numerics.BigInteger)
                {
                    value = (global::System.Numerics.BigInteger)raw;
                }
                else if (raw is ulong)
                {
                    value = (ulong)raw;
                }
                else
                {
                    value = global::System.Convert.ToInt64(raw, global::System.Globalization.CultureInfo.InvariantCulture);
                }
                return true;
            }
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Float)
            {
                if (raw is decimal)
                {
                    var number = (decimal)raw;
                    if (decimal.Truncate(number) != number)
                    {
                        return false;
                    }
                    value = new global::System.Numerics.BigInteger(number);
                    return true;
                }
                var real = global::System.Convert.ToDouble(raw, global::System.Globalization.CultureInfo.InvariantCulture);
                if (double.IsNaN(real) || double.IsInfinity(real) || global::System.Math.Floor(real) != real)
                {
                    return false;
                }
                value = new global::System.Numerics.BigInteger(real);
                return true;
            }
            return false;
        }

        /// <summary>The error for a value the type does not hold.</summary>
        private static global::System.Exception Refuse(global::Newtonsoft.Json.JsonReader reader, global::System.Type type, string why)
        {
            var shown = reader.Value == null
                ? reader.TokenType.ToString()
                : global::System.Convert.ToString(reader.Value, global::System.Globalization.CultureInfo.InvariantCulture);
            return new global::Newtonsoft.Json.JsonSerializationException(
                "Error converting value " + shown + " to type '" + type.Name + "' (" + why + "). Path '" + reader.Path + "'.");
        }
    }

    /// <summary>
    /// Turns off an inherited converter: the variants of a tagged union are read and written as
    /// plain objects once the union's converter has picked the variant.
    /// </summary>
    internal sealed class BurilNoConverter : global::Newtonsoft.Json.JsonConverter
    {
        public override bool CanRead
        {
            get { return false; }
        }

        public override bool CanWrite
        {
            get { return false; }
        }

        public override bool CanConvert(global::System.Type objectType)
        {
            return false;
        }

        public override object ReadJson(global::Newtonsoft.Json.JsonReader reader, global::System.Type objectType, object existingValue, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException();
        }

        public override void WriteJson(global::Newtonsoft.Json.JsonWriter writer, object value, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException();
        }
    }

    /// <summary>
    /// A typed client for the tools: one method per tool (generated in <c>Buril.Client.cs</c>),
    /// over an <see cref="IToolTransport"/>.
    /// </summary>
    public sealed partial class BurilClient
    {
        private readonly IToolTransport transport;

        /// <summary>A client sending calls through <paramref name="transport"/>.</summary>
        /// <param name="transport">The transport.</param>
        public BurilClient(IToolTransport transport)
        {
            if (transport == null)
            {
                throw new global::System.ArgumentNullException("transport");
            }
            this.transport = transport;
        }

        /// <summary>The transport calls go through.</summary>
        public IToolTransport Transport
        {
            get { return transport; }
        }

        /// <summary>
        /// Raised, on the thread that reads the answer, for each warning of a successful call:
        /// a deprecated alias, or bindings generated from other tool metadata than the server's
        /// (regenerate them). The call still returns its data.
        /// </summary>
        public event global::System.EventHandler<BurilWarningEventArgs> WarningReceived;

        /// <summary>
        /// The server's tool metadata hash from its latest answer (null before one, or when the
        /// transport is not an <see cref="IMcpToolTransport"/>); equal to
        /// <see cref="MetadataHash"/> when these bindings are current.
        /// </summary>
        public string ServerVersion
        {
            get
            {
                var mcp = transport as IMcpToolTransport;
                return mcp == null ? null : mcp.ServerVersion;
            }
        }

        /// <summary>
        /// Calls a tool by name and reads its data as <typeparamref name="TOutput"/>; it serves
        /// tools these bindings do not know. Blocks until the answer; over an
        /// <see cref="IMcpToolTransport"/> the wait is on a pool thread's task, so that calling
        /// it from Unity's main thread cannot deadlock (it still blocks the editor while it waits:
        /// prefer <see cref="CallAsync{TOutput}"/> there).
        /// </summary>
        /// <typeparam name="TOutput">The class to read the data as.</typeparam>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="input">The input: a generated input class, a <c>JObject</c>, or null for <c>{}</c>.</param>
        /// <returns>The data.</returns>
        /// <exception cref="ToolValidationException">The tool refused the input (<c>validation</c>), with every problem.</exception>
        /// <exception cref="BurilToolException">The tool answered <c>ok: false</c>, or the answer could not be read.</exception>
        /// <exception cref="BurilTransportException">No answer came back.</exception>
        public TOutput Call<TOutput>(string name, object input)
            where TOutput : class
        {
            return invoke<TOutput>(name, null, input);
        }

        /// <summary>
        /// Calls a tool by name without blocking; the task ends with its data read as
        /// <typeparamref name="TOutput"/>. Continuations do not need the caller's thread, so
        /// <c>await</c> it from Unity's main thread.
        /// </summary>
        /// <typeparam name="TOutput">The class to read the data as.</typeparam>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="input">The input: a generated input class, a <c>JObject</c>, or null for <c>{}</c>.</param>
        /// <param name="options">A timeout, cancellation and progress (may be null).</param>
        /// <returns>The data.</returns>
        public global::System.Threading.Tasks.Task<TOutput> CallAsync<TOutput>(string name, object input, BurilCallOptions options = null)
            where TOutput : class
        {
            return invokeAsync<TOutput>(name, null, input, options);
        }

        /// <summary>
        /// Starts the task tool <paramref name="name"/> as an MCP task (the tasks extension
        /// declared on the call); the task ends with its handle once the server stored it. The
        /// transport must be an <see cref="IBurilRequestTransport"/> (both of this runtime's are).
        /// A server that answered at once gives a handle that has already completed.
        /// </summary>
        /// <typeparam name="TOutput">The class to read the data as.</typeparam>
        /// <param name="name">The tool's wire name.</param>
        /// <param name="input">The input: a generated input class, a <c>JObject</c>, or null for <c>{}</c>.</param>
        /// <param name="token">Gives up starting it.</param>
        /// <returns>The task.</returns>
        public global::System.Threading.Tasks.Task<BurilTask<TOutput>> StartTaskAsync<TOutput>(string name, object input, global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken))
            where TOutput : class
        {
            return startTaskAsync<TOutput>(name, null, input, token);
        }

        private async global::System.Threading.Tasks.Task<BurilTask<TOutput>> startTaskAsync<TOutput>(string name, string toolHash, object input, global::System.Threading.CancellationToken token)
            where TOutput : class
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            var requests = transport as IBurilRequestTransport;
            if (requests == null)
            {
                throw new global::System.InvalidOperationException("`" + name + "`: the transport cannot follow tasks (it is not an IBurilRequestTransport)");
            }
            var arguments = global::Newtonsoft.Json.Linq.JToken.Parse(BurilJson.Serialize(input ?? new global::Newtonsoft.Json.Linq.JObject()));
            var meta = BurilMcp.FollowsTasks();
            meta["buril/metadata"] = MetadataHash;
            if (toolHash != null)
            {
                meta["buril/tool-metadata"] = toolHash;
            }
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["name"] = name;
            parameters["arguments"] = arguments;
            parameters["_meta"] = meta;
            var warned = WarningReceived;
            global::System.Func<global::Newtonsoft.Json.Linq.JObject, TOutput> readOutput = envelope => read<TOutput>(name, envelope, null, warned);
            global::Newtonsoft.Json.Linq.JObject result;
            try
            {
                result = await requests.RequestAsync("tools/call", parameters, token).ConfigureAwait(false);
            }
            catch (BurilTransportException error)
            {
                if (error.Failure == BurilTransportFailure.RpcError && error.RpcCode == -32602)
                {
                    var unknown = new global::Newtonsoft.Json.Linq.JObject();
                    unknown["ok"] = false;
                    unknown["type"] = "not_found";
                    unknown["error"] = error.ServerText ?? error.Message;
                    readOutput(unknown);
                }
                throw;
            }
            if ((string)result["resultType"] == "task" && result["taskId"] != null)
            {
                return new BurilTask<TOutput>(name, requests, new BurilTaskSnapshot(result), readOutput);
            }
            // Answered at once: the call's own result.
            var response = new global::Newtonsoft.Json.Linq.JObject();
            response["result"] = result;
            string version;
            var settled = BurilMcp.EnvelopeObject(response, out version);
            readOutput(settled);
            return new BurilTask<TOutput>(name, requests, new BurilTaskSnapshot(settled, true), readOutput);
        }

        private TOutput invoke<TOutput>(string name, string toolHash, object input)
            where TOutput : class
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            var mcp = transport as IMcpToolTransport;
            if (mcp == null)
            {
                string inputJson = BurilJson.Serialize(input ?? new global::Newtonsoft.Json.Linq.JObject());
                return read<TOutput>(name, transport.Call(name, inputJson), WarningReceived);
            }
            var request = new BurilCallRequest(name, input, MetadataHash, toolHash, null, true);
            var envelopes = transport as IBurilEnvelopeTransport;
            if (envelopes == null)
            {
                return read<TOutput>(name, BurilMcp.Blocking(() => mcp.CallAsync(request)), WarningReceived);
            }
            return read<TOutput>(name, envelopes.CallEnvelope(request), null, WarningReceived);
        }

        private global::System.Threading.Tasks.Task<TOutput> invokeAsync<TOutput>(string name, string toolHash, object input, BurilCallOptions options)
            where TOutput : class
        {
            var envelopes = transport as IBurilEnvelopeTransport;
            if (envelopes == null || name == null)
            {
                return invokeOtherAsync<TOutput>(name, toolHash, input, options);
            }
            // The input is written when the call is sent; a value the serializer refuses fails
            // the task, as from an async method, rather than the call.
            var request = new BurilCallRequest(name, input, MetadataHash, toolHash, options, true);
            var warned = WarningReceived;
            return envelopes.CallEnvelopeAsync(request, envelope => read<TOutput>(name, envelope, null, warned));
        }

        /// <summary><c>invokeAsync</c> over a transport of another kind.</summary>
        private async global::System.Threading.Tasks.Task<TOutput> invokeOtherAsync<TOutput>(string name, string toolHash, object input, BurilCallOptions options)
            where TOutput : class
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            string inputJson = BurilJson.Serialize(input ?? new global::Newtonsoft.Json.Linq.JObject());
            var mcp = transport as IMcpToolTransport;
            if (mcp == null)
            {
                var answer = await global::System.Threading.Tasks.Task.Run(() => transport.Call(name, inputJson)).ConfigureAwait(false);
                return read<TOutput>(name, answer, WarningReceived);
            }
            var request = new BurilCallRequest(name, inputJson, MetadataHash, toolHash, options) { Serialized = true };
            return read<TOutput>(name, await mcp.CallAsync(request).ConfigureAwait(false), WarningReceived);
        }

        private TOutput read<TOutput>(string name, string envelopeJson, global::System.EventHandler<BurilWarningEventArgs> warned)
            where TOutput : class
        {
            global::Newtonsoft.Json.Linq.JObject envelope;
            try
            {
                envelope = BurilJson.Parse(envelopeJson ?? "") as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                throw protocolError(name, "the answer is not JSON: " + error.Message, envelopeJson, error);
            }
            if (envelope == null)
            {
                throw protocolError(name, "the answer is not a JSON object", envelopeJson, null);
            }
            return read<TOutput>(name, envelope, envelopeJson, warned);
        }

        /// <summary>The output in a parsed envelope (<paramref name="envelopeJson"/>: its text when there is one, else printed for an exception only).</summary>
        private TOutput read<TOutput>(string name, global::Newtonsoft.Json.Linq.JObject envelope, string envelopeJson, global::System.EventHandler<BurilWarningEventArgs> warned)
            where TOutput : class
        {
            var ok = envelope["ok"];
            if (ok == null || ok.Type != global::Newtonsoft.Json.Linq.JTokenType.Boolean)
            {
                throw protocolError(name, "the answer has no boolean `ok`", envelopeJson ?? BurilMcp.Text(envelope), null);
            }
            if (!(bool)ok)
            {
                throw failure(name, envelope, envelopeJson ?? BurilMcp.Text(envelope));
            }
            var data = envelope["data"];
            if (data == null)
            {
                throw protocolError(name, "the answer has no `data`", envelopeJson ?? BurilMcp.Text(envelope), null);
            }
            var warnings = envelope["warnings"] as global::Newtonsoft.Json.Linq.JArray;
            if (warnings != null && warned != null)
            {
                foreach (var warning in warnings)
                {
                    warned(this, new BurilWarningEventArgs(name, textOf(warning)));
                }
            }
            TOutput output;
            try
            {
                output = BurilJson.FromToken<TOutput>(data);
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                throw protocolError(name, "the data does not match the output type: " + error.Message, envelopeJson ?? BurilMcp.Text(envelope), error);
            }
            if (output == null)
            {
                throw protocolError(name, "the data is null", envelopeJson ?? BurilMcp.Text(envelope), null);
            }
            return output;
        }

        private static BurilToolException protocolError(string name, string error, string envelopeJson, global::System.Exception inner)
        {
            return new BurilToolException(name, "protocol", error, null, null, envelopeJson, inner);
        }

        private static BurilToolException failure(string name, global::Newtonsoft.Json.Linq.JObject envelope, string envelopeJson)
        {
            var type = envelope["type"];
            var error = envelope["error"];
            var problems = new global::System.Collections.Generic.List<BurilProblem>();
            var problemList = envelope["problems"] as global::Newtonsoft.Json.Linq.JArray;
            if (problemList != null)
            {
                foreach (var item in problemList)
                {
                    var problem = item as global::Newtonsoft.Json.Linq.JObject;
                    if (problem != null)
                    {
                        problems.Add(new BurilProblem(textOf(problem["path"]), textOf(problem["message"])));
                    }
                }
            }
            var suggestions = new global::System.Collections.Generic.List<string>();
            var suggestionList = envelope["suggestions"] as global::Newtonsoft.Json.Linq.JArray;
            if (suggestionList != null)
            {
                foreach (var item in suggestionList)
                {
                    suggestions.Add(textOf(item));
                }
            }
            var kind = type != null && type.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)type : "unknown";
            if (kind == "validation")
            {
                return new ToolValidationException(name, textOf(error), problems, envelopeJson);
            }
            return new BurilToolException(
                name,
                kind,
                textOf(error),
                problems,
                suggestions,
                envelopeJson,
                null);
        }

        private static string textOf(global::Newtonsoft.Json.Linq.JToken token)
        {
            if (token == null || token.Type == global::Newtonsoft.Json.Linq.JTokenType.Null)
            {
                return "";
            }
            return token.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)token : token.ToString(global::Newtonsoft.Json.Formatting.None);
        }
    }

    /// <summary>
    /// The deadlines of a transport's calls in flight: one timer that looks every 20 ms for
    /// calls past theirs (a call times out at most that much late) instead of a timer per call,
    /// which cost more than the rest of a quick call's work on this side. The timer stops after
    /// a second with no call in flight and starts again with the next one.
    /// </summary>
    internal sealed class BurilDeadlines : global::System.IDisposable
    {
        private const int PeriodMilliseconds = 20;

        private readonly global::System.Collections.Concurrent.ConcurrentDictionary<long, Entry> entries =
            new global::System.Collections.Concurrent.ConcurrentDictionary<long, Entry>();
        private readonly object gate = new object();
        private global::System.Threading.Timer timer;
        private long idleSince;
        private bool disposed;

        private sealed class Entry
        {
            internal long At;
            internal global::System.Action<object> Expire;
            internal object State;
        }

        /// <summary>
        /// Calls <paramref name="expire"/> with <paramref name="state"/> once <paramref name="timeout"/>
        /// has passed, unless <see cref="Remove"/> comes first; never for <c>Timeout.InfiniteTimeSpan</c>.
        /// False (and nothing kept) for a timeout of zero or less: it has passed already.
        /// </summary>
        internal bool Add(long key, global::System.TimeSpan timeout, global::System.Action<object> expire, object state)
        {
            if (timeout == global::System.Threading.Timeout.InfiniteTimeSpan)
            {
                return true;
            }
            if (timeout <= global::System.TimeSpan.Zero)
            {
                return false;
            }
            double ticks = timeout.TotalSeconds * global::System.Diagnostics.Stopwatch.Frequency;
            long at = ticks >= long.MaxValue / 2 ? long.MaxValue : global::System.Diagnostics.Stopwatch.GetTimestamp() + (long)ticks;
            entries[key] = new Entry { At = at, Expire = expire, State = state };
            lock (gate)
            {
                // After the entry is in: a sweep that stops the timer meanwhile sees it, or this
                // starts a new one.
                if (timer == null && !disposed)
                {
                    timer = new global::System.Threading.Timer(Sweep, null, PeriodMilliseconds, PeriodMilliseconds);
                }
            }
            return true;
        }

        internal void Remove(long key)
        {
            Entry ignored;
            entries.TryRemove(key, out ignored);
        }

        private void Sweep(object unused)
        {
            long now = global::System.Diagnostics.Stopwatch.GetTimestamp();
            bool any = false;
            foreach (var pair in entries)
            {
                any = true;
                var entry = pair.Value;
                Entry removed;
                if (entry.At <= now && entries.TryRemove(pair.Key, out removed))
                {
                    try
                    {
                        entry.Expire(entry.State);
                    }
                    catch (global::System.ObjectDisposedException)
                    {
                        // The call ended as its deadline passed.
                    }
                }
            }
            if (any)
            {
                idleSince = 0;
                return;
            }
            if (idleSince == 0)
            {
                idleSince = now;
                return;
            }
            if (now - idleSince < global::System.Diagnostics.Stopwatch.Frequency)
            {
                return;
            }
            lock (gate)
            {
                if (timer != null && entries.IsEmpty)
                {
                    timer.Dispose();
                    timer = null;
                    idleSince = 0;
                }
            }
        }

        public void Dispose()
        {
            lock (gate)
            {
                disposed = true;
                if (timer != null)
                {
                    timer.Dispose();
                    timer = null;
                }
            }
        }
    }

    /// <summary>The MCP messages both transports send and the envelope they read from results.</summary>
    internal static class BurilMcp
    {
        /// <summary>The protocol version the transports ask for.</summary>
        internal const string ProtocolVersion = "2025-11-25";

        /// <summary>A task that failed with <paramref name="error"/>.</summary>
        internal static global::System.Threading.Tasks.Task<T> Failed<T>(global::System.Exception error)
        {
            var failed = new global::System.Threading.Tasks.TaskCompletionSource<T>();
            failed.SetException(error);
            return failed.Task;
        }

        /// <summary>
        /// Waits for <paramref name="call"/>'s task. A thread with a synchronization context
        /// (Unity's main thread) starts it on a pool thread, so that no continuation of it is
        /// queued to the thread that waits; any other thread starts it itself.
        /// </summary>
        internal static T Blocking<T>(global::System.Func<global::System.Threading.Tasks.Task<T>> call)
        {
            var task = global::System.Threading.SynchronizationContext.Current == null
                ? call()
                : global::System.Threading.Tasks.Task.Run(call);
            return task.GetAwaiter().GetResult();
        }

        /// <summary>The protocol versions the transports speak, newest first.</summary>
        internal static readonly string[] ProtocolVersions = { "2025-11-25", "2025-06-18", "2025-03-26" };

        /// <summary>The server's metadata hash in a result's <c>_meta</c>, or null.</summary>
        internal static string ServerVersionOf(global::Newtonsoft.Json.Linq.JObject result)
        {
            var meta = result["_meta"] as global::Newtonsoft.Json.Linq.JObject;
            var hash = meta == null ? null : meta["buril/metadata"];
            return hash != null && hash.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)hash : null;
        }

        /// <summary>MCP's tasks extension, declared on every request of a task.</summary>
        internal const string TasksExtension = "io.modelcontextprotocol/tasks";

        /// <summary>The <c>_meta</c> that declares, for one request, that the client follows tasks.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject FollowsTasks()
        {
            var extensions = new global::Newtonsoft.Json.Linq.JObject();
            extensions[TasksExtension] = new global::Newtonsoft.Json.Linq.JObject();
            var capabilities = new global::Newtonsoft.Json.Linq.JObject();
            capabilities["extensions"] = extensions;
            var meta = new global::Newtonsoft.Json.Linq.JObject();
            meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
            return meta;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Request(long id, string method, global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var message = new global::Newtonsoft.Json.Linq.JObject();
            message["jsonrpc"] = "2.0";
            message["id"] = id;
            message["method"] = method;
            message["params"] = parameters ?? new global::Newtonsoft.Json.Linq.JObject();
            return message;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Notification(string method, global::Newtonsoft.Json.Linq.JObject parameters)
        {
            var message = new global::Newtonsoft.Json.Linq.JObject();
            message["jsonrpc"] = "2.0";
            message["method"] = method;
            if (parameters != null)
            {
                message["params"] = parameters;
            }
            return message;
        }

        /// <summary>Checks a protocol version to ask for.</summary>
        internal static string Speaks(string version)
        {
            if (global::System.Array.IndexOf(ProtocolVersions, version) < 0)
            {
                throw new global::System.ArgumentException("the transports speak " + string.Join(", ", ProtocolVersions) + ", not " + version, "version");
            }
            return version;
        }

        internal static global::Newtonsoft.Json.Linq.JObject Initialize(long id, string version)
        {
            var info = new global::Newtonsoft.Json.Linq.JObject();
            info["name"] = "buril-csharp";
            info["version"] = "1";
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["protocolVersion"] = version;
            parameters["capabilities"] = new global::Newtonsoft.Json.Linq.JObject();
            parameters["clientInfo"] = info;
            return Request(id, "initialize", parameters);
        }

        /// <summary>The negotiated protocol version from an <c>initialize</c> answer; throws for one the transports do not speak.</summary>
        internal static string AcceptInitialize(global::Newtonsoft.Json.Linq.JObject response)
        {
            var result = ResultOf(response, "initialize");
            var version = result["protocolVersion"];
            var text = version != null && version.Type == global::Newtonsoft.Json.Linq.JTokenType.String ? (string)version : null;
            if (text == null || global::System.Array.IndexOf(ProtocolVersions, text) < 0)
            {
                throw new BurilTransportException(
                    BurilTransportFailure.Protocol,
                    "the server answered `initialize` with protocol version " + (text ?? "(none)") + "; this transport speaks " + string.Join(", ", ProtocolVersions),
                    null, 0, 0, null);
            }
            return text;
        }

        /// <summary>Tool names and hashes as JSON strings, quoted once each (a binding has a few hundred at most).</summary>
        private static readonly global::System.Collections.Concurrent.ConcurrentDictionary<string, string> quoted =
            new global::System.Collections.Concurrent.ConcurrentDictionary<string, string>();

        private static string Quoted(string text)
        {
            string json;
            if (quoted.TryGetValue(text, out json))
            {
                return json;
            }
            json = global::Newtonsoft.Json.JsonConvert.ToString(text);
            // Bounded: names a caller makes up (`CallAsync("...")`) are quoted but not kept past a limit.
            if (quoted.Count < 4096)
            {
                quoted[text] = json;
            }
            return json;
        }

        /// <summary>The calling thread's builder of lines to send (emptied; one too large is let go).</summary>
        [global::System.ThreadStatic]
        private static global::System.Text.StringBuilder lineBuilder;

        /// <summary>The calling thread's line builder, emptied: a message is built there and written from there, with no string of its own.</summary>
        internal static global::System.Text.StringBuilder LineBuilder()
        {
            var line = lineBuilder;
            if (line == null || line.Capacity > 1 << 16)
            {
                line = lineBuilder = new global::System.Text.StringBuilder(512);
            }
            line.Clear();
            return line;
        }

        /// <summary><paramref name="message"/> and a line feed, in the calling thread's line builder.</summary>
        internal static global::System.Text.StringBuilder Line(string message)
        {
            return LineBuilder().Append(message).Append('\n');
        }

        /// <summary>
        /// The <c>tools/call</c> request and its line feed, in the calling thread's line builder:
        /// the input written by the serializer straight into it (or as the caller's JSON was
        /// given), not parsed and printed again.
        /// </summary>
        internal static global::System.Text.StringBuilder CallLine(long id, BurilCallRequest request, bool wantsProgress)
        {
            var text = LineBuilder();
            if (request.Serialized)
            {
                text.Append("{\"jsonrpc\":\"2.0\",\"id\":").Append(id);
                text.Append(",\"method\":\"tools/call\",\"params\":{\"name\":").Append(Quoted(request.Name));
                text.Append(",\"arguments\":");
                int start = text.Length;
                request.AppendInput(text);
                if (text.Length > start && text[start] == '{')
                {
                    AppendCallMeta(text, id, request, wantsProgress);
                    return text.Append("}}}\n");
                }
            }
            return Line(Text(Call(id, request, wantsProgress)));
        }

        private static void AppendCallMeta(global::System.Text.StringBuilder text, long id, BurilCallRequest request, bool wantsProgress)
        {
            text.Append(",\"_meta\":{");
            bool first = true;
            if (request.MetadataHash != null)
            {
                text.Append("\"buril/metadata\":").Append(Quoted(request.MetadataHash));
                first = false;
            }
            if (request.ToolMetadataHash != null)
            {
                text.Append(first ? "" : ",").Append("\"buril/tool-metadata\":").Append(Quoted(request.ToolMetadataHash));
                first = false;
            }
            if (wantsProgress)
            {
                text.Append(first ? "" : ",").Append("\"progressToken\":").Append(id);
            }
        }

        /// <summary>The <c>tools/call</c> request, as JSON text (no line feed).</summary>
        internal static string CallText(long id, BurilCallRequest request, bool wantsProgress)
        {
            var line = CallLine(id, request, wantsProgress);
            return line.ToString(0, line.Length - 1);
        }

        internal static global::Newtonsoft.Json.Linq.JObject Call(long id, BurilCallRequest request, bool wantsProgress)
        {
            global::Newtonsoft.Json.Linq.JObject arguments;
            try
            {
                arguments = BurilJson.Parse(request.InputJson) as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                throw new global::System.ArgumentException("the input is not JSON: " + error.Message, "request", error);
            }
            if (arguments == null)
            {
                throw new global::System.ArgumentException("the input is not a JSON object", "request");
            }
            var meta = new global::Newtonsoft.Json.Linq.JObject();
            if (request.MetadataHash != null)
            {
                meta["buril/metadata"] = request.MetadataHash;
            }
            if (request.ToolMetadataHash != null)
            {
                meta["buril/tool-metadata"] = request.ToolMetadataHash;
            }
            if (wantsProgress)
            {
                meta["progressToken"] = id;
            }
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["name"] = request.Name;
            parameters["arguments"] = arguments;
            parameters["_meta"] = meta;
            return Request(id, "tools/call", parameters);
        }

        /// <summary>
        /// A token cancelled when <paramref name="timeout"/> has passed: at once for zero or less,
        /// never for <c>Timeout.InfiniteTimeSpan</c>.
        /// </summary>
        internal static global::System.Threading.CancellationTokenSource Timer(global::System.TimeSpan timeout)
        {
            var timer = new global::System.Threading.CancellationTokenSource();
            if (timeout == global::System.Threading.Timeout.InfiniteTimeSpan)
            {
                return timer;
            }
            if (timeout <= global::System.TimeSpan.Zero)
            {
                timer.Cancel();
            }
            else
            {
                timer.CancelAfter(timeout);
            }
            return timer;
        }

        internal static BurilTransportException TimedOut(string what, global::System.TimeSpan timeout, bool sent)
        {
            return new BurilTransportException(
                BurilTransportFailure.Timeout,
                "`" + what + "` got no answer within " + timeout + (sent ? "; the server was told to cancel it" : "; it was not sent"),
                null, 0, 0, null);
        }

        internal static global::Newtonsoft.Json.Linq.JObject Cancelled(long id, string reason)
        {
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["requestId"] = id;
            parameters["reason"] = reason;
            return Notification("notifications/cancelled", parameters);
        }

        internal static string Text(global::Newtonsoft.Json.Linq.JToken message)
        {
            return message.ToString(global::Newtonsoft.Json.Formatting.None);
        }

        /// <summary>The id of an answer (a response to a request of ours), or null for anything else.</summary>
        internal static long? AnswerId(global::Newtonsoft.Json.Linq.JObject message)
        {
            if (message["method"] != null)
            {
                return null;
            }
            var id = message["id"];
            if (id == null || id.Type != global::Newtonsoft.Json.Linq.JTokenType.Integer)
            {
                return null;
            }
            return (long)id;
        }

        /// <summary>A progress notification's token and report, or false for any other message.</summary>
        internal static bool TryProgress(global::Newtonsoft.Json.Linq.JObject message, out long token, out BurilProgress progress)
        {
            token = 0;
            progress = null;
            var method = message["method"];
            var parameters = message["params"] as global::Newtonsoft.Json.Linq.JObject;
            if (method == null || (string)method != "notifications/progress" || parameters == null)
            {
                return false;
            }
            var key = parameters["progressToken"];
            var value = parameters["progress"];
            if (key == null || key.Type != global::Newtonsoft.Json.Linq.JTokenType.Integer || value == null)
            {
                return false;
            }
            token = (long)key;
            var total = parameters["total"];
            var text = parameters["message"];
            progress = new BurilProgress(
                (double)value,
                total == null || total.Type == global::Newtonsoft.Json.Linq.JTokenType.Null ? (double?)null : (double)total,
                text == null || text.Type != global::Newtonsoft.Json.Linq.JTokenType.String ? null : (string)text);
            return true;
        }

        /// <summary>A response's result; a JSON-RPC error or a missing result throws.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject ResultOf(global::Newtonsoft.Json.Linq.JObject response, string method)
        {
            var error = response["error"] as global::Newtonsoft.Json.Linq.JObject;
            if (error != null)
            {
                var code = error["code"];
                var message = error["message"];
                var data = error["data"];
                var words = message == null ? Text(error) : (string)message;
                if (data != null && data.Type != global::Newtonsoft.Json.Linq.JTokenType.Null)
                {
                    words += " (" + Text(data) + ")";
                }
                throw new BurilTransportException(
                    BurilTransportFailure.RpcError,
                    "the server refused `" + method + "` with JSON-RPC error " + (code == null ? "?" : Text(code)),
                    words,
                    0,
                    code != null && code.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer ? (int)code : 0,
                    null);
            }
            var result = response["result"] as global::Newtonsoft.Json.Linq.JObject;
            if (result == null)
            {
                throw new BurilTransportException(BurilTransportFailure.Protocol, "the answer to `" + method + "` has no result object", Text(response), 0, 0, null);
            }
            return result;
        }

        /// <summary>
        /// The envelope of a <c>tools/call</c> answer: <c>_meta["buril/envelope"]</c>, or else
        /// rebuilt from <c>structuredContent</c> (or the text content) and <c>isError</c>; and
        /// the server's metadata hash from <c>_meta["buril/metadata"]</c>.
        /// </summary>
        internal static string Envelope(global::Newtonsoft.Json.Linq.JObject response, out string serverVersion)
        {
            return Text(EnvelopeObject(response, out serverVersion));
        }

        /// <summary>The envelope of a <c>tools/call</c> answer, as <see cref="Envelope"/> says, parsed.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject EnvelopeObject(global::Newtonsoft.Json.Linq.JObject response, out string serverVersion)
        {
            serverVersion = null;
            // An unknown (or disabled) tool is JSON-RPC -32602 over MCP: the `not_found`
            // envelope, as `tools call` answers it, so that every transport throws the same.
            var error = response["error"] as global::Newtonsoft.Json.Linq.JObject;
            var code = error == null ? null : error["code"];
            if (code != null && code.Type == global::Newtonsoft.Json.Linq.JTokenType.Integer && (long)code == -32602)
            {
                var message = error["message"];
                var notFound = new global::Newtonsoft.Json.Linq.JObject();
                notFound["ok"] = false;
                notFound["type"] = "not_found";
                notFound["error"] = message == null ? Text(error) : (string)message;
                return notFound;
            }
            var result = ResultOf(response, "tools/call");
            var meta = result["_meta"] as global::Newtonsoft.Json.Linq.JObject;
            if (meta != null)
            {
                var hash = meta["buril/metadata"];
                if (hash != null && hash.Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                {
                    serverVersion = (string)hash;
                }
                var whole = meta["buril/envelope"] as global::Newtonsoft.Json.Linq.JObject;
                if (whole != null)
                {
                    return whole;
                }
            }
            var isError = result["isError"];
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            if (isError != null && isError.Type == global::Newtonsoft.Json.Linq.JTokenType.Boolean && (bool)isError)
            {
                envelope["ok"] = false;
                envelope["type"] = "runtime";
                envelope["error"] = ContentText(result);
                return envelope;
            }
            envelope["ok"] = true;
            var kind = meta == null ? null : meta["buril/result"];
            var rendered = kind != null && kind.Type == global::Newtonsoft.Json.Linq.JTokenType.String
                && ((string)kind == "content" || (string)kind == "rich");
            var blocks = rendered ? Materialized(result, "content") as global::Newtonsoft.Json.Linq.JArray : null;
            if (blocks != null)
            {
                envelope["data"] = ContentData(blocks, (string)kind == "rich", meta);
                if (meta["buril/warnings"] is global::Newtonsoft.Json.Linq.JArray)
                {
                    envelope["warnings"] = Detach(meta, "buril/warnings");
                }
                return envelope;
            }
            // Taken out of the answer, not copied (Newtonsoft copies a token that has a parent).
            var data = Detach(result, "structuredContent");
            if (data == null)
            {
                var text = ContentText(result);
                try
                {
                    data = BurilJson.Parse(text);
                }
                catch (global::Newtonsoft.Json.JsonException)
                {
                    data = text;
                }
            }
            envelope["data"] = data;
            if (meta != null && meta["buril/warnings"] is global::Newtonsoft.Json.Linq.JArray)
            {
                envelope["warnings"] = Detach(meta, "buril/warnings");
            }
            return envelope;
        }

        /// <summary>
        /// The data of a tool that returns content blocks: <c>{"content": [...]}</c>, the
        /// result's blocks before its warnings; for a rich tool <c>{"structured": …, "content":
        /// [...]}</c>, the structured data being the JSON of the first text block.
        /// </summary>
        private static global::Newtonsoft.Json.Linq.JObject ContentData(global::Newtonsoft.Json.Linq.JArray content, bool rich, global::Newtonsoft.Json.Linq.JObject meta)
        {
            var warnings = meta["buril/warnings"] as global::Newtonsoft.Json.Linq.JArray;
            var count = content.Count - (warnings == null ? 0 : warnings.Count);
            var items = new global::System.Collections.Generic.List<global::Newtonsoft.Json.Linq.JToken>(content);
            // Out of the answer first, so that they are moved rather than copied.
            content.Clear();
            var data = new global::Newtonsoft.Json.Linq.JObject();
            var blocks = new global::Newtonsoft.Json.Linq.JArray();
            var start = 0;
            if (rich)
            {
                global::Newtonsoft.Json.Linq.JToken structured = global::Newtonsoft.Json.Linq.JValue.CreateNull();
                var first = count > 0 ? items[0] as global::Newtonsoft.Json.Linq.JObject : null;
                var text = first == null ? null : first["text"];
                if (text != null && text.Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                {
                    try
                    {
                        structured = BurilJson.Parse((string)text);
                    }
                    catch (global::Newtonsoft.Json.JsonException)
                    {
                        structured = text;
                    }
                }
                data["structured"] = structured;
                start = 1;
            }
            for (var i = start; i < count; i++)
            {
                blocks.Add(items[i]);
            }
            data["content"] = blocks;
            return data;
        }

        /// <summary>The value of <paramref name="key"/> in <paramref name="container"/>, parsed in place if <see cref="ParseMessage"/> kept it as text.</summary>
        internal static global::Newtonsoft.Json.Linq.JToken Materialized(global::Newtonsoft.Json.Linq.JObject container, string key)
        {
            var property = container.Property(key);
            if (property == null)
            {
                return null;
            }
            var raw = property.Value as global::Newtonsoft.Json.Linq.JRaw;
            if (raw != null && raw.Value is string)
            {
                property.Value = BurilJson.Parse((string)raw.Value);
            }
            return property.Value;
        }

        /// <summary>A result as a caller of a request sees it: nothing kept as text.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject Materialized(global::Newtonsoft.Json.Linq.JObject result)
        {
            Materialized(result, "content");
            Materialized(result, "structuredContent");
            return result;
        }

        /// <summary>The value of <paramref name="key"/>, taken out of <paramref name="container"/> (null there now), or null.</summary>
        private static global::Newtonsoft.Json.Linq.JToken Detach(global::Newtonsoft.Json.Linq.JObject container, string key)
        {
            var property = container.Property(key);
            if (property == null)
            {
                return null;
            }
            var value = property.Value;
            property.Value = global::Newtonsoft.Json.Linq.JValue.CreateNull();
            return value;
        }

        private static string ContentText(global::Newtonsoft.Json.Linq.JObject result)
        {
            var parts = new global::System.Collections.Generic.List<string>();
            var content = Materialized(result, "content") as global::Newtonsoft.Json.Linq.JArray;
            if (content != null)
            {
                foreach (var item in content)
                {
                    var block = item as global::Newtonsoft.Json.Linq.JObject;
                    if (block != null && block["text"] != null && block["text"].Type == global::Newtonsoft.Json.Linq.JTokenType.String)
                    {
                        parts.Add((string)block["text"]);
                    }
                }
            }
            return string.Join("\n", parts.ToArray());
        }

        /// <summary>
        /// Parses one message; anything but a JSON object is a protocol error. A result's
        /// <c>content</c> and <c>structuredContent</c> are kept as their JSON text (a
        /// <c>JRaw</c>, parsed in place by <c>Materialized</c> when needed): a call's answer
        /// carries its data twice, and its typed output is read from the text. The message is
        /// read by <see cref="BurilMessageReader"/>, and by Newtonsoft.Json's parser when that
        /// declines it.
        /// </summary>
        internal static global::Newtonsoft.Json.Linq.JObject ParseMessage(string text, string where)
        {
            global::Newtonsoft.Json.Linq.JObject message = null;
            try
            {
                message = BurilMessageReader.Read(text) ?? BurilJson.Parse(text) as global::Newtonsoft.Json.Linq.JObject;
            }
            catch (global::Newtonsoft.Json.JsonException)
            {
            }
            if (message == null)
            {
                throw new BurilTransportException(BurilTransportFailure.Protocol, where + " is not a JSON-RPC message", text, 0, 0, null);
            }
            return message;
        }
    }

    /// <summary>
    /// The transports' reader of a JSON-RPC message: strict JSON (RFC 8259), read into the
    /// tokens Newtonsoft.Json's parser makes of it with <c>DateParseHandling.None</c> and
    /// <c>FloatParseHandling.Double</c>, except that a result's <c>content</c> array and
    /// <c>structuredContent</c> object are kept as their text (a <c>JRaw</c>). It declines
    /// (null) what it does not read exactly so: anything that is not strict JSON, an integer
    /// beyond 64 bits, a number a double cannot hold, a duplicate member, an escaped surrogate,
    /// nesting deeper than 64; <see cref="BurilMcp.ParseMessage"/> then gives the text to
    /// Newtonsoft.Json's parser, which decides. Under Mono, Newtonsoft.Json's reader takes about
    /// 20 ns a character, this one a few: most of a small call's time on the client side.
    /// </summary>
    internal static class BurilMessageReader
    {
        private const int MaxDepth = 64;

        /// <summary>Where an object is: the message, its <c>result</c>, or anywhere else.</summary>
        private enum Place
        {
            Message,
            Result,
            Other,
        }

        /// <summary>The message in <paramref name="text"/>, or null when this reader declines it.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject Read(string text)
        {
            int at = Space(text, 0);
            if (at >= text.Length || text[at] != '{')
            {
                return null;
            }
            var message = ReadObject(text, ref at, 0, Place.Message);
            return message != null && Space(text, at) == text.Length ? message : null;
        }

        /// <summary>The object at <paramref name="at"/> (its <c>{</c>); <paramref name="at"/> ends past it.</summary>
        private static global::Newtonsoft.Json.Linq.JObject ReadObject(string text, ref int at, int depth, Place place)
        {
            if (depth >= MaxDepth)
            {
                return null;
            }
            var members = new global::Newtonsoft.Json.Linq.JObject();
            at = Space(text, at + 1);
            if (at < text.Length && text[at] == '}')
            {
                at++;
                return members;
            }
            while (true)
            {
                var name = ReadString(text, ref at);
                if (name == null)
                {
                    return null;
                }
                if (!Colon(text, ref at) || at >= text.Length || members.Property(name) != null)
                {
                    return null;
                }
                char first = text[at];
                global::Newtonsoft.Json.Linq.JToken value;
                if (place == Place.Message && first == '{' && name == "result")
                {
                    value = ReadObject(text, ref at, depth + 1, Place.Result);
                }
                else if (place == Place.Result
                    && ((first == '[' && name == "content") || (first == '{' && name == "structuredContent")))
                {
                    int start = at;
                    value = Skip(text, ref at, depth + 1) ? new global::Newtonsoft.Json.Linq.JRaw(text.Substring(start, at - start)) : null;
                }
                else
                {
                    value = ReadValue(text, ref at, depth + 1);
                }
                if (value == null)
                {
                    return null;
                }
                members.Add(name, value);
                var closed = After(text, ref at, '}');
                if (closed != false)
                {
                    return closed == true ? members : null;
                }
            }
        }

        private static global::Newtonsoft.Json.Linq.JArray ReadArray(string text, ref int at, int depth)
        {
            if (depth >= MaxDepth)
            {
                return null;
            }
            var items = new global::Newtonsoft.Json.Linq.JArray();
            at = Space(text, at + 1);
            if (at < text.Length && text[at] == ']')
            {
                at++;
                return items;
            }
            while (true)
            {
                var item = ReadValue(text, ref at, depth + 1);
                if (item == null)
                {
                    return null;
                }
                items.Add(item);
                var closed = After(text, ref at, ']');
                if (closed != false)
                {
                    return closed == true ? items : null;
                }
            }
        }

        /// <summary>The value at <paramref name="at"/> (no space before it), or null.</summary>
        private static global::Newtonsoft.Json.Linq.JToken ReadValue(string text, ref int at, int depth)
        {
            if (at >= text.Length)
            {
                return null;
            }
            switch (text[at])
            {
                case '{':
                    return ReadObject(text, ref at, depth, Place.Other);
                case '[':
                    return ReadArray(text, ref at, depth);
                case '"':
                    var value = ReadString(text, ref at);
                    return value == null ? null : new global::Newtonsoft.Json.Linq.JValue(value);
                case 't':
                    return Literal(text, ref at, "true") ? new global::Newtonsoft.Json.Linq.JValue(true) : null;
                case 'f':
                    return Literal(text, ref at, "false") ? new global::Newtonsoft.Json.Linq.JValue(false) : null;
                case 'n':
                    return Literal(text, ref at, "null") ? global::Newtonsoft.Json.Linq.JValue.CreateNull() : null;
                default:
                    return ReadNumber(text, ref at);
            }
        }

        /// <summary>Past the value at <paramref name="at"/>, checked as <see cref="ReadValue"/> checks it, making nothing.</summary>
        private static bool Skip(string text, ref int at, int depth)
        {
            if (at >= text.Length || depth >= MaxDepth)
            {
                return false;
            }
            char open = text[at];
            switch (open)
            {
                case '{':
                case '[':
                    char close = open == '{' ? '}' : ']';
                    at = Space(text, at + 1);
                    if (at < text.Length && text[at] == close)
                    {
                        at++;
                        return true;
                    }
                    while (true)
                    {
                        if (open == '{')
                        {
                            // Duplicate names are not looked for here: the text is read again by
                            // Newtonsoft.Json's parser or serializer, which decides.
                            if (!SkipString(text, ref at) || !Colon(text, ref at))
                            {
                                return false;
                            }
                        }
                        if (!Skip(text, ref at, depth + 1))
                        {
                            return false;
                        }
                        var closed = After(text, ref at, close);
                        if (closed != false)
                        {
                            return closed == true;
                        }
                    }
                case '"':
                    return SkipString(text, ref at);
                case 't':
                    return Literal(text, ref at, "true");
                case 'f':
                    return Literal(text, ref at, "false");
                case 'n':
                    return Literal(text, ref at, "null");
                default:
                    // Any number: the text is read again by Newtonsoft.Json, which reads what
                    // ReadNumber declines (an integer beyond 64 bits, say).
                    bool floating;
                    int end = NumberEnd(text, at, out floating);
                    if (end == at)
                    {
                        return false;
                    }
                    at = end;
                    return true;
            }
        }

        /// <summary>Past the <c>:</c> after a member's name and the space around it; false when there is none.</summary>
        private static bool Colon(string text, ref int at)
        {
            at = Space(text, at);
            if (at >= text.Length || text[at] != ':')
            {
                return false;
            }
            at = Space(text, at + 1);
            return true;
        }

        /// <summary>
        /// After a member or an item: past the <c>,</c> and the space before the next one
        /// (false), or past <paramref name="close"/>, which ends the container (true); null when
        /// neither comes.
        /// </summary>
        private static bool? After(string text, ref int at, char close)
        {
            at = Space(text, at);
            if (at >= text.Length)
            {
                return null;
            }
            if (text[at] == close)
            {
                at++;
                return true;
            }
            if (text[at] != ',')
            {
                return null;
            }
            at = Space(text, at + 1);
            return false;
        }

        private static int Space(string text, int at)
        {
            while (at < text.Length)
            {
                char c = text[at];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                {
                    break;
                }
                at++;
            }
            return at;
        }

        private static bool Literal(string text, ref int at, string word)
        {
            if (string.CompareOrdinal(text, at, word, 0, word.Length) != 0)
            {
                return false;
            }
            at += word.Length;
            return true;
        }

        /// <summary>The string at <paramref name="at"/> (its opening quote), unescaped; null if it is not one this reader reads.</summary>
        private static string ReadString(string text, ref int at)
        {
            if (at >= text.Length || text[at] != '"')
            {
                return null;
            }
            int start = at + 1;
            for (int i = start; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return text.Substring(start, i - start);
                }
                if (c == '\\')
                {
                    return ReadEscaped(text, ref at, start, i);
                }
                if (c < ' ')
                {
                    return null;
                }
            }
            return null;
        }

        /// <summary>The rest of a string from its first escape, at <paramref name="escape"/>.</summary>
        private static string ReadEscaped(string text, ref int at, int start, int escape)
        {
            var value = new global::System.Text.StringBuilder(text, start, escape - start, escape - start + 16);
            for (int i = escape; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return value.ToString();
                }
                if (c < ' ')
                {
                    return null;
                }
                if (c != '\\')
                {
                    value.Append(c);
                    continue;
                }
                if (++i >= text.Length)
                {
                    return null;
                }
                if (text[i] == 'u')
                {
                    int code = Hex(text, i + 1);
                    // An escaped surrogate (half of a pair, or alone) is left to Newtonsoft.Json.
                    if (code < 0 || (code >= 0xD800 && code <= 0xDFFF))
                    {
                        return null;
                    }
                    value.Append((char)code);
                    i += 4;
                    continue;
                }
                char plain = Unescaped(text[i]);
                if (plain == '\0')
                {
                    return null;
                }
                value.Append(plain);
            }
            return null;
        }

        /// <summary>The character a one-letter escape (<c>\n</c>, say) stands for, or <c>'\0'</c> for no such escape.</summary>
        private static char Unescaped(char escape)
        {
            switch (escape)
            {
                case '"': return '"';
                case '\\': return '\\';
                case '/': return '/';
                case 'b': return '\b';
                case 'f': return '\f';
                case 'n': return '\n';
                case 'r': return '\r';
                case 't': return '\t';
                default: return '\0';
            }
        }

        private static bool SkipString(string text, ref int at)
        {
            if (at >= text.Length || text[at] != '"')
            {
                return false;
            }
            for (int i = at + 1; i < text.Length; i++)
            {
                char c = text[i];
                if (c == '"')
                {
                    at = i + 1;
                    return true;
                }
                if (c < ' ')
                {
                    return false;
                }
                if (c == '\\')
                {
                    if (++i >= text.Length)
                    {
                        return false;
                    }
                    char e = text[i];
                    if (e == 'u')
                    {
                        if (Hex(text, i + 1) < 0)
                        {
                            return false;
                        }
                        i += 4;
                    }
                    else if (Unescaped(e) == '\0')
                    {
                        return false;
                    }
                }
            }
            return false;
        }

        /// <summary>The four hex digits at <paramref name="at"/> as a number, or -1.</summary>
        private static int Hex(string text, int at)
        {
            if (at + 4 > text.Length)
            {
                return -1;
            }
            int code = 0;
            for (int i = at; i < at + 4; i++)
            {
                char c = text[i];
                int digit = c >= '0' && c <= '9' ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                    : -1;
                if (digit < 0)
                {
                    return -1;
                }
                code = (code << 4) | digit;
            }
            return code;
        }

        /// <summary>
        /// The end of the JSON number at <paramref name="at"/> (<paramref name="at"/> itself when
        /// there is none): <c>-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?</c>.
        /// </summary>
        private static int NumberEnd(string text, int at, out bool floating)
        {
            floating = false;
            int i = at;
            if (i < text.Length && text[i] == '-')
            {
                i++;
            }
            if (i >= text.Length || text[i] < '0' || text[i] > '9')
            {
                return at;
            }
            if (text[i] == '0')
            {
                i++;
            }
            else
            {
                i = Digits(text, i);
            }
            if (i < text.Length && text[i] == '.')
            {
                floating = true;
                int fraction = Digits(text, i + 1);
                if (fraction == i + 1)
                {
                    return at;
                }
                i = fraction;
            }
            if (i < text.Length && (text[i] == 'e' || text[i] == 'E'))
            {
                floating = true;
                i++;
                if (i < text.Length && (text[i] == '+' || text[i] == '-'))
                {
                    i++;
                }
                int exponent = Digits(text, i);
                if (exponent == i)
                {
                    return at;
                }
                i = exponent;
            }
            return i;
        }

        private static int Digits(string text, int at)
        {
            while (at < text.Length && text[at] >= '0' && text[at] <= '9')
            {
                at++;
            }
            return at;
        }

        /// <summary>The number at <paramref name="at"/>: a 64-bit integer or a finite double, as Newtonsoft.Json reads them; null for anything else.</summary>
        private static global::Newtonsoft.Json.Linq.JValue ReadNumber(string text, ref int at)
        {
            bool floating;
            int end = NumberEnd(text, at, out floating);
            if (end == at)
            {
                return null;
            }
            var number = text.Substring(at, end - at);
            global::Newtonsoft.Json.Linq.JValue value = null;
            if (floating)
            {
                double real;
                if (double.TryParse(number, global::System.Globalization.NumberStyles.Float, global::System.Globalization.CultureInfo.InvariantCulture, out real)
                    && !double.IsInfinity(real))
                {
                    value = new global::Newtonsoft.Json.Linq.JValue(real);
                }
            }
            else
            {
                long integer;
                if (long.TryParse(number, global::System.Globalization.NumberStyles.AllowLeadingSign, global::System.Globalization.CultureInfo.InvariantCulture, out integer))
                {
                    value = new global::Newtonsoft.Json.Linq.JValue(integer);
                }
            }
            if (value != null)
            {
                at = end;
            }
            return value;
        }
    }

    /// <summary>What <see cref="BurilClient.WarningReceived"/> reports.</summary>
    public sealed class BurilWarningEventArgs : global::System.EventArgs
    {
        /// <summary>A warning.</summary>
        /// <param name="tool">The tool called.</param>
        /// <param name="warning">The warning, in the server's words.</param>
        public BurilWarningEventArgs(string tool, string warning)
        {
            Tool = tool;
            Warning = warning;
        }

        /// <summary>The tool called.</summary>
        public string Tool { get; private set; }

        /// <summary>The warning, in the server's words.</summary>
        public string Warning { get; private set; }
    }

    /// <summary>What <see cref="BurilProcessTransport.Restarted"/> reports.</summary>
    public sealed class BurilRestartedEventArgs : global::System.EventArgs
    {
        /// <summary>A restart.</summary>
        /// <param name="restarts">How many times the process was restarted, this one included.</param>
        /// <param name="reason">Why: how the previous process ended.</param>
        public BurilRestartedEventArgs(int restarts, string reason)
        {
            Restarts = restarts;
            Reason = reason;
        }

        /// <summary>How many times the process was restarted, this one included.</summary>
        public int Restarts { get; private set; }

        /// <summary>Why: how the previous process ended.</summary>
        public string Reason { get; private set; }
    }

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
        }

        /// <summary><see cref="Accept"/>, made once.</summary>
        private readonly global::System.Func<global::Newtonsoft.Json.Linq.JObject, global::Newtonsoft.Json.Linq.JObject> accept;

        /// <summary>Raised (on the calling thread) when a call starts the process again after it died.</summary>
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
                var handler = Restarted;
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
            internal void Stop()
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
                dead = true;
                deadlines.Dispose();
                foreach (var key in pending.Keys)
                {
                    Pending waiting;
                    if (pending.TryRemove(key, out waiting))
                    {
                        waiting.Fail(new global::System.ObjectDisposedException("BurilProcessTransport", "the transport was disposed"));
                    }
                }
            }
        }
    }

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
