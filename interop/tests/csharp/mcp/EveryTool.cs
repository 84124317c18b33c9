// Calls every example tool of a real `tools serve` through the committed C# bindings' typed
// BurilClient method (`SceneList(SceneListInput)`, ...): `EveryTool.exe CALLS stdio TOOLS`
// (BurilProcessTransport, `tools serve --allow-dangerous`) or `EveryTool.exe CALLS http URL`
// (BurilHttpTransport). CALLS is a JSON array of `{tool, input}`; the string "$id" in an input
// stands for the id of the game object created last, "$handle" for the handle of the run
// started last. Each input is read into the tool's input class, and each output written back
// from its output class. Prints one JSON object: the server's hash and each call's outcome.

using System;
using System.IO;
using System.Linq;
using System.Reflection;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.EveryToolTest
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length < 3)
            {
                Console.Error.WriteLine("usage: EveryTool.exe CALLS stdio TOOLS | EveryTool.exe CALLS http URL");
                return 2;
            }
            var calls = JArray.Parse(File.ReadAllText(args[0]));
            IMcpToolTransport transport;
            if (args[1] == "stdio")
            {
                transport = new BurilProcessTransport(args[2], "serve --allow-dangerous", null);
            }
            else
            {
                transport = new BurilHttpTransport(args[2]);
            }
            var o = new JObject();
            try
            {
                var client = new BurilClient(transport);
                var outcomes = new JArray();
                JToken id = null;
                JToken handle = null;
                foreach (JObject call in calls)
                {
                    var tool = (string)call["tool"];
                    var outcome = new JObject { { "tool", tool } };
                    try
                    {
                        var pascal = Pascal(tool);
                        var inputType = typeof(BurilClient).Assembly.GetType("Buril.Generated." + pascal + "Input", true);
                        var method = typeof(BurilClient).GetMethods().Single(m =>
                            m.Name == pascal && m.GetParameters().Length > 0 && m.GetParameters()[0].ParameterType == inputType);
                        var input = BurilJson.Deserialize(Substitute(call["input"], id, handle).ToString(Formatting.None), inputType);
                        outcome["method"] = method.Name + "(" + inputType.Name + ")";
                        outcome["input"] = JToken.Parse(BurilJson.Serialize(input));
                        var arguments = method.GetParameters().Select((p, i) => i == 0 ? input : (p.HasDefaultValue ? p.DefaultValue : null)).ToArray();
                        object output;
                        try
                        {
                            output = method.Invoke(client, arguments);
                        }
                        catch (TargetInvocationException wrapped)
                        {
                            throw wrapped.InnerException;
                        }
                        outcome["outputType"] = output.GetType().Name;
                        var data = JToken.Parse(BurilJson.Serialize(output));
                        outcome["ok"] = true;
                        outcome["data"] = data;
                        if (tool == "gameobject_create")
                        {
                            id = data["id"];
                        }
                        if (tool == "agent_team_handoff")
                        {
                            handle = data["handle"];
                        }
                    }
                    catch (BurilToolException error)
                    {
                        outcome["ok"] = false;
                        outcome["toolError"] = true;
                        outcome["type"] = error.Type;
                        outcome["error"] = error.Message;
                    }
                    catch (Exception error)
                    {
                        outcome["ok"] = false;
                        outcome["toolError"] = false;
                        outcome["text"] = error.ToString();
                    }
                    outcomes.Add(outcome);
                }
                o["serverMetadataHash"] = client.ServerVersion;
                o["outcomes"] = outcomes;
            }
            finally
            {
                ((IDisposable)transport).Dispose();
            }
            Console.WriteLine(o.ToString(Formatting.None));
            return Ending.End(0);
        }

        private static string Pascal(string name)
        {
            return string.Concat(name.Split('_').Select(p => char.ToUpperInvariant(p[0]) + p.Substring(1)));
        }

        private static JToken Substitute(JToken value, JToken id, JToken handle)
        {
            if (value.Type == JTokenType.String && ((string)value == "$id" || (string)value == "$handle"))
            {
                var replacement = (string)value == "$id" ? id : handle;
                if (replacement == null)
                {
                    throw new InvalidOperationException((string)value + " used before the call that gives it");
                }
                return replacement.DeepClone();
            }
            if (value is JArray)
            {
                return new JArray(((JArray)value).Select(v => Substitute(v, id, handle)));
            }
            if (value is JObject)
            {
                var copy = new JObject();
                foreach (var property in (JObject)value)
                {
                    copy[property.Key] = Substitute(property.Value, id, handle);
                }
                return copy;
            }
            return value.DeepClone();
        }
    }
}
