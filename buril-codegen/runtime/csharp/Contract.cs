// The contract: ITool (a tool the agent calls), IBurilDeclaredTool and OffThreadAttribute, the transports'
// interfaces (IToolTransport, IMcpToolTransport, IBurilEnvelopeTransport), and what one call
// carries (BurilCallOptions, BurilProgress, BurilCallRequest).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

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

    /// <summary>
    /// A tool whose contract was declared in Rust: the generated <c>{Tool}Tool</c> classes
    /// implement it. buril compares <see cref="MetadataHash"/> with its own declaration's and
    /// refuses a stub of another contract; one without it (hand-written, the
    /// tool's schema its own) is a third party's tool, off until enabled.
    /// </summary>
    public interface IBurilDeclaredTool
    {
        /// <summary>The hash of the contract (metadata and schemas) the class was generated from.</summary>
        string MetadataHash { get; }
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

        /// <summary>
        /// Called with each progress report the tool sends, or null: on the
        /// <c>SynchronizationContext</c> the call was made on (Unity's main thread, for a call
        /// made there), else on the thread that read the report.
        /// </summary>
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
}
