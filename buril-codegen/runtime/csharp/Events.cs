// The event arguments: BurilWarningEventArgs (BurilClient.WarningReceived) and
// BurilRestartedEventArgs (BurilProcessTransport.Restarted).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
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
}
