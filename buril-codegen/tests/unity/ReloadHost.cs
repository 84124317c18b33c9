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
//   > callbacks OK                        (progress and statuses ran on the caller's context)
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
            SynchronizationContext.SetSynchronizationContext(context);
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

    public void Quit()
    {
        EditorApplication.RaiseQuitting();
    }
}

/// <summary>A SynchronizationContext whose posts run on one thread, pumped by RunUntil (Unity's main-thread context does the same each frame).</summary>
public sealed class PumpContext : SynchronizationContext
{
    private readonly BlockingCollection<Tuple<SendOrPostCallback, object>> queue = new BlockingCollection<Tuple<SendOrPostCallback, object>>();

    public Thread Thread { get; private set; }

    public override void Post(SendOrPostCallback callback, object state)
    {
        queue.Add(Tuple.Create(callback, state));
    }

    public void RunUntil(Task task)
    {
        Thread = Thread.CurrentThread;
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
        driver.Quit();
        Console.WriteLine("quit");
        AppDomain.Unload(second);
        return 0;
    }
}
