// Domain reloads as Unity makes them, under Mono: the package's assembly loaded into an
// AppDomain, used, told of the reload (AssemblyReloadEvents.beforeAssemblyReload), and the
// domain unloaded; then a fresh domain. The test drives it over standard input and output: the
// host prints what happened and waits for a line before each next step, so that the test can
// count the server processes in between.
//
//   mono ReloadHost.exe
//   > connected SERVER_VERSION TASK_ID   (a tool called, a task started, its id kept)
//   < go
//   > released MILLISECONDS              (the release before the reload took that long)
//   > unloaded
//   < go
//   > resumed TOTAL_MATCHES              (a fresh domain: the client again, the task followed)
//   < go
//   > callbacks OK                        (progress, statuses, warnings and restarts ran on the caller's context)
//   < go
//   > settings OK                         (a dangerous tool turned on and off in the server's config, live)
//   < go
//   > quit                                (the editor quits)

using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;
using Buril.Generated;
using Newtonsoft.Json.Linq;
using UnityEditor;

public sealed class Driver : MarshalByRefObject
{
    /// <summary>What <paramref name="step"/> answered, or the exception it threw as text (exceptions of the package's types cannot cross domains: caught in the domain).</summary>
    private static string Safely(Func<string> step)
    {
        try
        {
            return step();
        }
        catch (Exception error)
        {
            return "failed: " + error.ToString().Replace("\n", " | ");
        }
    }

    /// <summary>What Unity does when a domain starts: the [InitializeOnLoad] classes' static constructors.</summary>
    public void Load()
    {
        foreach (var type in typeof(BurilConnection).Assembly.GetTypes())
        {
            if (type.IsDefined(typeof(InitializeOnLoadAttribute), false))
            {
                System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor(type.TypeHandle);
            }
        }
    }

    public string Connect()
    {
        return Safely(connect);
    }

    private string connect()
    {
        var client = BurilConnection.Client;
        var state = client.EditorStateAsync().GetAwaiter().GetResult();
        var task = client.StartAssetSearchAsync(new AssetSearchInput { Query = "Red" }).GetAwaiter().GetResult();
        SessionState.SetString("test.task", task.TaskId);
        return (client.ServerVersion ?? "none") + " " + (task.TaskId.Length > 0 ? task.TaskId : "(answered at once)") + " " + state.OpenScenes.Count;
    }

    public long Reload()
    {
        AssemblyReloadEvents.RaiseBeforeAssemblyReload();
        return (long)BurilConnection.LastRelease.TotalMilliseconds;
    }

    public string Resume()
    {
        return Safely(resume);
    }

    private string resume()
    {
        var client = BurilConnection.Client;
        var id = SessionState.GetString("test.task", "");
        var task = client.ResumeTaskAsync<AssetSearchOutput>("asset_search", id).GetAwaiter().GetResult();
        var found = task.WaitAsync(default(CancellationToken), TimeSpan.FromSeconds(30)).GetAwaiter().GetResult();
        // The client works as before the reload.
        client.EditorStateAsync().GetAwaiter().GetResult();
        return found.TotalMatches.ToString();
    }

    /// <summary>
    /// Progress reports and a task's statuses, for calls made on a thread whose
    /// SynchronizationContext pumps its own queue (as Unity's main thread does): each runs on
    /// that thread.
    /// </summary>
    public string Callbacks()
    {
        return Safely(callbacks);
    }

    private string callbacks()
    {
        var context = new PumpContext();
        var failures = new ConcurrentQueue<string>();
        var seen = 0;
        var thread = new Thread(() =>
        {
            context.Enter();
            var client = BurilConnection.Client;
            var options = new BurilCallOptions
            {
                Progress = report =>
                {
                    Interlocked.Increment(ref seen);
                    if (Thread.CurrentThread != context.Thread)
                    {
                        failures.Enqueue("progress on another thread");
                    }
                },
            };
            var searched = client.AssetSearchAsync(new AssetSearchInput { Query = "e" }, options);
            context.RunUntil(searched);
            searched.GetAwaiter().GetResult();
            var started = client.StartAssetSearchAsync(new AssetSearchInput { Query = "Red" });
            context.RunUntil(started);
            var waited = started.Result.WaitAsync(default(CancellationToken), TimeSpan.FromSeconds(30), status =>
            {
                Interlocked.Increment(ref seen);
                if (Thread.CurrentThread != context.Thread)
                {
                    failures.Enqueue("a status on another thread");
                }
            });
            context.RunUntil(waited);
            waited.GetAwaiter().GetResult();

            // A call by a deprecated alias answers with a warning.
            var warnings = 0;
            client.WarningReceived += (sender, warning) =>
            {
                Interlocked.Increment(ref warnings);
                if (Thread.CurrentThread != context.Thread)
                {
                    failures.Enqueue("a warning on another thread");
                }
            };
            var aliased = client.CallAsync<JToken>("console_get_logs", new JObject());
            context.RunUntil(aliased);
            aliased.GetAwaiter().GetResult();
            if (warnings == 0)
            {
                failures.Enqueue("no warning for a call by an alias");
            }

            // A stdio server that died is started again by the next call, which says so.
            var restarts = 0;
            var settings = BurilConnection.Settings;
            using (var transport = new BurilProcessTransport(settings.Executable, "serve", BurilConnection.ProjectFolder))
            {
                transport.Restarted += (sender, restarted) =>
                {
                    Interlocked.Increment(ref restarts);
                    if (Thread.CurrentThread != context.Thread)
                    {
                        failures.Enqueue("a restart on another thread");
                    }
                };
                var own = new BurilClient(transport);
                var first = own.EditorStateAsync();
                context.RunUntil(first);
                first.GetAwaiter().GetResult();
                using (var server = System.Diagnostics.Process.GetProcessById(transport.ProcessId))
                {
                    server.Kill();
                    server.WaitForExit();
                }
                Thread.Sleep(200);
                // Called from a pool thread: the restart is still said on the transport's context.
                var second = Task.Run(() => own.EditorStateAsync());
                context.RunUntil(second);
                second.GetAwaiter().GetResult();
            }
            if (restarts != 1)
            {
                failures.Enqueue(restarts + " restarts said, not 1");
            }
        });
        thread.Start();
        thread.Join();
        string failure;
        if (failures.TryDequeue(out failure))
        {
            return failure;
        }
        return seen > 0 ? "OK" : "no callback ran";
    }

    /// <summary>
    /// The server's config file changed through BurilServerSettings, as the sample window's
    /// Security tab does: a dangerous tool turned on, then off, each seen by the running server
    /// (its tool list) without a restart; a change it would refuse is refused, nothing written.
    /// </summary>
    public string Settings()
    {
        return Safely(settings);
    }

    private string settings()
    {
        var read = BurilServerSettings.ReadAsync().GetAwaiter().GetResult();
        var before = Tool(read, "asset_delete");
        if (before == null || !(bool)before["dangerous"] || (bool)before["enabled"])
        {
            return "asset_delete is not a dangerous tool that is off: " + read;
        }
        if (Listed("asset_delete"))
        {
            return "the server lists asset_delete before it was enabled";
        }
        var on = BurilServerSettings.SetToolAsync("asset_delete", true).GetAwaiter().GetResult();
        if (!(bool)Tool(on, "asset_delete")["enabled"])
        {
            return "asset_delete is still off: " + on;
        }
        if (!Eventually(() => Listed("asset_delete")))
        {
            return "the running server did not take the change (asset_delete not listed)";
        }
        try
        {
            BurilServerSettings.SetToolAsync("asset_no_such_tool", true).GetAwaiter().GetResult();
            return "a rule naming no tool was written";
        }
        catch (BurilTransportException error)
        {
            if (error.ServerText == null || !error.ServerText.Contains("asset_no_such_tool"))
            {
                return "the refusal does not say why: " + error.Message;
            }
        }
        BurilServerSettings.SetToolAsync("asset_delete", false).GetAwaiter().GetResult();
        if (!Eventually(() => !Listed("asset_delete")))
        {
            return "the running server did not take the change (asset_delete still listed)";
        }
        var after = BurilServerSettings.ReadAsync().GetAwaiter().GetResult();
        return (bool)Tool(after, "asset_delete")["enabled"] ? "asset_delete is on again: " + after : "OK";
    }

    private static JToken Tool(JObject settings, string name)
    {
        foreach (var tool in (JArray)settings["tools"])
        {
            if ((string)tool["name"] == name)
            {
                return tool;
            }
        }
        return null;
    }

    private static bool Listed(string name)
    {
        var requests = (IBurilRequestTransport)BurilConnection.Client.Transport;
        string cursor = null;
        do
        {
            var parameters = new JObject();
            if (cursor != null)
            {
                parameters["cursor"] = cursor;
            }
            var page = requests.RequestAsync("tools/list", parameters, default(CancellationToken)).GetAwaiter().GetResult();
            foreach (var tool in (JArray)page["tools"])
            {
                if ((string)tool["name"] == name)
                {
                    return true;
                }
            }
            cursor = (string)page["nextCursor"];
        }
        while (cursor != null);
        return false;
    }

    private static bool Eventually(Func<bool> condition)
    {
        var until = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < until)
        {
            if (condition())
            {
                return true;
            }
            Thread.Sleep(100);
        }
        return false;
    }

    public void Quit()
    {
        EditorApplication.RaiseQuitting();
    }
}

/// <summary>A SynchronizationContext whose posts run on one thread, pumped by RunUntil (Unity's main-thread context does the same each frame).</summary>
public sealed class PumpContext : SynchronizationContext
{
    private readonly BlockingCollection<Tuple<SendOrPostCallback, object>> queue = new BlockingCollection<Tuple<SendOrPostCallback, object>>();

    /// <summary>The thread that pumps this context (the one that entered it).</summary>
    public Thread Thread { get; private set; }

    /// <summary>
    /// Makes this the current thread's context, as Unity's main thread has its own: a callback
    /// run at once because the call's code is still on this thread (a transport's read that
    /// completed synchronously) runs on it too.
    /// </summary>
    public void Enter()
    {
        Thread = Thread.CurrentThread;
        SynchronizationContext.SetSynchronizationContext(this);
    }

    public override void Post(SendOrPostCallback callback, object state)
    {
        queue.Add(Tuple.Create(callback, state));
    }

    public void RunUntil(Task task)
    {
        while (!task.IsCompleted || queue.Count > 0)
        {
            Tuple<SendOrPostCallback, object> item;
            if (queue.TryTake(out item, 10))
            {
                item.Item1(item.Item2);
            }
        }
    }
}

public static class ReloadHost
{
    private static Driver Domain(string name, out AppDomain domain)
    {
        domain = AppDomain.CreateDomain(name, null, AppDomain.CurrentDomain.SetupInformation);
        var driver = (Driver)domain.CreateInstanceAndUnwrap(typeof(Driver).Assembly.FullName, typeof(Driver).FullName);
        driver.Load();
        return driver;
    }

    private static void Step(string said)
    {
        Console.WriteLine(said);
        Console.Out.Flush();
        if (Console.ReadLine() == null)
        {
            Environment.Exit(3);
        }
    }

    public static int Main(string[] args)
    {
        AppDomain first;
        var driver = Domain("before the reload", out first);
        Step("connected " + driver.Connect());
        Console.WriteLine("released " + driver.Reload());
        AppDomain.Unload(first);
        Step("unloaded");
        AppDomain second;
        driver = Domain("after the reload", out second);
        Step("resumed " + driver.Resume());
        Step("callbacks " + driver.Callbacks());
        Step("settings " + driver.Settings());
        driver.Quit();
        Console.WriteLine("quit");
        AppDomain.Unload(second);
        return 0;
    }
}
