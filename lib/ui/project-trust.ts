/**
 * The question put before a project's `.mcp.json` runs anything: it names every server, the
 * command it would start (or the URL it would reach), the environment it sets, and the workspace
 * files it runs from; the answer is remembered for this exact file and those files' content
 * (lib/store/project-mcp.ts). Asked once per file content, in the REPL only, before the
 * session opens; `n` (or anything but y) leaves the servers off for this start and asks again next
 * time. A file that cannot be read is said so and nothing runs.
 *
 * The same question, the same way, before a repository's `.shiro/notes.json` reaches the prompt
 * (lib/store/repo-notes-trust.ts): it shows how many notes the file holds and the first few;
 * before a project's `.claude/settings.json` hooks and permissions apply (askSettingsTrust); and
 * before a project's custom subagent (`.claude/agents/*.md`, `.shiro/agents/*.md`,
 * lib/store/agent-definitions.ts) becomes a `task` kind: its name, description, tools and model.
 */
import { createInterface } from "node:readline/promises";
import { describeTarget } from "../extensions/mcp/servers.ts";
import { findProjectRoot } from "../config/project.ts";
import { readProjectMcp, trustProjectMcp } from "../store/project-mcp.ts";
import { readRepoNotesFile, trustRepoNotes } from "../store/repo-notes-trust.ts";
import { readProjectSettings, trustProjectSettings } from "../store/project-settings.ts";
import { openRepoMemory } from "../store/memory-scopes.ts";
import { readAgentDefinitions, trustAgentFile } from "../store/agent-definitions.ts";
import type { Style } from "./style.ts";
import { showControls } from "./terminal-text.ts";

/** Puts the question when this project has an untrusted `.mcp.json` (not with --no-mcp: `mcpOff`). */
export async function askProjectTrust(cwd: string, mcpOff: boolean, write: (text: string) => void, style: Style): Promise<void> {
  if (mcpOff) return;
  let project: ReturnType<typeof readProjectMcp>;
  try {
    project = readProjectMcp(findProjectRoot(cwd));
  } catch (error) {
    write(style.yellow(`${error instanceof Error ? error.message : String(error)}\n`));
    return;
  }
  if (!project || project.trusted || Object.keys(project.servers).length === 0) return;
  const lines = Object.entries(project.servers).map(([name, server]) => {
    const env = "env" in server && server.env ? Object.entries(server.env) : [];
    return [`  ${name}: ${describeTarget(server)}`, ...env.map(([key, value]) => `    env ${key}=${JSON.stringify(value)}`)].join("\n");
  });
  const files = project.files.length > 0 ? `  runs workspace files (trust covers their content): ${project.files.join(", ")}\n` : "";
  write(style.yellow(`${project.path} asks to start ${lines.length} MCP server${lines.length === 1 ? "" : "s"}:\n`) + `${lines.join("\n")}\n${files}`);
  if (await _yes("Trust this folder's .mcp.json and run them? y yes, remember it | n not now ")) {
    trustProjectMcp(project);
    write("trusted; the servers start with the session\n");
  } else write(style.dim("not trusted: its servers stay off (asked again next start)\n"));
}

/** Puts the question when this project has an untrusted `.shiro/notes.json` with notes (not with --no-memory: `memoryOff`). */
export async function askRepoNotesTrust(cwd: string, memoryOff: boolean, write: (text: string) => void, style: Style): Promise<void> {
  if (memoryOff) return;
  const root = findProjectRoot(cwd);
  const file = readRepoNotesFile(root);
  if (!file || file.trusted || file.count === 0) return;
  const shown = openRepoMemory(root)
    .list()
    .slice(0, 5)
    .map((entry) => `  - (${entry.kind}) ${entry.text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, " ").slice(0, 160)}`);
  const more = file.count > shown.length ? [`  … and ${file.count - shown.length} more`] : [];
  write(
    style.yellow(`${file.path} holds ${file.count} note${file.count === 1 ? "" : "s"} written by whoever committed it:\n`) +
      `${[...shown, ...more].join("\n")}\n`,
  );
  if (await _yes("Trust this repository's notes and show them to the model? y yes, remember it | n not now ")) {
    trustRepoNotes(root, file);
    write("trusted; the notes join the prompt (marked as coming from the repository)\n");
  } else write(style.dim("not trusted: the notes stay out of the prompt and recall (asked again next start)\n"));
}

/** Puts the question once per untrusted project subagent file (not with --no-subagent: `off`). */
export async function askAgentsTrust(cwd: string, off: boolean, write: (text: string) => void, style: Style): Promise<void> {
  if (off) return;
  for (const file of readAgentDefinitions(findProjectRoot(cwd)).untrusted) {
    const { definition } = file;
    const tools = definition.tools ? showControls(definition.tools.join(", ")) : "the default set";
    write(
      style.yellow(`${definition.path} defines the subagent "${showControls(definition.name)}", written by whoever committed it:\n`) +
        `  ${definition.description.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, " ").slice(0, 200)}\n  tools: ${tools}; model: ${definition.model ? showControls(definition.model) : "the session's"}\n`,
    );
    if (await _yes("Trust this subagent and offer it to the model? y yes, remember it | n not now ")) {
      trustAgentFile(file);
      write("trusted; the task tool offers it\n");
    } else write(style.dim("not trusted: it is not offered (asked again next start)\n"));
  }
}

async function _yes(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdout.isTTY) });
  let answer = "";
  try {
    answer = await rl.question(question);
  } finally {
    rl.close();
  }
  return ["y", "yes"].includes(answer.trim().toLowerCase());
}

/**
 * The same question for the project's Claude Code settings (lib/store/project-settings.ts): it
 * lists every hook command they would run and every permission rule they would add, and the
 * answer is remembered for their exact content. Not asked when they hold neither.
 */
export async function askSettingsTrust(cwd: string, write: (text: string) => void, style: Style): Promise<void> {
  let settings: ReturnType<typeof readProjectSettings>;
  try {
    settings = readProjectSettings(findProjectRoot(cwd));
  } catch (error) {
    write(style.yellow(`${error instanceof Error ? error.message : String(error)}\n`));
    return;
  }
  if (!settings || settings.trusted || (settings.hooks.length === 0 && settings.permissions.length === 0)) return;
  const lines = [
    ...settings.hooks.map((hook) => `  hook ${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ""}: ${hook.command}`),
    ...settings.permissions.map((rule) => `  permission ${rule.decision}: ${rule.rule}`),
  ];
  write(
    style.yellow(`${settings.paths.join(" and ")} ask${settings.paths.length === 1 ? "s" : ""} to run hooks and set permissions:\n`) + `${lines.join("\n")}\n`,
  );
  if (await _yes("Trust this folder's Claude Code settings? y yes, remember it | n not now ")) {
    trustProjectSettings(settings);
    write("trusted; its hooks and permissions apply from this session on\n");
  } else write(style.dim("not trusted: its hooks and permissions stay off (asked again next start)\n"));
}
