// BurilClient's fixed part: its transport, Call, CallAsync, StartTaskAsync, ResumeTaskAsync, ServerVersion,
// WarningReceived and the reading of envelopes. Its typed methods, one per tool, are generated
// in Buril.Client.cs.
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
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
        /// Raised for each warning of a successful call (for an async call, on the
        /// <c>SynchronizationContext</c> it was made on, Unity's main thread there; for a
        /// blocking call, on its own thread):
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

        /// <summary>
        /// Follows a task started earlier (by this client, another one, or before a Unity domain
        /// reload, which is why its id is all it needs): asks the server for it
        /// (<c>tasks/get</c>) and gives a handle to wait on, poll, answer or cancel. Keep the id
        /// across a reload in <c>SessionState</c>; the task must still be within its TTL, and be
        /// one this caller may see (the same principal over HTTP with authorization, or a
        /// server whose task store outlives the session: the file or Redis store).
        /// </summary>
        /// <typeparam name="TOutput">The tool's output class.</typeparam>
        /// <param name="name">The tool's wire name (for messages and its output).</param>
        /// <param name="taskId">The task's handle, <see cref="BurilTask{TOutput}.TaskId"/>.</param>
        /// <param name="token">Gives up asking.</param>
        /// <returns>The task, as the server has it now.</returns>
        /// <exception cref="BurilToolException">No task has that id here (<c>not_found</c>): expired, or never this caller's.</exception>
        public async global::System.Threading.Tasks.Task<BurilTask<TOutput>> ResumeTaskAsync<TOutput>(string name, string taskId, global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken))
            where TOutput : class
        {
            if (name == null)
            {
                throw new global::System.ArgumentNullException("name");
            }
            if (string.IsNullOrEmpty(taskId))
            {
                throw new global::System.ArgumentException("a task id is needed", "taskId");
            }
            var requests = transport as IBurilRequestTransport;
            if (requests == null)
            {
                throw new global::System.InvalidOperationException("`" + name + "`: the transport cannot follow tasks (it is not an IBurilRequestTransport)");
            }
            var warned = BurilCallbacks.On(global::System.Threading.SynchronizationContext.Current, WarningReceived);
            global::System.Func<global::Newtonsoft.Json.Linq.JObject, TOutput> readOutput = envelope => read<TOutput>(name, envelope, null, warned);
            var parameters = new global::Newtonsoft.Json.Linq.JObject();
            parameters["taskId"] = taskId;
            parameters["_meta"] = BurilMcp.FollowsTasks();
            global::Newtonsoft.Json.Linq.JObject task;
            try
            {
                task = await requests.RequestAsync("tasks/get", parameters, token).ConfigureAwait(false);
            }
            catch (BurilTransportException error)
            {
                if (error.Failure == BurilTransportFailure.RpcError && error.RpcCode == -32602)
                {
                    var unknown = new global::Newtonsoft.Json.Linq.JObject();
                    unknown["ok"] = false;
                    unknown["type"] = "not_found";
                    unknown["error"] = "no task " + taskId + " here: " + (error.ServerText ?? error.Message);
                    readOutput(unknown);
                }
                throw;
            }
            return new BurilTask<TOutput>(name, requests, new BurilTaskSnapshot(task), readOutput);
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
            var warned = BurilCallbacks.On(global::System.Threading.SynchronizationContext.Current, WarningReceived);
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
            // Progress and warnings reach the caller where it called (Unity's main thread).
            var caller = global::System.Threading.SynchronizationContext.Current;
            var request = new BurilCallRequest(name, input, MetadataHash, toolHash, BurilCallbacks.On(caller, options), true);
            var warned = BurilCallbacks.On(caller, WarningReceived);
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
            var caller = global::System.Threading.SynchronizationContext.Current;
            var warned = BurilCallbacks.On(caller, WarningReceived);
            var mcp = transport as IMcpToolTransport;
            if (mcp == null)
            {
                var answer = await global::System.Threading.Tasks.Task.Run(() => transport.Call(name, inputJson)).ConfigureAwait(false);
                return read<TOutput>(name, answer, warned);
            }
            var request = new BurilCallRequest(name, inputJson, MetadataHash, toolHash, BurilCallbacks.On(caller, options)) { Serialized = true };
            return read<TOutput>(name, await mcp.CallAsync(request).ConfigureAwait(false), warned);
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
}
