// A stand-in Unity editor for the package's editor host, under Mono: one thread stands for the
// editor's main thread and raises EditorApplication.update in a loop; each domain of scripts is
// an AppDomain holding the package's assembly and one assembly of editor tools, whose
// [InitializeOnLoad] classes' static constructors run when it loads (BurilEditorHost starts
// there). The test drives it over standard input, one command a line; each is answered on
// standard output once done:
//
//   mono EditorDriver.exe PACKAGE_DLL TOOLS_DLL
//   > serving URL                  (the first domain loaded, its host serving)
//   < reload TOOLS_DLL             (beforeAssemblyReload, the domain unloaded, a new one with these tools)
//   > reloaded URL
//   < block MILLISECONDS           (the main thread busy in a reload-like pause: no update raised)
//   > unblocked
//   < quit                         (EditorApplication.quitting; the process ends)
//   > quit
//
// The pump's thread id is set in each domain's data (`buril.test.pump`) for the tools to
// compare theirs with.

using System;
using System.Collections.Concurrent;
using System.Reflection;
using System.Threading;
using UnityEditor;

public sealed class DomainDriver : MarshalByRefObject
{
    public string Load(string package, string tools, int pump)
    {
        AppDomain.CurrentDomain.SetData("buril.test.pump", pump);
        var loaded = Assembly.LoadFrom(package);
        Assembly.LoadFrom(tools);
        foreach (var type in loaded.GetTypes())
        {
            if (type.IsDefined(typeof(InitializeOnLoadAttribute), false))
            {
                System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor(type.TypeHandle);
            }
        }
        var host = loaded.GetType("Buril.Generated.BurilEditorHost");
        var url = (string)host.GetProperty("Url").GetValue(null, null);
        var refused = (System.Collections.Generic.IList<string>)host.GetProperty("Refused").GetValue(null, null);
        foreach (var reason in refused)
        {
            Console.Error.WriteLine("refused: " + reason);
        }
        return url;
    }

    public void Tick()
    {
        var update = EditorApplication.update;
        if (update != null)
        {
            update();
        }
    }

    public void BeforeReload()
    {
        AssemblyReloadEvents.RaiseBeforeAssemblyReload();
    }

    public void Quit()
    {
        EditorApplication.RaiseQuitting();
    }
}

public static class EditorDriver
{
    private static DomainDriver Domain(string package, string tools, int generation, out AppDomain domain)
    {
        domain = AppDomain.CreateDomain("scripts " + generation, null, AppDomain.CurrentDomain.SetupInformation);
        var driver = (DomainDriver)domain.CreateInstanceAndUnwrap(typeof(DomainDriver).Assembly.FullName, typeof(DomainDriver).FullName);
        var url = driver.Load(package, tools, Thread.CurrentThread.ManagedThreadId);
        Console.WriteLine((generation == 1 ? "serving " : "reloaded ") + url);
        Console.Out.Flush();
        return driver;
    }

    public static int Main(string[] args)
    {
        var package = args[0];
        var commands = new BlockingCollection<string>();
        var reader = new Thread(() =>
        {
            string line;
            while ((line = Console.ReadLine()) != null)
            {
                commands.Add(line);
            }
            commands.Add("quit");
        });
        reader.IsBackground = true;
        reader.Start();
        AppDomain domain;
        var generation = 1;
        var driver = Domain(package, args[1], generation, out domain);
        while (true)
        {
            string command;
            if (!commands.TryTake(out command, 1))
            {
                driver.Tick();
                continue;
            }
            var words = command.Split(' ');
            switch (words[0])
            {
                case "reload":
                    driver.BeforeReload();
                    AppDomain.Unload(domain);
                    generation++;
                    driver = Domain(package, words[1], generation, out domain);
                    break;
                case "block":
                    Thread.Sleep(int.Parse(words[1]));
                    Console.WriteLine("unblocked");
                    Console.Out.Flush();
                    break;
                case "quit":
                    driver.Quit();
                    AppDomain.Unload(domain);
                    Console.WriteLine("quit");
                    Console.Out.Flush();
                    return 0;
                default:
                    Console.Error.WriteLine("unknown command: " + command);
                    return 2;
            }
        }
    }
}
