// The transports' message reader (`BurilMessageReader`, behind `BurilMcp.ParseMessage`) against
// Newtonsoft.Json's own parser (`BurilJson.Parse`), message by message: hand-picked messages
// (answers, errors, notifications, requests; every escape, number form and nesting; what the
// reader must decline) and messages made at random from a fixed seed. For each: whether the
// reader read it or declined it, and whether `ParseMessage`'s result (a result's kept text
// parsed in place) is the tree Newtonsoft.Json makes of the text, token type by token type; or,
// for a text Newtonsoft.Json refuses, that `ParseMessage` refuses it too. Prints JSON (see
// `tests/csharp/mcp.rs`).

using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using Buril.Generated;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace Buril.MessagesTest
{
    public static class Program
    {
        private const string Answer =
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"name\\\":\\\"crate_01\\\",\\\"x\\\":25.0}\"}],"
            + "\"structuredContent\":{\"name\":\"crate_01\",\"x\":25.0,\"tagged\":true},\"isError\":false,\"_meta\":{\"buril/metadata\":\"d9359e21088369a5\"}}}";

        /// <summary>Messages the reader must read (and read as Newtonsoft.Json does).</summary>
        private static readonly string[] Read =
        {
            Answer,
            // The same, spread over lines and spaces as a pretty printer writes it.
            "{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\" : 2 ,\t\"result\" : {\n    \"content\" : [ { \"type\" : \"text\" , \"text\" : \"a\" } ] ,\n    \"structuredContent\" : { \"n\" : [ 1 , 2 ] } , \"isError\" : false\n  }\n}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"unknown tool: `nope`\",\"data\":null}}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":0.5,\"total\":1,\"message\":\"half\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}",
            "{}",
            // Every escape, in values and in member names.
            "{\"id\":1,\"result\":{\"structuredContent\":{\"q\\\"uo\\\\te\\/\":\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u00e9j\\u0000k\\u001F\\u20AC\"},\"s\\u0041\":\"\\\"\"}}",
            // Numbers: every form, the ends of 64 bits, and inside kept text integers beyond them.
            "{\"id\":9223372036854775807,\"result\":{\"a\":[0,-0,12,-12,-9223372036854775808,1.5,-1.5e10,1E-3,2.0,1e308,0.0001,5E+2,-0.0],"
                + "\"structuredContent\":{\"big\":18446744073709551615,\"neg\":-99999999999999999999}}}",
            // Nesting, empty containers, literals; content that is not an array and structured content that is not an object.
            "{\"id\":4,\"result\":{\"content\":\"text\",\"structuredContent\":[1,{\"a\":[[],{},[{}]]}],\"isError\":null,\"t\":true,\"f\":false}}",
            "{\"id\":5,\"result\":{\"content\":[],\"structuredContent\":{},\"_meta\":{\"buril/warnings\":[\"w1\",\"w2\"],\"buril/result\":\"content\"}}}",
            // Characters beyond ASCII, as they are (a surrogate pair among them).
            "{\"id\":6,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\u00e9 \ud83d\ude00 \u65e5\u672c\"}],\"k\":\"\u00e9\ud83d\ude00\"}}",
            // A result member of the message that is not an object, and `result` deeper down.
            "{\"id\":7,\"result\":[1,2],\"params\":{\"result\":{\"content\":[1]}}}",
            // 63 levels: within the reader's depth.
            "{\"id\":8,\"a\":" + new string('[', 62) + new string(']', 62) + "}",
        };

        /// <summary>Messages the reader must decline (Newtonsoft.Json decides them).</summary>
        private static readonly string[] Declined =
        {
            "{\"id\":18446744073709551615,\"result\":{}}",
            "{\"id\":1,\"result\":{\"x\":1e400}}",
            "{\"id\":1,\"s\":\"\\ud83d\\ude00\"}",
            "{\"id\":1,\"s\":\"\\ud83d\"}",
            "{\"id\":1,\"id\":2}",
            "{\"id\":1,\"result\":{\"content\":[],\"content\":[]}}",
            "{\"id\":1 /* a comment */}",
            "{'id':1}",
            "{id:1}",
            "{\"id\":1,}",
            "{\"id\":[1,]}",
            "{\"id\":NaN}",
            "{\"id\":01}",
            "{\"id\":1.}",
            "{\"id\":.5}",
            "{\"id\":-}",
            "{\"id\":1e}",
            "{\"id\":+1}",
            "{\"id\":1}x",
            "{\"id\":1}{\"id\":2}",
            "",
            "   ",
            "[]",
            "null",
            "\"text\"",
            "{\"id\":1,\"s\":\"unterminated}",
            "{\"id\":1,\"s\":\"a\tb\"}",
            "{\"id\":1,\"s\":\"\\x41\"}",
            "{\"id\":1,\"s\":\"\\u12\"}",
            "{\"id\":1,\"s\":\"\\u12G4\"}",
            "{\"id\":1,\"result\":{\"structuredContent\":{\"a\":}}}",
            "{\"id\":1,\"result\":{\"structuredContent\":{\"a\":1,}}}",
            "{\"id\":1,\"result\":{\"content\":[\"\\q\"]}}",
            "{\"id\":1,\"result\":{\"content\":[tru]}}",
            "{\"id\":1,\"result\":{\"structuredContent\":{\"a\":1}",
            "{\"id\":tru}",
            "{\"id\":nul}",
            "{\"id\":1,\"a\":" + new string('[', 64) + new string(']', 64) + "}",
            "{\"id\":1,\"result\":{\"structuredContent\":" + new string('[', 70) + new string(']', 70) + "}}",
            "\ufeff{\"id\":1}",
        };

        /// <summary>A token and everything in it, with each value's token type.</summary>
        private static string Describe(JToken token)
        {
            var text = new StringBuilder();
            Describe(token, text);
            return text.ToString();
        }

        private static void Describe(JToken token, StringBuilder text)
        {
            var obj = token as JObject;
            if (obj != null)
            {
                text.Append('{');
                foreach (var property in obj.Properties())
                {
                    text.Append('"').Append(property.Name).Append("\":");
                    Describe(property.Value, text);
                    text.Append(',');
                }
                text.Append('}');
                return;
            }
            var array = token as JArray;
            if (array != null)
            {
                text.Append('[');
                foreach (var item in array)
                {
                    Describe(item, text);
                    text.Append(',');
                }
                text.Append(']');
                return;
            }
            var value = (JValue)token;
            text.Append(token.Type).Append('(')
                .Append(value.Value == null ? "" : value.Value.GetType().Name).Append(')')
                .Append(token.ToString(Formatting.None));
        }

        /// <summary>The parse of <paramref name="text"/> as the transports read it, with every kept text parsed in place, or the refusal.</summary>
        private static string Transports(string text)
        {
            JObject message;
            try
            {
                message = BurilMcp.ParseMessage(text, "the message");
            }
            catch (BurilTransportException error)
            {
                return "refused: " + error.Failure;
            }
            var result = message["result"] as JObject;
            if (result != null)
            {
                BurilMcp.Materialized(result);
            }
            return Describe(message);
        }

        /// <summary>Newtonsoft.Json's parse of <paramref name="text"/>, or the refusal (anything but an object is one).</summary>
        private static string Newtonsoft(string text)
        {
            JObject message;
            try
            {
                message = BurilJson.Parse(text) as JObject;
            }
            catch (JsonException)
            {
                return "refused: Protocol";
            }
            return message == null ? "refused: Protocol" : Describe(message);
        }

        /// <summary>A random JSON value, as JSON text written by Newtonsoft.Json or by hand (spaces, escapes).</summary>
        private static string Value(Random random, int depth)
        {
            int kind = random.Next(depth > 3 ? 6 : 8);
            switch (kind)
            {
                case 0:
                    return random.Next(2) == 0 ? "true" : (random.Next(2) == 0 ? "false" : "null");
                case 1:
                    long integer = ((long)random.Next() << 32 | (uint)random.Next()) >> random.Next(64);
                    return (random.Next(2) == 0 ? -integer : integer).ToString(CultureInfo.InvariantCulture);
                case 2:
                    double real = (random.NextDouble() - 0.5) * Math.Pow(10, random.Next(-20, 20));
                    return random.Next(2) == 0 ? real.ToString("R", CultureInfo.InvariantCulture) : real.ToString("E3", CultureInfo.InvariantCulture);
                case 3:
                case 4:
                    return Text(random);
                case 5:
                    return random.Next(4) == 0 ? Escaped(random) : Text(random);
                case 6:
                    var items = new List<string>();
                    for (int i = random.Next(4); i > 0; i--)
                    {
                        items.Add(Value(random, depth + 1));
                    }
                    return "[" + string.Join(random.Next(2) == 0 ? "," : " , ", items.ToArray()) + "]";
                default:
                    var members = new List<string>();
                    for (int i = random.Next(5); i > 0; i--)
                    {
                        members.Add(Text(random) + ":" + Value(random, depth + 1));
                    }
                    return "{" + string.Join(",", members.ToArray()) + "}";
            }
        }

        private static readonly string Alphabet = "abcXYZ019 _-/\\\"'\n\r\t\b\f\u0001\u001f\u007f\u00e9\u20ac\u65e5\ud83d\ude00{}[]:,";

        /// <summary>A string as Newtonsoft.Json writes it.</summary>
        private static string Text(Random random)
        {
            var text = new StringBuilder();
            for (int i = random.Next(8); i > 0; i--)
            {
                int at = random.Next(Alphabet.Length);
                // A surrogate pair stays whole.
                if (char.IsHighSurrogate(Alphabet[at]))
                {
                    text.Append(Alphabet, at, 2);
                }
                else if (!char.IsLowSurrogate(Alphabet[at]))
                {
                    text.Append(Alphabet[at]);
                }
            }
            return Quoted(text.ToString(), random);
        }

        /// <summary>A string as JSON text, each character that must be escaped escaped one way or the other, and some that need not be.</summary>
        private static string Quoted(string value, Random random)
        {
            var text = new StringBuilder("\"");
            foreach (char c in value)
            {
                bool must = c < ' ' || c == '"' || c == '\\';
                if (!must && random.Next(8) != 0)
                {
                    text.Append(c);
                    continue;
                }
                string shortForm = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                    : c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '/' ? "\\/" : null;
                if (shortForm != null && random.Next(2) == 0)
                {
                    text.Append(shortForm);
                }
                else if (char.IsSurrogate(c))
                {
                    // Escaping a surrogate makes the reader decline the message: kept as it is.
                    text.Append(c);
                }
                else
                {
                    text.Append("\\u").Append(((int)c).ToString(random.Next(2) == 0 ? "x4" : "X4", CultureInfo.InvariantCulture));
                }
            }
            return text.Append('"').ToString();
        }

        /// <summary>A string of \u escapes, upper and lower case.</summary>
        private static string Escaped(Random random)
        {
            var text = new StringBuilder("\"");
            for (int i = random.Next(1, 4); i > 0; i--)
            {
                int code = random.Next(3) == 0 ? random.Next(0x20) : random.Next(0x20, 0xD800);
                var hex = code.ToString(random.Next(2) == 0 ? "x4" : "X4", CultureInfo.InvariantCulture);
                text.Append("\\u").Append(hex).Append("ok");
            }
            return text.Append('"').ToString();
        }

        /// <summary>A message around random values: an answer, an error, a notification.</summary>
        private static string Message(Random random)
        {
            switch (random.Next(3))
            {
                case 0:
                    return "{\"jsonrpc\":\"2.0\",\"id\":" + random.Next() + ",\"result\":{\"content\":" + "[" + Value(random, 1) + "]"
                        + ",\"structuredContent\":" + Value(random, 0) + ",\"isError\":" + Value(random, 2)
                        + ",\"_meta\":" + Value(random, 1) + "}}";
                case 1:
                    return "{\"jsonrpc\":\"2.0\",\"id\":" + random.Next() + ",\"error\":{\"code\":" + Value(random, 4) + ",\"message\":" + Text(random) + ",\"data\":" + Value(random, 0) + "}}";
                default:
                    return "{ \"jsonrpc\" : \"2.0\" , \"method\" : " + Text(random) + " , \"params\" : " + Value(random, 0) + " }";
            }
        }

        public static int Main(string[] args)
        {
            var o = new JObject();
            var mismatches = new JArray();
            var notRead = new JArray();
            var notDeclined = new JArray();
            int read = 0;
            int declined = 0;
            Action<string, string> check = (kind, text) =>
            {
                bool wasRead = BurilMessageReader.Read(text) != null;
                if (wasRead)
                {
                    read++;
                }
                else
                {
                    declined++;
                }
                if (kind == "read" && !wasRead)
                {
                    notRead.Add(text);
                }
                if (kind == "declined" && wasRead)
                {
                    notDeclined.Add(text);
                }
                var ours = Transports(text);
                var theirs = Newtonsoft(text);
                if (ours != theirs)
                {
                    mismatches.Add(new JObject { { "text", text }, { "transports", ours }, { "newtonsoft", theirs } });
                }
            };
            foreach (var text in Read)
            {
                check("read", text);
            }
            foreach (var text in Declined)
            {
                check("declined", text);
            }
            int randomRead = read;
            var random = new Random(20261204);
            int count = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 3000;
            for (int i = 0; i < count; i++)
            {
                check("random", Message(random));
            }
            o["handPicked"] = Read.Length + Declined.Length;
            o["random"] = count;
            o["randomRead"] = read - randomRead;
            o["read"] = read;
            o["declined"] = declined;
            o["notRead"] = notRead;
            o["notDeclined"] = notDeclined;
            o["mismatches"] = mismatches;
            Console.WriteLine(o.ToString(Formatting.None));
            return Ending.End(0);
        }
    }
}
