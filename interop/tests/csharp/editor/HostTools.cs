// Editor tools for the host's tests, compiled twice: as the scripts before a reload, and with
// RELOADED defined as the scripts after it (one tool gone, one added). Each reports the thread
// it ran on against the stand-in editor's pump (the domain's `buril.test.pump`).

using System;
using System.Threading;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.Tools.MyFamily
{
    // The product document's minimal tool, with its schema as JSON text.
    public class MyFamilyGreetTool : ITool
    {
        public string Name => "myfamily_greet";

        public string Description =>
            "Returns a friendly greeting for the named user. " +
            "Use when the user explicitly asks to be greeted.";

        public string InputSchemaJson => @"{
            'type': 'object',
            'properties': {
                'name': { 'type': 'string', 'minLength': 1 }
            },
            'required': ['name']
        }";

        public object Run(JObject input)
        {
            var name = input.Value<string>("name");
            return new { ok = true, greeting = $"Hello, {name}!" };
        }
    }
}

namespace HostTests
{
    internal static class Where
    {
        public static bool OnPump()
        {
            return Thread.CurrentThread.ManagedThreadId == (int)AppDomain.CurrentDomain.GetData("buril.test.pump");
        }
    }

    /// The three outcomes and a null, as the input says.
    public class OutcomeTool : ITool
    {
        public string Name => "hosttest_outcome";

        public string Description => "Answers the outcome it is asked for.";

        public string InputSchemaJson => "{\"type\":\"object\",\"properties\":{\"outcome\":{\"type\":\"string\",\"enum\":[\"value\",\"refuse\",\"throw\",\"null\"]}},\"required\":[\"outcome\"]}";

        public object Run(JObject input)
        {
            switch ((string)input["outcome"])
            {
                case "value":
                    return new { on_pump = Where.OnPump() };
                case "refuse":
                    throw new ToolValidationException("`outcome` refused on purpose");
                case "throw":
                    throw new InvalidOperationException("the tool failed on purpose");
                default:
                    return null;
            }
        }
    }

    /// Sleeps on the main thread.
    public class SlowTool : ITool
    {
        public string Name => "hosttest_slow";

        public string Description => "Sleeps on the main thread for the milliseconds asked.";

        public string InputSchemaJson => "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"ms\"]}";

        public object Run(JObject input)
        {
            // Says it started, for a test that waits for that.
            System.IO.File.WriteAllText(System.IO.Path.Combine(Environment.GetEnvironmentVariable("BURIL_TEST_PROJECT"), "slow-started"), "");
            Thread.Sleep((int)input["ms"]);
            return new { slept = (int)input["ms"], on_pump = Where.OnPump() };
        }
    }

    /// Runs off the main thread.
    [OffThread]
    public class OffThreadTool : ITool
    {
        public string Name => "hosttest_off_thread";

        public string Description => "Says which thread it ran on.";

        public string InputSchemaJson => "{\"type\":\"object\"}";

        public object Run(JObject input)
        {
            return new { on_pump = Where.OnPump() };
        }
    }

#if RELOADED
    public class AddedTool : ITool
    {
        public string Name => "hosttest_added";

        public string Description => "Came with the reload.";

        public string InputSchemaJson => "{\"type\":\"object\"}";

        public object Run(JObject input)
        {
            return new { added = true };
        }
    }
#else
    public class GoneTool : ITool
    {
        public string Name => "hosttest_gone";

        public string Description => "Goes with the reload.";

        public string InputSchemaJson => "{\"type\":\"object\"}";

        public object Run(JObject input)
        {
            return new { gone = false };
        }
    }
#endif

    /// The declared `unity_set_play_mode`, done here as the editor would.
    public class SetPlayMode : UnitySetPlayModeTool
    {
        private static bool playing;
        private static bool paused;

        protected override UnitySetPlayModeOutput Execute(UnitySetPlayModeInput input)
        {
            if (!Where.OnPump())
            {
                throw new InvalidOperationException("play mode set off the main thread");
            }
            switch (input.Mode)
            {
                case PlayModeTarget.Play:
                    playing = true;
                    paused = false;
                    break;
                case PlayModeTarget.Pause:
                    if (!playing)
                    {
                        throw new ToolValidationException("the game is not running: play first");
                    }
                    paused = true;
                    break;
                default:
                    playing = false;
                    paused = false;
                    break;
            }
            return new UnitySetPlayModeOutput { Playing = playing, Paused = paused };
        }
    }

    /// `unity_clear_console` as a stub generated from an older contract would have it.
    public class StaleClearConsole : ITool, IBurilDeclaredTool
    {
        public string Name => "unity_clear_console";

        public string Description => "Clears the console (an older contract).";

        public string InputSchemaJson => "{\"type\":\"object\"}";

        public string MetadataHash => "0123456789abcdef";

        public object Run(JObject input)
        {
            return BurilJson.Success(new { cleared = 0 });
        }
    }

    /// The declared `unity_read_console`, over a console of one error.
    public class ReadConsole : UnityReadConsoleTool
    {
        protected override UnityReadConsoleOutput Execute(UnityReadConsoleInput input)
        {
            return new UnityReadConsoleOutput
            {
                Total = 1,
                Messages = new System.Collections.Generic.List<ConsoleMessage>
                {
                    new ConsoleMessage { Level = ConsoleLevel.Error, Message = "NullReferenceException: Player.Update", StackTrace = "" },
                },
            };
        }
    }
}
