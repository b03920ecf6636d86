/**
 * `bun run tool-costs`: measures the bytes each built-in tool adds to every request (name,
 * description and JSON Schema, serialised as toToolSpec gives them) and each set's total, prints
 * the table, and rewrites it in docs/tools.md between the `tool-costs:start` / `tool-costs:end`
 * markers. `--check` only compares and exits 1 when the docs are stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolSetName } from "../../lib/vocabulary.ts";
import { buildSystemPrompt } from "../../lib/agent/prompt.ts";
import type { MemoryStore } from "../../lib/store/memory.ts";
import type { MemoryShelf } from "../../lib/store/memory-scopes.ts";
import { DEFAULT_TOOL_SETS, builtinTools, measureToolCosts } from "../../lib/tools/index.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { createRecallDiscardedTool } from "../../lib/tools/recall-discarded.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import { BUILTIN_PLUGINS } from "../../plugins/index.ts";

const START = "<!-- tool-costs:start -->";
const END = "<!-- tool-costs:end -->";
const docsPath = join(import.meta.dir, "../../docs/tools.md");

// Session tools (no set) are offered on every request unless their feature is off; the time
// plugin's current_time is on by default. Their stores are never touched while measuring.
const sessionTools = [
  createTodoTool({ get: () => [], set: () => undefined }),
  ...createMemoryTools({} as MemoryStore, { global: {} as MemoryStore, shelf: {} as MemoryShelf }),
  createRecallDiscardedTool(() => ({ messages: [], state: { spans: [] } })),
  ...(BUILTIN_PLUGINS.time!({ cwd: ".", writeStderr: () => undefined }).tools ?? []),
];
const all = builtinTools({ complete: async () => "", extraTools: sessionTools });
const costs = measureToolCosts(all);
const setBytes = costs.tools.filter((t) => t.offered && t.set !== undefined).reduce((sum, t) => sum + t.bytes, 0);
const sessionBytes = costs.tools.filter((t) => t.set === undefined).reduce((sum, t) => sum + t.bytes, 0);
const promptBytes = Buffer.byteLength(buildSystemPrompt({
  root: "/home/someone/projects/a-typical-project", platform: "linux-x64", tools: all.filter((t) => costs.tools.find((c) => c.name === t.name)?.offered),
  approvalTools: ["write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file", "bash"],
}));
const setRank = new Map(costs.sets.map((s, i) => [s.set, i]));
const rank = (set: string | undefined) => (set === undefined ? costs.sets.length : setRank.get(set as ToolSetName)!);
const rows = [...costs.tools].sort((a, b) => rank(a.set) - rank(b.set) || b.bytes - a.bytes || a.name.localeCompare(b.name));

const table = [
  "| tool | set | bytes |",
  "|---|---|---:|",
  ...rows.map((t) => `| \`${t.name}\` | ${t.set ?? "-"} | ${t.bytes.toLocaleString("en-US")} |`),
  "",
  "| set | tools | bytes | default |",
  "|---|---:|---:|---|",
  ...costs.sets.map((s) => `| ${s.set} | ${s.tools} | ${s.bytes.toLocaleString("en-US")} | ${s.active ? "on" : "off"} |`),
  `| **default sets** (${DEFAULT_TOOL_SETS.join(" + ")}) | ${costs.tools.filter((t) => t.offered && t.set !== undefined).length} | **${setBytes.toLocaleString("en-US")}** | |`,
  `| session tools (no set) | ${sessionTools.length} | ${sessionBytes.toLocaleString("en-US")} | on |`,
  "",
  "| every request carries | bytes |",
  "|---|---:|",
  `| default sets + system prompt (${promptBytes.toLocaleString("en-US")} B, no project state) | **${(setBytes + promptBytes).toLocaleString("en-US")}** (budget 9,000) |`,
  `| … plus the session tools | ${(setBytes + promptBytes + sessionBytes).toLocaleString("en-US")} |`,
].join("\n");

process.stdout.write(`${table}\n`);

const docs = readFileSync(docsPath, "utf8");
const start = docs.indexOf(START);
const end = docs.indexOf(END);
if (start < 0 || end < start) {
  process.stderr.write(`tool-costs: ${docsPath} has no ${START} … ${END} markers\n`);
  process.exit(1);
}
const updated = `${docs.slice(0, start + START.length)}\n${table}\n${docs.slice(end)}`;
if (process.argv.includes("--check")) {
  if (updated !== docs) {
    process.stderr.write("tool-costs: docs/tools.md is stale; run `bun run tool-costs`\n");
    process.exit(1);
  }
} else if (updated !== docs) {
  writeFileSync(docsPath, updated);
  process.stdout.write(`updated ${docsPath}\n`);
}
