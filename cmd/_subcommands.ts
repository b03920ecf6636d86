/**
 * Subcommands as a lazy map of literal `import()`s: a subcommand's module (and what it imports)
 * is loaded only when that subcommand runs. Summaries live here so `--help` loads none of them.
 */
import type { CommandDef } from "citty";

type Loader = () => Promise<CommandDef<any>>;

export const SUBCOMMANDS: Record<string, Loader> = {
  config: () => import("./config.ts").then((m) => m.default),
  runs: () => import("./runs.ts").then((m) => m.default),
  approvals: () => import("./approvals.ts").then((m) => m.default),
  approve: () => import("./approvals.ts").then((m) => m.approveCommand),
  deny: () => import("./approvals.ts").then((m) => m.denyCommand),
  memory: () => import("./memory.ts").then((m) => m.default),
  sessions: () => import("./sessions.ts").then((m) => m.default),
  search: () => import("./search.ts").then((m) => m.default),
  export: () => import("./export.ts").then((m) => m.default),
  tools: () => import("./tools.ts").then((m) => m.default),
  mcp: () => import("./mcp.ts").then((m) => m.default),
  hooks: () => import("./hooks.ts").then((m) => m.default),
  registry: () => import("./registry.ts").then((m) => m.default),
  sandbox: () => import("./sandbox.ts").then((m) => m.default),
  update: () => import("./update.ts").then((m) => m.default),
  rewind: () => import("./rewind.ts").then((m) => m.default),
};

export const SUBCOMMAND_SUMMARIES: Record<string, string> = {
  "config [path|show|set <key> <json>]": "show or change config.json",
  "runs [list|show|events|search|tail|cancel|resume]": "the run log: past and live runs, search them, cancel one, resume a blocked one",
  "approvals [--json]": "list pending approvals of blocked runs",
  "approve <id>": "approve a pending approval (id or unique prefix)",
  "deny <id>": "deny a pending approval (id or unique prefix)",
  "memory [list|show <id>|add <kind> <text>|forget <text>|compact]": "this project's notes",
  "sessions [show|compact|uncompact <id>]": "list saved sessions, show one, compact or uncompact one",
  "search <query> [--sessions|--runs|--memory]": "find anything shiro remembers: prompts, answers, tool results, notes, episodes",
  "export <session-or-run-id> [--format md|json|html]": "a session or run as Markdown, JSON or one self-contained HTML file, secrets redacted",
  "tools [--json]": "the built-in tools: set, offered or withheld, schema bytes",
  "mcp [list|add <name>|remove <name>]": "MCP servers: connect and list them, add or remove one",
  "hooks [--json]": "the hooks of this folder (config.json, .claude/settings.json): event, matcher, command, source",
  "registry [list|search|add|installed|remove]": "skills and plugins from the registry: browse, install, remove",
  "sandbox [--json]": "the shell sandbox of this folder: mode, runner, network, and a live check",
  "update [--check]": "replace this binary with the latest release, or only say whether one exists",
  "rewind [<id> --yes|--force|--conversation]": "list checkpoints of this folder, or take its files (and the session) back to before one",
};
