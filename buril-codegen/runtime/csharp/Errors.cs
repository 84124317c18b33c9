// The failures of a call: BurilProblem (one problem with an input), ToolValidationException,
// BurilToolException (the tool answered ok: false), and BurilTransportFailure with
// BurilTransportException (the call got no envelope).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
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

        /// <summary>The envelope's <c>type</c>: <c>validation</c>, <c>runtime</c>, <c>panic</c>, <c>not_found</c>, <c>disabled</c>, <c>timeout</c>, <c>cancelled</c>, <c>limited</c>, <c>unavailable</c> (an external server the host serves cannot answer now), <c>tool</c> (the tool ran on another MCP server and reported a failure of its own); or <c>protocol</c> when the answer could not be read.</summary>
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
}
