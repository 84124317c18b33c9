// The tasks of task tools: IBurilRequestTransport (any MCP request a transport sends),
// BurilTaskSnapshot (a task as tasks/get answers it) and BurilTask<TOutput> (a running task:
// poll it, wait for its output, answer its questions, cancel it).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
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
        /// <param name="onStatus">Told of each status the task is seen in, on the <c>SynchronizationContext</c> this was called on (Unity's main thread there).</param>
        /// <returns>The tool's output.</returns>
        /// <exception cref="BurilToolException">The tool failed (<c>ok: false</c>; <see cref="ToolValidationException"/> for <c>validation</c>), the task failed (<c>runtime</c>) or was cancelled (<c>cancelled</c>), or the timeout passed (<c>timeout</c>).</exception>
        public async global::System.Threading.Tasks.Task<TOutput> WaitAsync(
            global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken),
            global::System.TimeSpan? timeout = null,
            global::System.Action<BurilTaskSnapshot> onStatus = null)
        {
            var watch = global::System.Diagnostics.Stopwatch.StartNew();
            onStatus = BurilCallbacks.On(global::System.Threading.SynchronizationContext.Current, onStatus);
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
}
