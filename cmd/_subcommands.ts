/**
 * Subcommands as one table: each row's lazy loader (a literal `import()`: a subcommand's module,
 * and what it imports, is loaded only when that subcommand runs), what follows its name in
 * `--help` and its one-line summary. `--help` reads the rows and loads none of the modules;
 * test/unit/subcommand-args.test.ts checks that each row lists every subcommand its module defines.
 */
import type { CommandDef } from "citty";

type Loader = () => Promise<CommandDef<any>>;

export interface SubcommandRow {
  load: Loader;
  /** What `--help` shows after the name: the subcommands in `[a|b <x>]`, then flags. */
  args: string;
  summary: string;
}

export const SUBCOMMANDS: Record<string, SubcommandRow> = {
  config: { load: () => import("./config.ts").then((m) => m.default), args: "[path|show|set <key> <json>]", summary: "show or change config.json" },
  runs: {
    load: () => import("./runs.ts").then((m) => m.default),
    args: "[list|show|events|search|tail|cancel|resume]",
    summary: "the run log: past and live runs, search them, cancel one, resume a blocked one",
  },
  approvals: { load: () => import("./approvals.ts").then((m) => m.default), args: "[--json]", summary: "list pending approvals of blocked runs" },
  approve: { load: () => import("./approvals.ts").then((m) => m.approveCommand), args: "<id>", summary: "approve a pending approval (id or unique prefix)" },
  deny: { load: () => import("./approvals.ts").then((m) => m.denyCommand), args: "<id>", summary: "deny a pending approval (id or unique prefix)" },
  memory: {
    load: () => import("./memory.ts").then((m) => m.default),
    args: "[list|show <id>|add <kind> <text>|forget <text>|verify|compact|gc]",
    summary: "this project's notes; gc merges the search indexes' segments",
  },
  sessions: {
    load: () => import("./sessions.ts").then((m) => m.default),
    args: "[show|compact|uncompact <id>]",
    summary: "list saved sessions, show one, compact or uncompact one",
  },
  search: {
    load: () => import("./search.ts").then((m) => m.default),
    args: "<query> [--sessions|--runs|--memory]",
    summary: "find anything shiro remembers: prompts, answers, tool results, notes, episodes",
  },
  export: {
    load: () => import("./export.ts").then((m) => m.default),
    args: "<session-or-run-id> [--format md|json|html]",
    summary: "a session or run as Markdown, JSON or one self-contained HTML file, secrets redacted",
  },
  tools: { load: () => import("./tools.ts").then((m) => m.default), args: "[--json]", summary: "the built-in tools: set, offered or withheld, schema bytes" },
  mcp: {
    load: () => import("./mcp.ts").then((m) => m.default),
    args: "[list|get <name>|add <name>|add-json <name> <json>|remove <name>]",
    summary: "MCP servers: connect and list them, show, add or remove one",
  },
  hooks: {
    load: () => import("./hooks.ts").then((m) => m.default),
    args: "[--json]",
    summary: "the hooks of this folder (config.json, .claude/settings.json): event, matcher, command, source",
  },
  registry: {
    load: () => import("./registry.ts").then((m) => m.default),
    args: "[list|search|add|installed|remove]",
    summary: "skills and plugins from the registry: browse, install, remove",
  },
  sandbox: {
    load: () => import("./sandbox.ts").then((m) => m.default),
    args: "[--json]",
    summary: "the shell sandbox of this folder: mode, runner, network, and a live check",
  },
  update: {
    load: () => import("./update.ts").then((m) => m.default),
    args: "[--check]",
    summary: "replace this binary with the latest release, or only say whether one exists",
  },
  acp: {
    load: () => import("./acp.ts").then((m) => m.default),
    args: "",
    summary: "serve the Agent Client Protocol on stdin/stdout, for editors (docs/editors.md)",
  },
  rewind: {
    load: () => import("./rewind.ts").then((m) => m.default),
    args: "<id>? [--yes] [--force] [--conversation] [--json]",
    summary: "list checkpoints of this folder, or take its files (and the session) back to before one",
  },
};
