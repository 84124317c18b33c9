// BurilCallbacks: the runtime's callbacks (progress, warnings, a task's statuses, a restart)
// posted to the SynchronizationContext their caller had, so that in a Unity editor they run on
// the main thread, where Unity's API may be used.
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>
    /// Where the runtime's callbacks run: on the <c>SynchronizationContext</c>
    /// that was current where the call was made (<c>BurilCallOptions.Progress</c>,
    /// <c>BurilClient.WarningReceived</c> of an async call, <c>WaitAsync</c>'s <c>onStatus</c>)
    /// or where the transport was made (<c>BurilProcessTransport.Restarted</c>); in a Unity
    /// editor that is the main thread. Without one (a console program, a pool thread), they run
    /// on the thread that read the answer.
    /// </summary>
    internal static class BurilCallbacks
    {
        /// <summary><paramref name="callback"/>, run on <paramref name="context"/> when there is one.</summary>
        internal static global::System.Action<T> On<T>(global::System.Threading.SynchronizationContext context, global::System.Action<T> callback)
        {
            if (callback == null || context == null)
            {
                return callback;
            }
            return value => Post(context, () => callback(value));
        }

        /// <summary>An event handler raised on <paramref name="context"/> when there is one.</summary>
        internal static global::System.EventHandler<TArgs> On<TArgs>(global::System.Threading.SynchronizationContext context, global::System.EventHandler<TArgs> handler)
            where TArgs : global::System.EventArgs
        {
            if (handler == null || context == null)
            {
                return handler;
            }
            return (sender, args) => Post(context, () => handler(sender, args));
        }

        /// <summary>Runs <paramref name="action"/> on <paramref name="context"/>: at once when already there, else posted.</summary>
        internal static void Post(global::System.Threading.SynchronizationContext context, global::System.Action action)
        {
            if (context == null || global::System.Threading.SynchronizationContext.Current == context)
            {
                action();
                return;
            }
            context.Post(state => ((global::System.Action)state)(), action);
        }

        /// <summary>
        /// <paramref name="options"/> with its progress callback run on <paramref name="context"/>
        /// (a copy; the caller's options are left as they are).
        /// </summary>
        internal static BurilCallOptions On(global::System.Threading.SynchronizationContext context, BurilCallOptions options)
        {
            if (options == null || options.Progress == null || context == null)
            {
                return options;
            }
            return new BurilCallOptions
            {
                Timeout = options.Timeout,
                CancellationToken = options.CancellationToken,
                Progress = On(context, options.Progress),
            };
        }
    }
}
