// BurilServerSettings: the tool server's config file (which tools are on, dangerous and third
// parties' included, and the timeouts), read and changed through the tool program's
// `settings` command; a running server reads a change at once.
// A piece of Buril.Unity.cs, in a Unity package only (it uses BurilConnection).

namespace Buril.Generated
{
    /// <summary>
    /// The server's config file (<see cref="BurilSettings.ServerConfig"/>, in the server's
    /// working folder), read and changed with the tool program's <c>settings</c> command: the
    /// program named by <see cref="BurilSettings.Executable"/> is run for it, in any connection
    /// mode. A server that runs (this editor's or any other reading the same file) takes a change
    /// within a second, without a restart, and tells its MCP clients that the tool list changed.
    /// A change the server would refuse (a rule naming no tool, say) is not written: the
    /// returned task fails with the program's reason.
    /// </summary>
    /// <remarks>
    /// The settings come as the command's JSON: <c>allow_dangerous</c>, <c>enable</c> and
    /// <c>disable</c> (the rules as written), <c>timeout</c>, <c>timeouts</c>, <c>tools</c>
    /// (each linked tool: <c>name</c>, <c>family</c>, <c>dangerous</c>, <c>enabled</c>, and
    /// the <c>reason</c> it is off) and <c>externals</c> (each external MCP server:
    /// <c>name</c>, <c>prefix</c>, <c>enabled</c>).
    /// </remarks>
    public static class BurilServerSettings
    {
        /// <summary>How long the program may take before the attempt fails.</summary>
        public static global::System.TimeSpan Timeout = global::System.TimeSpan.FromSeconds(30);

        /// <summary>The settings as the config file has them.</summary>
        /// <param name="token">Stops waiting (the program is stopped).</param>
        /// <returns>The settings.</returns>
        /// <exception cref="BurilTransportException">The program could not be run, or refused.</exception>
        public static global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> ReadAsync(global::System.Threading.CancellationToken token = default(global::System.Threading.CancellationToken))
        {
            return ChangeAsync(token);
        }

        /// <summary>
        /// Changes the config file with the <c>settings</c> command's flags, in the order the
        /// command makes them (<c>--allow-dangerous=true|false</c>, <c>--reset RULE</c>,
        /// <c>--enable RULE</c>, <c>--disable RULE</c>, <c>--external-tools NAME=on|off</c>,
        /// <c>--timeout SECONDS|default</c>, <c>--tool-timeout NAME=SECONDS|default</c>), and
        /// answers the settings after the change.
        /// </summary>
        /// <param name="token">Stops waiting (the program is stopped).</param>
        /// <param name="flags">The flags, one argument each (<c>"--enable", "asset_delete"</c>).</param>
        /// <returns>The settings after the change.</returns>
        /// <exception cref="BurilTransportException">The program could not be run, or refused the change (nothing was written).</exception>
        public static global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> ChangeAsync(global::System.Threading.CancellationToken token, params string[] flags)
        {
            var settings = BurilConnection.Settings;
            var executable = settings.Executable;
            var folder = settings.Folder(BurilConnection.ProjectFolder);
            var arguments = new global::System.Collections.Generic.List<string> { "settings", "--json", "--config", settings.ServerConfig };
            arguments.AddRange(flags ?? new string[0]);
            return global::System.Threading.Tasks.Task.Run(() => Run(executable, folder, arguments, token), token);
        }

        /// <summary>Turns a tool on (<paramref name="enable"/>) or off by its name, dangerous or a third party's.</summary>
        /// <param name="tool">The tool's name.</param>
        /// <param name="enable">On or off.</param>
        /// <returns>The settings after the change.</returns>
        public static global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> SetToolAsync(string tool, bool enable)
        {
            return ChangeAsync(default(global::System.Threading.CancellationToken), enable ? "--enable" : "--disable", tool);
        }

        /// <summary>Turns every dangerous tool on, or only those a rule enables.</summary>
        /// <param name="allow">On or off.</param>
        /// <returns>The settings after the change.</returns>
        public static global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> AllowDangerousAsync(bool allow)
        {
            return ChangeAsync(default(global::System.Threading.CancellationToken), allow ? "--allow-dangerous=true" : "--allow-dangerous=false");
        }

        /// <summary>Turns the tools of the external MCP server <paramref name="server"/> (an <c>[[external]]</c> of the config file) on or off.</summary>
        /// <param name="server">The server's name.</param>
        /// <param name="enable">On or off.</param>
        /// <returns>The settings after the change.</returns>
        public static global::System.Threading.Tasks.Task<global::Newtonsoft.Json.Linq.JObject> SetExternalAsync(string server, bool enable)
        {
            return ChangeAsync(default(global::System.Threading.CancellationToken), "--external-tools", server + (enable ? "=on" : "=off"));
        }

        private static global::Newtonsoft.Json.Linq.JObject Run(string executable, string folder, global::System.Collections.Generic.List<string> arguments, global::System.Threading.CancellationToken token)
        {
            if (string.IsNullOrEmpty(executable) || !global::System.IO.Path.IsPathRooted(executable))
            {
                throw new BurilTransportException(BurilTransportFailure.Process, "Buril: the server's settings are changed by its program: set its absolute path under Project Settings > Buril (now \"" + executable + "\")", null, 0, 0, null);
            }
            var start = new global::System.Diagnostics.ProcessStartInfo(executable, string.Join(" ", arguments.ConvertAll(Quote).ToArray()))
            {
                UseShellExecute = false,
                CreateNoWindow = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                WorkingDirectory = folder,
            };
            global::System.Diagnostics.Process process;
            try
            {
                process = global::System.Diagnostics.Process.Start(start);
            }
            catch (global::System.Exception error)
            {
                throw new BurilTransportException(BurilTransportFailure.Process, "Buril: " + executable + " could not be started: " + error.Message, null, 0, 0, error);
            }
            using (process)
            {
                var errors = process.StandardError.ReadToEndAsync();
                var output = process.StandardOutput.ReadToEndAsync();
                var until = global::System.DateTime.UtcNow + Timeout;
                while (!process.WaitForExit(50))
                {
                    if (token.IsCancellationRequested || global::System.DateTime.UtcNow > until)
                    {
                        try
                        {
                            process.Kill();
                        }
                        catch (global::System.InvalidOperationException)
                        {
                        }
                        token.ThrowIfCancellationRequested();
                        throw new BurilTransportException(BurilTransportFailure.Timeout, "Buril: `" + executable + " settings` did not answer within " + Timeout.TotalSeconds + " s", null, 0, 0, null);
                    }
                }
                var said = errors.Result.Trim();
                if (process.ExitCode != 0)
                {
                    throw new BurilTransportException(BurilTransportFailure.Process, "Buril: the server's settings were not changed (`settings` exited with code " + process.ExitCode + ")", said, 0, 0, null);
                }
                try
                {
                    return global::Newtonsoft.Json.Linq.JObject.Parse(output.Result);
                }
                catch (global::Newtonsoft.Json.JsonException error)
                {
                    throw new BurilTransportException(BurilTransportFailure.Process, "Buril: `settings --json` did not print the settings (is " + executable + " a buril tool program with the server?): " + error.Message, null, 0, 0, error);
                }
            }
        }

        /// <summary>One argument as the command line splits it back (Windows' and Mono's rules): quoted when it must be.</summary>
        private static string Quote(string argument)
        {
            if (argument.Length > 0 && argument.IndexOfAny(new[] { ' ', '\t', '"', '\\' }) < 0)
            {
                return argument;
            }
            var quoted = new global::System.Text.StringBuilder("\"");
            var backslashes = 0;
            foreach (var c in argument)
            {
                if (c == '\\')
                {
                    backslashes++;
                    continue;
                }
                quoted.Append('\\', c == '"' ? backslashes * 2 + 1 : backslashes);
                backslashes = 0;
                quoted.Append(c);
            }
            quoted.Append('\\', backslashes * 2);
            return quoted.Append('"').ToString();
        }
    }
}
