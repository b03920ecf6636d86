/**
 * Custom subagents people wrote, in Claude Code's format: one Markdown file per subagent in
 * `.claude/agents/` or `.shiro/agents/`, of the project (its root) and of the user (the home
 * folder). The file opens with a frontmatter block:
 *
 *   ---
 *   name: reviewer                 (lower-case letters, digits, `-`, `_`; default: the file name)
 *   description: Reviews diffs …   (required: the model reads it to choose the kind)
 *   tools: Read, Grep, Glob        (optional: a comma list or a YAML list; absent = the default set)
 *   model: claude-haiku-4-5        (optional: a model id; `inherit` or absent = the session's)
 *   ---
 *   The body is the subagent's system prompt.
 *
 * Read only, never written. A project's file is used only while its exact content is trusted
 * (trusted-files.ts, the trust `.mcp.json` and `.shiro/notes.json` need); the user's own files are
 * trusted. Later folders win on a name clash: user `.claude`, user `.shiro`, project `.claude`,
 * project `.shiro`. A file that cannot be used is reported, not thrown.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { contentHash, isTrustedContent, trustContent } from "./trusted-files.ts";
import { homeDirectory } from "../platform/runtime.ts";

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names as written (Claude Code's or shiro's); undefined: the default set. */
  tools?: string[];
  model?: string;
  prompt: string;
  /** Absolute path of the file. */
  path: string;
  scope: "project" | "user";
}

/** A project file that is not trusted (yet): what the trust question shows and records. */
export interface UntrustedAgentFile {
  root: string;
  /** Relative to the project root, `/`-separated. */
  file: string;
  sha256: string;
  definition: AgentDefinition;
}

export interface AgentDefinitionsRead {
  agents: AgentDefinition[];
  untrusted: UntrustedAgentFile[];
  /** One line per file left out, naming it and why. */
  skipped: string[];
}

const _FOLDERS = [".claude/agents", ".shiro/agents"] as const;
const _NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** Every definition of the user and of the project at `projectRoot` (`home` defaults to the home folder). */
export function readAgentDefinitions(projectRoot: string, home: string = homeDirectory()): AgentDefinitionsRead {
  const byName = new Map<string, AgentDefinition>();
  const untrusted: UntrustedAgentFile[] = [];
  const skipped: string[] = [];
  const sources = [
    ..._FOLDERS.map((folder) => ({ base: home, folder, scope: "user" as const })),
    ...(projectRoot === home ? [] : _FOLDERS.map((folder) => ({ base: projectRoot, folder, scope: "project" as const }))),
  ];
  for (const { base, folder, scope } of sources) {
    for (const name of _listMarkdown(join(base, folder))) {
      const path = join(base, folder, name);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        skipped.push(`${path}: cannot be read`);
        continue;
      }
      const parsed = parseAgentDefinition(text, name.replace(/\.md$/, ""));
      if (typeof parsed === "string") {
        skipped.push(`${path}: ${parsed}`);
        continue;
      }
      const definition: AgentDefinition = { ...parsed, path, scope };
      const file = `${folder}/${name}`;
      const sha256 = contentHash(text);
      if (scope === "project" && !isTrustedContent(base, file, sha256)) {
        untrusted.push({ root: base, file, sha256, definition });
        continue;
      }
      byName.set(definition.name, definition);
    }
  }
  return { agents: [...byName.values()], untrusted, skipped };
}

/** Records that the user trusts this content of a project's definition file. */
export function trustAgentFile(file: UntrustedAgentFile): void {
  trustContent(file.root, file.file, file.sha256);
}

/** The fields of one file, or why it cannot be used. `fallbackName`: the file name without `.md`. */
export function parseAgentDefinition(text: string, fallbackName: string): Omit<AgentDefinition, "path" | "scope"> | string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return "no frontmatter (a --- block with name and description)";
  const fields = _frontmatter(match[1]!);
  const name = typeof fields.name === "string" && fields.name ? fields.name : fallbackName;
  if (!_NAME.test(name)) return `the name "${name}" is not lower-case letters, digits, - and _`;
  if (["explore", "review", "worker"].includes(name)) return `the name "${name}" is a built-in subagent kind`;
  const description = typeof fields.description === "string" ? fields.description.trim() : "";
  if (!description) return "no description";
  const rawTools = fields.tools;
  const tools = rawTools === undefined ? undefined : (Array.isArray(rawTools) ? rawTools : rawTools.split(",")).map((tool) => tool.trim()).filter(Boolean);
  const model = typeof fields.model === "string" && fields.model && fields.model !== "inherit" ? fields.model : undefined;
  const prompt = match[2]!.trim();
  if (!prompt) return "no system prompt (the body after the frontmatter is empty)";
  return { name, description, ...(tools ? { tools } : {}), ...(model ? { model } : {}), prompt };
}

/** The flat `key: value` and `key:\n  - item` subset of YAML a definition uses. */
function _frontmatter(block: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    const item = /^\s+-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (out[listKey] as string[]).push(_unquote(item[1]!));
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (!pair) continue;
    listKey = undefined;
    const value = pair[2]!.trim();
    if (value === "") {
      out[pair[1]!] = [];
      listKey = pair[1]!;
    } else if (value.startsWith("[") && value.endsWith("]")) out[pair[1]!] = value.slice(1, -1).split(",").map(_unquote);
    else out[pair[1]!] = _unquote(value);
  }
  return out;
}

function _unquote(value: string): string {
  const trimmed = value.trim();
  return /^(["']).*\1$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

function _listMarkdown(dir: string): string[] {
  try {
    // Most of these folders do not exist: learnt from a stat, without raising an error to list nothing.
    if (!statSync(dir, { throwIfNoEntry: false })) return [];
    return readdirSync(dir)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch {
    return [];
  }
}
