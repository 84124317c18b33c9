// Calls the real `tools` binary through the generated BurilClient: a transport that runs
// `tools call NAME - --compact` per call (the input on standard input), on the project named by
// BURIL_PROJECT. Prints what the typed results hold, the failures, and the tool names sent.

#if BURIL_REGISTRY
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public sealed class ProcessTransport : IToolTransport
    {
        private readonly string executable;

        public ProcessTransport(string executable)
        {
            this.executable = executable;
            Sent = new List<string>();
        }

        public List<string> Sent { get; private set; }

        public string Call(string name, string inputJson)
        {
            Sent.Add(name);
            var start = new ProcessStartInfo(executable, "call " + name + " - --compact")
            {
                UseShellExecute = false,
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                StandardOutputEncoding = new UTF8Encoding(false),
                StandardErrorEncoding = new UTF8Encoding(false),
            };
            using (var process = Process.Start(start))
            {
                var bytes = new UTF8Encoding(false).GetBytes(inputJson);
                process.StandardInput.BaseStream.Write(bytes, 0, bytes.Length);
                process.StandardInput.Close();
                var errors = process.StandardError.ReadToEndAsync();
                var output = process.StandardOutput.ReadToEnd();
                process.WaitForExit();
                // 0: ok, 1: ok false; anything else is a usage error of this transport.
                if (process.ExitCode != 0 && process.ExitCode != 1)
                {
                    throw new InvalidOperationException("tools exited with " + process.ExitCode + ": " + errors.Result);
                }
                return output;
            }
        }
    }

    public static class Live
    {
        public static int Run(string executable)
        {
            var transport = new ProcessTransport(executable);
            var client = new BurilClient(transport);
            var o = new JObject();

            var open = client.SceneOpen(new SceneOpenInput { Path = "Assets/Scenes/Main.scene" });
            o["open"] = new JObject
            {
                { "scene", open.Scene.Name },
                { "path", open.Scene.Path },
                { "objectCount", (long)open.Scene.ObjectCount },
                { "roots", new JArray(open.Scene.RootObjects) },
                { "openScenes", new JArray(open.OpenScenes) },
            };

            var created = client.GameobjectCreate(new GameobjectCreateInput
            {
                Name = "Enemy",
                Primitive = Primitive.Cube,
                Position = new Vec3 { X = 1, Y = 0.5, Z = -2 },
                Components = new List<ComponentSpec>(),
            });
            o["created"] = new JObject
            {
                { "id", created.Id.ToString() },
                { "name", created.Name },
                { "scene", created.Scene },
                { "x", created.Transform.Position.X },
                { "y", created.Transform.Position.Y },
                { "z", created.Transform.Position.Z },
                { "components", new JArray(created.Components.Select(c => c.Type)) },
                { "parentIsNull", created.Parent == null },
            };

            var listed = client.SceneListGameobjects();
            o["listed"] = new JArray(listed.Roots.Select(r => r.Name));
            o["listedIds"] = new JArray(listed.Roots.Select(r => r.Id.ToString()));

#pragma warning disable 618
            var viaAlias = client.SceneGetHierarchy(new SceneListGameobjectsInput { IncludeComponents = true });
#pragma warning restore 618
            o["alias"] = new JArray(viaAlias.Roots.Select(r => r.Name));
            var obsolete = (ObsoleteAttribute[])typeof(BurilClient)
                .GetMethod("SceneGetHierarchy")
                .GetCustomAttributes(typeof(ObsoleteAttribute), false);
            o["aliasObsolete"] = obsolete.Length == 1 ? obsolete[0].Message : null;

            try
            {
                client.GameobjectGet(new GameobjectGetInput { Id = 999 });
                o["missing"] = "no exception";
            }
            catch (BurilToolException error)
            {
                o["missing"] = new JObject { { "type", error.Type }, { "error", error.Error }, { "tool", error.Tool } };
            }

            try
            {
                client.Call<GameobjectCreateOutput>("gameobject_create", new JObject { { "name", 3 } });
                o["invalid"] = "no exception";
            }
            catch (BurilToolException error)
            {
                o["invalid"] = new JObject
                {
                    { "validationException", error is ToolValidationException },
                    { "type", error.Type },
                    { "error", error.Error },
                    { "problems", new JArray(error.Problems.Select(p => new JObject { { "path", p.Path }, { "message", p.Message } })) },
                };
            }

            try
            {
                client.Call<SceneListOutput>("scene_lst", null);
                o["unknown"] = "no exception";
            }
            catch (BurilToolException error)
            {
                o["unknown"] = new JObject
                {
                    { "type", error.Type },
                    { "suggestions", new JArray(error.Suggestions) },
                };
            }

            o["sent"] = new JArray(transport.Sent);
            Output.Print(o);
            return 0;
        }
    }
}
#endif
