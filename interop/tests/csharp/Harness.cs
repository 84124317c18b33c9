// The test harness of the generated C# bindings: a program the Rust tests compile together
// with the generated files and run with mono. Every mode prints one JSON value on standard
// output, with non-ASCII characters escaped so that the console's encoding does not matter.

using System;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 0)
            {
                Console.Error.WriteLine("usage: Harness.exe MODE [ARGS]");
                return 2;
            }
            switch (args[0])
            {
                case "roundtrip":
                    return RoundTrip.Run(args[1]);
                case "catalog":
                    return Catalog.Run();
                case "exact":
                    return Exact.Run(args[1]);
#if BURIL_REGISTRY
                case "typed":
                    return Typed.Run();
                case "live":
                    return Live.Run(args[1]);
#endif
                default:
                    Console.Error.WriteLine("unknown mode: " + args[0]);
                    return 2;
            }
        }
    }

    public static class Output
    {
        /// <summary>A JSON value as compact ASCII text.</summary>
        public static string Compact(JToken token)
        {
            var text = new System.IO.StringWriter();
            using (var writer = new JsonTextWriter(text))
            {
                writer.Formatting = Formatting.None;
                writer.StringEscapeHandling = StringEscapeHandling.EscapeNonAscii;
                token.WriteTo(writer);
            }
            return text.ToString();
        }

        /// <summary>Prints a JSON value as one line.</summary>
        public static void Print(JToken token)
        {
            Console.Out.WriteLine(Compact(token));
        }
    }
}
