// Uses the generated classes as a program would: builds values, reads JSON into the right
// classes and union variants, and implements tools. Prints the results as one JSON object.

#if BURIL_REGISTRY
using System;
using System.Collections.Generic;
using Buril.Generated;
using Newtonsoft.Json.Linq;

namespace Buril.Harness
{
    public sealed class EscapeTool : ZooEscapeTool
    {
        protected override ZooEscapeOutput Execute(ZooEscapeInput input)
        {
            return new ZooEscapeOutput { Result = input.Text };
        }
    }

    public sealed class ShapeTool : ZooShapeTool
    {
        protected override ZooShapeOutput Execute(ZooShapeInput input)
        {
            var circle = input.Shape as ShapeCircle;
            if (circle != null && circle.Radius < 0)
            {
                throw new ToolValidationException(
                    "the radius is negative",
                    new[] { new BurilProblem("/shape/radius", "must be at least 0") });
            }
            return new ZooShapeOutput { Shape = input.Shape, More = input.More ?? new List<Shape>() };
        }
    }

    public sealed class NullTool : ZooUnitTool
    {
        protected override ZooUnitOutput Execute(ZooUnitInput input)
        {
            return null;
        }
    }

    public static class Typed
    {
        public static int Run()
        {
            var o = new JObject();

            // Built in C#: unset optional properties are left out, null set explicitly is written.
            o["shape"] = BurilJson.Serialize(new ZooShapeInput { Shape = new ShapeRect { Width = 2, Height = 3 } });
            o["rectNullLabel"] = BurilJson.Serialize(new ShapeRect { Width = 1, Height = 1, Label = null });
            o["numbers"] = BurilJson.Serialize(new ZooNumbersInput
            {
                Big = ulong.MaxValue,
                Signed = long.MinValue,
                Small = -128,
                Medium = uint.MaxValue,
                Ratio = 0.5,
            });
            o["keywords"] = BurilJson.Serialize(new ZooKeywordsInput
            {
                Class = "c",
                Default = true,
                Function = -7,
                Type = Urgency.RightNow,
                WithDash = 3,
            });
            o["tree"] = BurilJson.Serialize(new ZooTreeInput
            {
                Root = new Node
                {
                    Name = "root",
                    Children = new List<Node> { new Node { Name = "leaf", Children = new List<Node>(), Detail = null } },
                },
            });
            o["free"] = BurilJson.Serialize(new ZooFreeInput { Value = null });
            o["urgency"] = BurilJson.Serialize(new ZooRenamedInput { Urgency = Urgency.Default });
            o["missingRequired"] = Error(() => BurilJson.Serialize(new ZooEscapeInput()));

            // Read: tagged unions give the variant classes.
            var shapes = BurilJson.Deserialize<ZooShapeOutput>(
                "{\"shape\":{\"kind\":\"circle\",\"radius\":1.5},\"more\":[{\"kind\":\"point\"},{\"radius\":2,\"kind\":\"circle\"}]}");
            o["variants"] = new JArray(
                shapes.Shape.GetType().Name,
                shapes.More[0].GetType().Name,
                shapes.More[1].GetType().Name,
                ((ShapeCircle)shapes.More[1]).Radius,
                shapes.Shape.Kind);
            o["unknownTag"] = Error(() => BurilJson.Deserialize<ZooShapeInput>("{\"shape\":{\"kind\":\"hexagon\"}}"));
            o["noTag"] = Error(() => BurilJson.Deserialize<ZooShapeInput>("{\"shape\":{\"radius\":1}}"));
            o["missingField"] = Error(() => BurilJson.Deserialize<ZooShapeInput>("{\"shape\":{\"kind\":\"circle\"}}"));
            o["nullShape"] = Error(() => BurilJson.Deserialize<ZooShapeInput>("{\"shape\":null}"));

            // Untagged unions: the JSON as received, read per alternative.
            var pair = BurilJson.Deserialize<ZooLooseInput>("{\"value\":{\"left\":1,\"right\":-2}}").Value;
            double number;
            string text;
            LooseVariant2 pairValue;
            o["pair"] = new JArray(
                pair.TryGetNumber(out number),
                pair.TryGetString(out text),
                pair.TryGetLooseVariant2(out pairValue) && pairValue.Left == 1 && pairValue.Right == -2);
            var fromNumber = Loose.FromNumber(4.25);
            o["fromNumber"] = new JArray(
                BurilJson.Serialize(new ZooLooseInput { Value = fromNumber }),
                fromNumber.TryGetNumber(out number) && number == 4.25,
                fromNumber.TryGetString(out text),
                fromNumber.TryGetLooseVariant2(out pairValue));

            // Strings that look like dates stay strings, through every path.
            const string date = "{\"text\":\"2024-01-02T03:04:05Z\"}";
            o["date"] = new JArray(
                BurilJson.Serialize(BurilJson.Deserialize<ZooEscapeInput>(date)),
                BurilJson.Serialize(BurilJson.FromToken<ZooEscapeInput>(BurilJson.Parse(date))),
                BurilJson.Serialize(BurilJson.Deserialize<ZooFreeInput>("{\"value\":\"2024-01-02T03:04:05Z\"}")),
                BurilJson.Serialize(BurilJson.Deserialize<ZooLooseInput>("{\"value\":\"2024-01-02T03:04:05Z\"}")));

            // 64-bit integers.
            var numbers = BurilJson.Deserialize<ZooNumbersInput>(
                "{\"big\":18446744073709551615,\"signed\":-9223372036854775808,\"small\":1,\"medium\":4294967295,\"ratio\":0.5}");
            o["integers"] = numbers.Big == ulong.MaxValue && numbers.Signed == long.MinValue && numbers.Maybe == null;

            // The tool side: ITool over a typed Execute.
            ITool escape = new EscapeTool();
            o["escapeName"] = escape.Name;
            o["escapeDescription"] = escape.Description;
            o["escapeInputSchema"] = escape.InputSchemaJson;
            o["escapeOutputSchema"] = ((ZooEscapeTool)escape).OutputSchemaJson;
            o["escapeRun"] = (JObject)escape.Run((JObject)BurilJson.Parse("{\"text\":\"*/ \\\" ${x} </summary>\"}"));
            o["escapeRunMissing"] = (JObject)escape.Run(new JObject());
            o["escapeRunNull"] = (JObject)escape.Run(null);
            ITool shapeTool = new ShapeTool();
            o["shapeRun"] = (JObject)shapeTool.Run((JObject)BurilJson.Parse("{\"shape\":{\"kind\":\"circle\",\"radius\":1.0}}"));
            o["shapeRefused"] = (JObject)shapeTool.Run((JObject)BurilJson.Parse("{\"shape\":{\"kind\":\"circle\",\"radius\":-1.0}}"));
            o["nullOutput"] = Error(() => new NullTool().Run(new JObject()));

            Output.Print(o);
            return 0;
        }

        private static string Error(Action action)
        {
            try
            {
                action();
                return null;
            }
            catch (Exception error)
            {
                return error.GetType().Name + ": " + error.Message;
            }
        }
    }
}
#endif
