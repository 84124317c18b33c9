// The JSON of the bindings: BurilJson (the settings every generated class is read and written
// with, parsing, envelopes and the helpers of the generated converters), BurilIntegerConverter
// (integers read exactly) and BurilNoConverter (a tagged union's variants as plain objects).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>
    /// The JSON settings of the bindings. Read and write the generated classes through these
    /// (or settings from <see cref="CreateSettings"/>): strings that look like dates stay
    /// strings, floating-point numbers are read as <c>double</c>, and integers are read exactly
    /// (<see cref="BurilIntegerConverter"/>).
    /// </summary>
    public static class BurilJson
    {
        /// <summary>New settings for the generated classes.</summary>
        /// <returns>The settings.</returns>
        public static global::Newtonsoft.Json.JsonSerializerSettings CreateSettings()
        {
            return new global::Newtonsoft.Json.JsonSerializerSettings
            {
                DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None,
                FloatParseHandling = global::Newtonsoft.Json.FloatParseHandling.Double,
                Culture = global::System.Globalization.CultureInfo.InvariantCulture,
                Converters = new global::System.Collections.Generic.List<global::Newtonsoft.Json.JsonConverter>
                {
                    new BurilIntegerConverter(),
                },
            };
        }

        /// <summary>A new serializer with <see cref="CreateSettings"/>.</summary>
        /// <returns>The serializer.</returns>
        public static global::Newtonsoft.Json.JsonSerializer CreateSerializer()
        {
            return global::Newtonsoft.Json.JsonSerializer.Create(CreateSettings());
        }

        // One serializer for every call: a configured JsonSerializer is safe to share between
        // threads, and making one per call costs more than many a call's JSON.
        private static readonly global::Newtonsoft.Json.JsonSerializer Shared = CreateSerializer();

        /// <summary>A value as compact JSON text.</summary>
        /// <param name="value">The value.</param>
        /// <returns>The JSON text.</returns>
        public static string Serialize(object value)
        {
            var text = new global::System.IO.StringWriter(new global::System.Text.StringBuilder(256), global::System.Globalization.CultureInfo.InvariantCulture);
            using (var writer = new global::Newtonsoft.Json.JsonTextWriter(text) { Formatting = global::Newtonsoft.Json.Formatting.None })
            {
                Shared.Serialize(writer, value);
            }
            return text.ToString();
        }

        /// <summary>Writes a value as compact JSON text at the end of <paramref name="text"/>.</summary>
        internal static void SerializeInto(global::System.Text.StringBuilder text, object value)
        {
            var output = new global::System.IO.StringWriter(text, global::System.Globalization.CultureInfo.InvariantCulture);
            using (var writer = new global::Newtonsoft.Json.JsonTextWriter(output) { Formatting = global::Newtonsoft.Json.Formatting.None })
            {
                Shared.Serialize(writer, value);
            }
        }

        /// <summary>Reads JSON text as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="json">The JSON text.</param>
        /// <returns>The value.</returns>
        public static T Deserialize<T>(string json)
        {
            return (T)Deserialize(json, typeof(T));
        }

        /// <summary>Reads JSON text as a value of <paramref name="type"/>.</summary>
        /// <param name="json">The JSON text.</param>
        /// <param name="type">The type to read.</param>
        /// <returns>The value.</returns>
        public static object Deserialize(string json, global::System.Type type)
        {
            try
            {
                using (var reader = new global::Newtonsoft.Json.JsonTextReader(new global::System.IO.StringReader(json)))
                {
                    var value = Shared.Deserialize(reader, type);
                    while (reader.Read())
                    {
                        if (reader.TokenType != global::Newtonsoft.Json.JsonToken.Comment)
                        {
                            throw new global::Newtonsoft.Json.JsonReaderException("unexpected content after the JSON value");
                        }
                    }
                    return value;
                }
            }
            catch (global::System.Exception error)
            {
                throw Refused(error);
            }
        }

        /// <summary>
        /// What Newtonsoft.Json throws for some text it cannot read other than as a
        /// <c>JsonException</c> (a bad <c>\u</c> escape is a <c>FormatException</c>, a number
        /// too large for a double an <c>OverflowException</c>, a duplicate member an
        /// <c>ArgumentException</c>), as a <c>JsonReaderException</c>; anything else as it is.
        /// </summary>
        private static global::System.Exception Refused(global::System.Exception error)
        {
            if (error is global::System.FormatException || error is global::System.OverflowException
                || (error is global::System.ArgumentException && !(error is global::System.ArgumentNullException)))
            {
                return new global::Newtonsoft.Json.JsonReaderException(error.Message, error);
            }
            return error;
        }

        /// <summary>Parses JSON text, keeping strings as strings; fails on trailing content, and on any text it cannot read with a <c>JsonException</c>.</summary>
        /// <param name="json">The JSON text.</param>
        /// <returns>The value.</returns>
        public static global::Newtonsoft.Json.Linq.JToken Parse(string json)
        {
            if (json == null)
            {
                throw new global::System.ArgumentNullException("json");
            }
            try
            {
                using (var reader = new global::Newtonsoft.Json.JsonTextReader(new global::System.IO.StringReader(json)))
                {
                    reader.DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None;
                    reader.FloatParseHandling = global::Newtonsoft.Json.FloatParseHandling.Double;
                    var token = global::Newtonsoft.Json.Linq.JToken.ReadFrom(reader);
                    while (reader.Read())
                    {
                        if (reader.TokenType != global::Newtonsoft.Json.JsonToken.Comment)
                        {
                            throw new global::Newtonsoft.Json.JsonReaderException("unexpected content after the JSON value");
                        }
                    }
                    return token;
                }
            }
            catch (global::System.Exception error)
            {
                throw Refused(error);
            }
        }

        /// <summary>Reads a JSON value as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="token">The JSON value.</param>
        /// <returns>The value.</returns>
        public static T FromToken<T>(global::Newtonsoft.Json.Linq.JToken token)
        {
            return (T)FromToken(token, typeof(T));
        }

        /// <summary>Reads a JSON value as a value of <paramref name="type"/>.</summary>
        /// <param name="token">The JSON value.</param>
        /// <param name="type">The type to read.</param>
        /// <returns>The value.</returns>
        public static object FromToken(global::Newtonsoft.Json.Linq.JToken token, global::System.Type type)
        {
            if (token == null)
            {
                throw new global::System.ArgumentNullException("token");
            }
            // A value the transports kept as its JSON text (a result's structured content) is
            // read from that text, with no JSON tree made for it first.
            var raw = token as global::Newtonsoft.Json.Linq.JRaw;
            if (raw != null && raw.Value is string)
            {
                return Deserialize((string)raw.Value, type);
            }
            return token.ToObject(type, Shared);
        }

        /// <summary>
        /// A value as a JSON value (<c>null</c> as a JSON null). A <c>ulong</c> beyond
        /// <c>long.MaxValue</c> is held as a <c>BigInteger</c>, which every Newtonsoft.Json
        /// writes (before version 7, a JSON value holding such a <c>ulong</c> fails to be written).
        /// </summary>
        /// <param name="value">The value.</param>
        /// <returns>The JSON value.</returns>
        public static global::Newtonsoft.Json.Linq.JToken ToToken(object value)
        {
            if (value == null)
            {
                return global::Newtonsoft.Json.Linq.JValue.CreateNull();
            }
            var token = global::Newtonsoft.Json.Linq.JToken.FromObject(value, Shared);
            WidenUnsigned(token as global::Newtonsoft.Json.Linq.JValue);
            var container = token as global::Newtonsoft.Json.Linq.JContainer;
            if (container != null)
            {
                foreach (var descendant in container.Descendants())
                {
                    WidenUnsigned(descendant as global::Newtonsoft.Json.Linq.JValue);
                }
            }
            return token;
        }

        /// <summary>Makes a JSON value holding a <c>ulong</c> beyond <c>long.MaxValue</c> hold it as a <c>BigInteger</c>.</summary>
        private static void WidenUnsigned(global::Newtonsoft.Json.Linq.JValue token)
        {
            if (token != null && token.Value is ulong && (ulong)token.Value > long.MaxValue)
            {
                token.Value = new global::System.Numerics.BigInteger((ulong)token.Value);
            }
        }

        /// <summary>Tries to read a JSON value as a <typeparamref name="T"/>.</summary>
        /// <typeparam name="T">The type to read.</typeparam>
        /// <param name="token">The JSON value.</param>
        /// <param name="shapeMatches">Whether the value has the JSON type <typeparamref name="T"/> is written as.</param>
        /// <param name="value">The value read, or the default.</param>
        /// <returns>Whether the value could be read.</returns>
        public static bool TryFromToken<T>(global::Newtonsoft.Json.Linq.JToken token, bool shapeMatches, out T value)
        {
            value = default(T);
            if (token == null || !shapeMatches)
            {
                return false;
            }
            try
            {
                value = FromToken<T>(token);
                return true;
            }
            catch (global::Newtonsoft.Json.JsonException)
            {
                return false;
            }
            catch (global::System.ArgumentException)
            {
                return false;
            }
            catch (global::System.FormatException)
            {
                return false;
            }
            catch (global::System.InvalidCastException)
            {
                return false;
            }
            catch (global::System.OverflowException)
            {
                return false;
            }
        }

        /// <summary>The success envelope: <c>{"ok": true, "data": data}</c>.</summary>
        /// <param name="data">The data.</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject Success(object data)
        {
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            envelope["ok"] = true;
            envelope["data"] = ToToken(data);
            return envelope;
        }

        /// <summary>A failure envelope: <c>{"ok": false, "type": type, "error": error, "problems": [...]}</c>.</summary>
        /// <param name="type">The kind of failure (<c>validation</c>, <c>runtime</c>, ...).</param>
        /// <param name="error">The message.</param>
        /// <param name="problems">The problems with the input (may be null or empty: then left out).</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject Failure(string type, string error, global::System.Collections.Generic.IList<BurilProblem> problems)
        {
            var envelope = new global::Newtonsoft.Json.Linq.JObject();
            envelope["ok"] = false;
            envelope["type"] = type;
            envelope["error"] = error;
            if (problems != null && problems.Count > 0)
            {
                var list = new global::Newtonsoft.Json.Linq.JArray();
                foreach (var problem in problems)
                {
                    var item = new global::Newtonsoft.Json.Linq.JObject();
                    item["path"] = problem.Path;
                    item["message"] = problem.Message;
                    list.Add(item);
                }
                envelope["problems"] = list;
            }
            return envelope;
        }

        /// <summary>
        /// Runs a typed tool on an input object: reads the input, calls <paramref name="execute"/>
        /// and wraps its output in the success envelope. Input that cannot be read, and a
        /// <see cref="ToolValidationException"/> from <paramref name="execute"/>, give the
        /// validation envelope; other exceptions propagate.
        /// </summary>
        /// <typeparam name="TInput">The input class.</typeparam>
        /// <typeparam name="TOutput">The output class.</typeparam>
        /// <param name="name">The tool's wire name, for messages.</param>
        /// <param name="input">The input object (null reads as <c>{}</c>).</param>
        /// <param name="execute">The tool's typed work.</param>
        /// <returns>The envelope.</returns>
        public static global::Newtonsoft.Json.Linq.JObject RunTool<TInput, TOutput>(
            string name,
            global::Newtonsoft.Json.Linq.JObject input,
            global::System.Func<TInput, TOutput> execute)
            where TInput : class
            where TOutput : class
        {
            if (execute == null)
            {
                throw new global::System.ArgumentNullException("execute");
            }
            TInput typed;
            try
            {
                typed = FromToken<TInput>(input ?? new global::Newtonsoft.Json.Linq.JObject());
            }
            catch (global::Newtonsoft.Json.JsonException error)
            {
                return Failure("validation", "invalid input for `" + name + "`: " + error.Message, null);
            }
            TOutput output;
            try
            {
                output = execute(typed);
            }
            catch (ToolValidationException error)
            {
                return Failure("validation", error.Error, error.Problems);
            }
            if (output == null)
            {
                throw new global::System.InvalidOperationException("the tool `" + name + "` returned null; return an output object");
            }
            return Success(output);
        }

        /// <summary>Reads the object at the reader (for union converters), keeping strings as strings.</summary>
        internal static global::Newtonsoft.Json.Linq.JObject ReadObject(global::Newtonsoft.Json.JsonReader reader, string typeName)
        {
            var token = ReadToken(reader);
            var json = token as global::Newtonsoft.Json.Linq.JObject;
            if (json == null)
            {
                throw new global::Newtonsoft.Json.JsonSerializationException(
                    "expected an object for `" + typeName + "`, got " + token.Type + " at '" + reader.Path + "'");
            }
            return json;
        }

        /// <summary>Reads the value at the reader (for union converters), keeping strings as strings.</summary>
        internal static global::Newtonsoft.Json.Linq.JToken ReadToken(global::Newtonsoft.Json.JsonReader reader)
        {
            var dates = reader.DateParseHandling;
            reader.DateParseHandling = global::Newtonsoft.Json.DateParseHandling.None;
            try
            {
                return global::Newtonsoft.Json.Linq.JToken.ReadFrom(reader);
            }
            finally
            {
                reader.DateParseHandling = dates;
            }
        }

        /// <summary>The string value of a tagged union's tag.</summary>
        internal static string ReadTag(global::Newtonsoft.Json.Linq.JObject json, string tag, string typeName)
        {
            var value = json[tag];
            if (value == null || value.Type != global::Newtonsoft.Json.Linq.JTokenType.String)
            {
                throw new global::Newtonsoft.Json.JsonSerializationException(
                    "`" + typeName + "` needs the string property `" + tag + "` at '" + json.Path + "'");
            }
            return (string)value;
        }

        /// <summary>The error for a tag value no variant has.</summary>
        internal static global::System.Exception UnknownTag(global::Newtonsoft.Json.Linq.JObject json, string tag, string typeName)
        {
            return new global::Newtonsoft.Json.JsonSerializationException(
                "`" + typeName + "` has no variant with `" + tag + "` = \"" + (string)json[tag] + "\" at '" + json.Path + "'");
        }

        /// <summary>Fills a union variant from its object.</summary>
        internal static void Populate(global::Newtonsoft.Json.Linq.JObject json, object target, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            using (var reader = json.CreateReader())
            {
                serializer.Populate(reader, target);
            }
        }

        /// <summary>Writes a JSON value (null as a JSON null).</summary>
        internal static void WriteToken(global::Newtonsoft.Json.JsonWriter writer, global::Newtonsoft.Json.Linq.JToken token)
        {
            if (token == null)
            {
                writer.WriteNull();
            }
            else
            {
                token.WriteTo(writer);
            }
        }
    }

    /// <summary>
    /// Reads the integer types of the bindings exactly: <c>int</c>, <c>uint</c>, <c>long</c>,
    /// <c>ulong</c>, <c>System.Numerics.BigInteger</c> and their nullable forms. A JSON integer,
    /// or a number without a fractional part (<c>2.0</c>, as the host accepts), is read when the
    /// type holds it; anything else (<c>1.5</c>, a value beyond the type's range, a string, null
    /// for a type that is not nullable) fails with a <c>JsonSerializationException</c> naming
    /// its path. Newtonsoft.Json alone rounds <c>1.5</c> to <c>2</c> for most of these types,
    /// and cannot read an integer beyond <c>long</c> (which it parses as a <c>BigInteger</c>)
    /// into a <c>ulong?</c>. <see cref="BurilJson.CreateSettings"/> includes it; add it to
    /// settings of your own. Writing is left to Newtonsoft.Json, which writes each of them as a
    /// plain JSON integer.
    /// </summary>
    public sealed class BurilIntegerConverter : global::Newtonsoft.Json.JsonConverter
    {
        /// <summary>Whether <paramref name="objectType"/> is one of the integer types.</summary>
        /// <param name="objectType">The type to read.</param>
        /// <returns>Whether this converter reads it.</returns>
        public override bool CanConvert(global::System.Type objectType)
        {
            // Asked for every value read or written: the common answers first, with no reflection.
            if (objectType == typeof(string) || objectType == typeof(double) || objectType == typeof(bool))
            {
                return false;
            }
            var type = global::System.Nullable.GetUnderlyingType(objectType) ?? objectType;
            return type == typeof(int)
                || type == typeof(uint)
                || type == typeof(long)
                || type == typeof(ulong)
                || type == typeof(global::System.Numerics.BigInteger);
        }

        /// <summary>False: Newtonsoft.Json writes integers as they are.</summary>
        public override bool CanWrite
        {
            get { return false; }
        }

        /// <summary>Reads the integer at the reader as <paramref name="objectType"/>.</summary>
        /// <param name="reader">The reader, at the value.</param>
        /// <param name="objectType">The integer type, or its nullable form.</param>
        /// <param name="existingValue">Not used.</param>
        /// <param name="serializer">Not used.</param>
        /// <returns>The value, boxed (null for a JSON null read as a nullable type).</returns>
        public override object ReadJson(global::Newtonsoft.Json.JsonReader reader, global::System.Type objectType, object existingValue, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            var underlying = global::System.Nullable.GetUnderlyingType(objectType);
            var type = underlying ?? objectType;
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Null && underlying != null)
            {
                return null;
            }
            global::System.Numerics.BigInteger value;
            if (!TryInteger(reader, out value))
            {
                throw Refuse(reader, type, "expected an integer");
            }
            if (type == typeof(global::System.Numerics.BigInteger))
            {
                return value;
            }
            if (type == typeof(int) && value >= int.MinValue && value <= int.MaxValue)
            {
                return (int)value;
            }
            if (type == typeof(uint) && value >= uint.MinValue && value <= uint.MaxValue)
            {
                return (uint)value;
            }
            if (type == typeof(long) && value >= long.MinValue && value <= long.MaxValue)
            {
                return (long)value;
            }
            if (type == typeof(ulong) && value >= ulong.MinValue && value <= ulong.MaxValue)
            {
                return (ulong)value;
            }
            throw Refuse(reader, type, "out of range");
        }

        /// <summary>Not called (<see cref="CanWrite"/> is false).</summary>
        /// <param name="writer">The writer.</param>
        /// <param name="value">The value.</param>
        /// <param name="serializer">The serializer.</param>
        public override void WriteJson(global::Newtonsoft.Json.JsonWriter writer, object value, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException("integers are written by Newtonsoft.Json");
        }

        /// <summary>The integer at the reader, exactly: an integer token, or a float token without a fractional part.</summary>
        private static bool TryInteger(global::Newtonsoft.Json.JsonReader reader, out global::System.Numerics.BigInteger value)
        {
            value = global::System.Numerics.BigInteger.Zero;
            var raw = reader.Value;
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Integer)
            {
                if (raw is global::System.Numerics.BigInteger)
                {
                    value = (global::System.Numerics.BigInteger)raw;
                }
                else if (raw is ulong)
                {
                    value = (ulong)raw;
                }
                else
                {
                    value = global::System.Convert.ToInt64(raw, global::System.Globalization.CultureInfo.InvariantCulture);
                }
                return true;
            }
            if (reader.TokenType == global::Newtonsoft.Json.JsonToken.Float)
            {
                if (raw is decimal)
                {
                    var number = (decimal)raw;
                    if (decimal.Truncate(number) != number)
                    {
                        return false;
                    }
                    value = new global::System.Numerics.BigInteger(number);
                    return true;
                }
                var real = global::System.Convert.ToDouble(raw, global::System.Globalization.CultureInfo.InvariantCulture);
                if (double.IsNaN(real) || double.IsInfinity(real) || global::System.Math.Floor(real) != real)
                {
                    return false;
                }
                value = new global::System.Numerics.BigInteger(real);
                return true;
            }
            return false;
        }

        /// <summary>The error for a value the type does not hold.</summary>
        private static global::System.Exception Refuse(global::Newtonsoft.Json.JsonReader reader, global::System.Type type, string why)
        {
            var shown = reader.Value == null
                ? reader.TokenType.ToString()
                : global::System.Convert.ToString(reader.Value, global::System.Globalization.CultureInfo.InvariantCulture);
            return new global::Newtonsoft.Json.JsonSerializationException(
                "Error converting value " + shown + " to type '" + type.Name + "' (" + why + "). Path '" + reader.Path + "'.");
        }
    }

    /// <summary>
    /// Turns off an inherited converter: the variants of a tagged union are read and written as
    /// plain objects once the union's converter has picked the variant.
    /// </summary>
    internal sealed class BurilNoConverter : global::Newtonsoft.Json.JsonConverter
    {
        public override bool CanRead
        {
            get { return false; }
        }

        public override bool CanWrite
        {
            get { return false; }
        }

        public override bool CanConvert(global::System.Type objectType)
        {
            return false;
        }

        public override object ReadJson(global::Newtonsoft.Json.JsonReader reader, global::System.Type objectType, object existingValue, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException();
        }

        public override void WriteJson(global::Newtonsoft.Json.JsonWriter writer, object value, global::Newtonsoft.Json.JsonSerializer serializer)
        {
            throw new global::System.NotSupportedException();
        }
    }
}
