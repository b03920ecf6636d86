/**
 * What extends the session beyond the built-in tools, opened in this order: plugins, skills, MCP
 * servers (connecting in the background), instruction files, then the settings (user hooks,
 * whose SessionStart runs here, and trusted Claude Code permissions). A broken extension is a
 * notice, never a throw.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { PluginHost } from "../../extension-api/plugin-api.ts";
import type { StartupNotice } from "../../notices.ts";
import type { SandboxPart } from "./sandbox.ts";
import type { Skill } from "../../skills/skills.ts";
import { loadInstructions, type InstructionFile } from "../instructions.ts";
import { connectMcp, openPlugins, openSkills, type EditorConnection, type McpConnection } from "../session-extensions.ts";
import { openSessionSettings, type SessionSettings, type SessionStartSource } from "../session-settings.ts";

export interface ExtensionsPart {
  plugins: PluginHost;
  skills: Skill[];
  mcp: McpConnection;
  instructions: InstructionFile[];
  settings: SessionSettings;
}

export interface ExtensionsPartOptions {
  cwd: string;
  /** `cwd`'s project (lib/config/project.ts), found once by the caller. */
  projectRoot: string;
  mode: "headless" | "interactive";
  flags: AgentFlags;
  config: ResolvedConfig;
  sandbox: SandboxPart;
  sessionId: string;
  resumed: boolean;
  sessionSource?: SessionStartSource;
  editor?: EditorConnection;
  writeStderr: (text: string) => void;
}

export async function openExtensionsPart(options: ExtensionsPartOptions, notices: StartupNotice[]): Promise<ExtensionsPart> {
  const { cwd, projectRoot, config, flags } = options;
  const { sandbox, mcp: sandboxMcp } = options.sandbox;
  const headless = options.mode === "headless";
  const plugins = await openPlugins(cwd, config, sandbox, flags.noPlugins === true, notices, options.writeStderr);
  const skills = await openSkills(cwd, flags.noSkills === true, notices);
  const mcp = await connectMcp(
    { cwd, projectRoot, config, sandboxMcp, sandbox, disabled: flags.noMcp === true, headless, extra: options.editor?.mcpServers },
    notices,
  );
  const instructions = flags.noInstructions ? [] : loadInstructions(cwd);
  const settings = await openSessionSettings(
    {
      config,
      cwd,
      projectRoot,
      mode: options.mode,
      flags,
      sessionId: options.sessionId,
      sandbox,
      outside: mcp.events,
      sessionSource: options.sessionSource,
      resumed: options.resumed,
    },
    notices,
  );
  return { plugins, skills, mcp, instructions, settings };
}
