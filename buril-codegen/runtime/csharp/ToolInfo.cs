// BurilToolInfo: what the bindings know about one tool, the entries of the generated
// BurilCatalog (Buril.Tools.cs).
// A piece of Buril.Runtime.cs, which the code generator joins from the files of this folder.

namespace Buril.Generated
{
    /// <summary>What the bindings know about one tool (see <see cref="BurilCatalog"/>).</summary>
    public sealed class BurilToolInfo
    {
        /// <summary>Describes a tool.</summary>
        /// <param name="name">The wire name.</param>
        /// <param name="title">The display title, or null.</param>
        /// <param name="description">The description.</param>
        /// <param name="family">The family.</param>
        /// <param name="aliases">Deprecated former names.</param>
        /// <param name="toolType">The generated abstract tool class.</param>
        /// <param name="inputType">The input class.</param>
        /// <param name="outputType">The output class.</param>
        /// <param name="inputSchemaJson">The input's JSON Schema as JSON text.</param>
        /// <param name="outputSchemaJson">The output's JSON Schema as JSON text.</param>
        /// <param name="dangerous">Whether the tool stays off until a host enables it.</param>
        /// <param name="offThread">Whether the tool may run off the main thread.</param>
        public BurilToolInfo(
            string name,
            string title,
            string description,
            string family,
            string[] aliases,
            global::System.Type toolType,
            global::System.Type inputType,
            global::System.Type outputType,
            string inputSchemaJson,
            string outputSchemaJson,
            bool dangerous,
            bool offThread)
        {
            Name = name;
            Title = title;
            Description = description;
            Family = family;
            Aliases = new global::System.Collections.ObjectModel.ReadOnlyCollection<string>(aliases ?? new string[0]);
            ToolType = toolType;
            InputType = inputType;
            OutputType = outputType;
            InputSchemaJson = inputSchemaJson;
            OutputSchemaJson = outputSchemaJson;
            Dangerous = dangerous;
            OffThread = offThread;
        }

        /// <summary>The wire name.</summary>
        public string Name { get; private set; }

        /// <summary>The display title, or null.</summary>
        public string Title { get; private set; }

        /// <summary>The description.</summary>
        public string Description { get; private set; }

        /// <summary>The family.</summary>
        public string Family { get; private set; }

        /// <summary>Deprecated former names, still accepted.</summary>
        public global::System.Collections.Generic.IList<string> Aliases { get; private set; }

        /// <summary>The generated abstract tool class.</summary>
        public global::System.Type ToolType { get; private set; }

        /// <summary>The input class.</summary>
        public global::System.Type InputType { get; private set; }

        /// <summary>The output class.</summary>
        public global::System.Type OutputType { get; private set; }

        /// <summary>The input's JSON Schema as JSON text.</summary>
        public string InputSchemaJson { get; private set; }

        /// <summary>The output's JSON Schema as JSON text.</summary>
        public string OutputSchemaJson { get; private set; }

        /// <summary>Whether the tool stays off until a host enables it.</summary>
        public bool Dangerous { get; private set; }

        /// <summary>Whether the tool may run off the main thread.</summary>
        public bool OffThread { get; private set; }
    }
}
