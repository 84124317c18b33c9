// How the MCP test programs end once their answer is written.

using System;
using System.Runtime.InteropServices;

internal static class Ending
{
    [DllImport("libc", EntryPoint = "_exit")]
    private static extern void ExitNow(int status);

    /// Ends the process with `status` without Mono's shutdown: that aborts the timer thread the
    /// HTTP client's timeouts left, and an abort landing while the thread sorts its timers is
    /// rethrown wrapped (`Failed to compare two elements`) as an unhandled exception, failing a
    /// run whose answer was complete.
    public static int End(int status)
    {
        Console.Out.Flush();
        Console.Error.Flush();
        ExitNow(status);
        return status;
    }
}
