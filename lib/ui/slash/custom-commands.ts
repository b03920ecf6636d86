/**
 * Custom slash commands: one markdown file each, its name the command (`review.md` is `/review`,
 * `frontend/component.md` in a subfolder is `/frontend:component`, as Claude Code namespaces them),
 * its body the prompt sent when the command is typed. Read from, later overriding earlier by name:
 *   user     ~/.claude/commands/*.md, then <stateDir>/commands/*.md
 *   project  <cwd>/.claude/commands/*.md, then <cwd>/.shiro/commands/*.md
 * An optional frontmatter (`---` lines) gives `description` (shown in /help), `argument-hint`
 * (shown after the name) and `allowed-tools` (Claude Code permission rules, `Bash(git add:*), Read`:
 * separated by commas or spaces, or a YAML list on one line or several; they narrow the command's
 * turn to the tools they name and may pre-approve what they cover, lib/agent/turn-tools.ts). In
 * the body `$ARGUMENTS` is everything typed after the command and `$1`…`$9` its words; a body with
 * neither gets the arguments appended after a blank line. Each `` !`cmd` `` is run before the
 * prompt is sent (through the caller's runner: the session's gate and sandbox, as `!cmd`) and
 * replaced by its output.
 * Names are letters, digits, `.`, `_`, `-`; a file named like a built-in command is skipped (the
 * built-in wins) and so is one that cannot be read, each with a one-line reason.
 * The body is read again on every use, so an edit is seen without a restart.
 *
 * Pre-approval (`commandPreApproval`): a user-level command's allowed-tools pre-approve; a project
 * command's only once the user trusted that file's exact content (lib/store/trusted-files.ts,
 * keyed by its path from the project root), since whoever committed it wrote them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { splitRuleList } from "../../approval/run-rules.ts";
import { contentHash, isTrustedContent, trustContent } from "../../store/trusted-files.ts";

export interface CustomCommand {
  /** With the slash: `/review`. */
  name: string;
  description: string;
  argumentHint?: string;
  origin: "user" | "project";
  path: string;
  /** Frontmatter `allowed-tools` as rule texts (`Bash(git add:*)`, `Read`); undefined: every tool, as usual. */
  allowedTools?: string[];
}

/** Runs one `` !`cmd` `` of a command body; resolves to the text that replaces it. */
export type CommandLineRunner = (command: string) => Promise<string>;

export interface LoadCustomCommandsOptions {
  cwd: string;
  stateDir: string;
  /** Default os.homedir(). */
  home?: string;
  /** Built-in names (with the slash) a custom command may not take. */
  reserved: readonly string[];
}

export interface LoadCustomCommandsResult {
  commands: CustomCommand[];
  skipped: { path: string; reason: string }[];
}

const _NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(:[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
/** Subfolder levels read below a commands folder. */
const _MAX_DEPTH = 3;
const _FENCE = /^---[ \t]*$/;

export function loadCustomCommands(options: LoadCustomCommandsOptions): LoadCustomCommandsResult {
  const home = options.home ?? homedir();
  const sources: [CustomCommand["origin"], string][] = [
    ["user", join(home, ".claude", "commands")],
    ["user", join(options.stateDir, "commands")],
    ["project", join(options.cwd, ".claude", "commands")],
    ["project", join(options.cwd, ".shiro", "commands")],
  ];
  const reserved = new Set(options.reserved.map((name) => name.toLowerCase()));
  const byName = new Map<string, CustomCommand>();
  const skipped: LoadCustomCommandsResult["skipped"] = [];
  for (const [origin, dir] of sources) {
    for (const file of _listMarkdown(dir, 0)) {
      const path = join(dir, file);
      const name = `/${file.slice(0, -".md".length).split("/").join(":")}`;
      if (!_NAME.test(name.slice(1))) {
        skipped.push({ path, reason: `${name} is not a command name (letters, digits, ".", "_", "-"; ":" between folders)` });
        continue;
      }
      if (reserved.has(name.toLowerCase())) {
        skipped.push({ path, reason: `${name} is a built-in command` });
        continue;
      }
      try {
        const { fields, body } = _splitFrontmatter(readFileSync(path, "utf8"));
        const description = fields.get("description") || _firstLine(body) || "custom command";
        const hint = fields.get("argument-hint");
        const allowed = _ruleTexts(fields.get("allowed-tools"));
        byName.set(name.toLowerCase(), {
          name,
          description,
          ...(hint ? { argumentHint: hint } : {}),
          ...(allowed ? { allowedTools: allowed } : {}),
          origin,
          path,
        });
      } catch (error) {
        skipped.push({ path, reason: `cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})` });
      }
    }
  }
  const commands = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { commands, skipped };
}

/**
 * The prompt `command` sends for `args`: its body (read now) with `$ARGUMENTS` and `$1`…`$9` filled
 * in, then each `` !`cmd` `` replaced by what `run` returns for it (in order, one at a time). Without
 * `run` the body is returned with the commands left as written.
 */
export async function expandCustomCommand(command: CustomCommand, args: string, run?: CommandLineRunner): Promise<string> {
  const { body } = _splitFrontmatter(readFileSync(command.path, "utf8"));
  const words = args.trim() === "" ? [] : args.trim().split(/\s+/);
  const placeholders = /\$ARGUMENTS|\$[1-9]/;
  const filled = !placeholders.test(body)
    ? args.trim()
      ? `${body}\n\n${args.trim()}`
      : body
    : body.replace(/\$ARGUMENTS|\$([1-9])/g, (_match, digit: string | undefined) => (digit ? (words[Number(digit) - 1] ?? "") : args.trim()));
  if (!run) return filled;
  let out = "";
  let at = 0;
  for (const match of filled.matchAll(/!`([^`\n]+)`/g)) {
    out += filled.slice(at, match.index) + (await run(match[1]!));
    at = match.index! + match[0].length;
  }
  return out + filled.slice(at);
}

/** `allowed-tools` as rule texts: `Bash(git add:*), Read`, `Read Grep` and `["Bash(git add:*)", Read]` each give one per rule. */
function _ruleTexts(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const inner = value.trim().replace(/^\[(.*)\]$/s, "$1");
  const rules = splitRuleList(inner)
    .map((rule) => rule.replace(/^(["'])(.*)\1$/, "$2").trim())
    .filter(Boolean);
  return rules.length > 0 ? [...new Set(rules)] : undefined;
}

/** Whether `command`'s allowed-tools pre-approve its turn: `yes` (user-level, or a trusted project file), else `ask`. */
export function commandPreApproval(command: CustomCommand, root: string): "yes" | "ask" {
  if (command.origin === "user") return "yes";
  try {
    return isTrustedContent(root, _trustKey(command, root), contentHash(readFileSync(command.path))) ? "yes" : "ask";
  } catch {
    return "ask";
  }
}

/** Remembers that the user trusts this content of a project command's file. */
export function trustCommandFile(command: CustomCommand, root: string): void {
  trustContent(root, _trustKey(command, root), contentHash(readFileSync(command.path)));
}

function _trustKey(command: CustomCommand, root: string): string {
  return relative(root, command.path).split("\\").join("/");
}

/** `*.md` files below `dir`, subfolders (up to _MAX_DEPTH) as `sub/name.md`, sorted. */
function _listMarkdown(dir: string, depth: number): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory() && depth < _MAX_DEPTH) files.push(..._listMarkdown(join(dir, entry.name), depth + 1).map((file) => `${entry.name}/${file}`));
    else if (!entry.isDirectory() && entry.name.toLowerCase().endsWith(".md")) files.push(entry.name);
  }
  return files;
}

function _firstLine(body: string): string {
  return (body.split("\n").find((line) => line.trim() !== "") ?? "")
    .replace(/^#+\s*/, "")
    .trim()
    .slice(0, 80);
}

/** Frontmatter fields (lower-cased keys, one pair of quotes removed) and the trimmed body. */
function _splitFrontmatter(text: string): { fields: Map<string, string>; body: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const fields = new Map<string, string>();
  if (!_FENCE.test(lines[0] ?? "")) return { fields, body: text.trim() };
  const end = lines.findIndex((line, index) => index > 0 && _FENCE.test(line));
  if (end < 0) return { fields, body: text.trim() };
  let listKey: string | undefined;
  for (const line of lines.slice(1, end)) {
    const item = /^\s+-\s+(.*)$/.exec(line);
    // A YAML list on lines of their own (`allowed-tools:` then `  - Read`) is one comma list.
    if (item && listKey !== undefined) {
      const value = item[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
      fields.set(listKey, fields.get(listKey) ? `${fields.get(listKey)}, ${value}` : value);
      continue;
    }
    listKey = undefined;
    const colon = line.indexOf(":");
    if (colon <= 0 || /^\s/.test(line)) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (fields.has(key)) continue;
    const value = line
      .slice(colon + 1)
      .trim()
      .replace(/^(["'])(.*)\1$/, "$2");
    fields.set(key, value);
    if (value === "") listKey = key;
  }
  return {
    fields,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}
