/**
 * `bun run tool-costs`: the bytes each tool's full schema costs (name, description and JSON
 * Schema, serialised as toToolSpec gives them), how a default `shiro -p hi` sends it (in full,
 * as one line of load_tools, or not at all), and the whole first request as the fake provider
 * received it per protocol and configuration (test/bench/request-bytes.ts). Prints the tables
 * and rewrites them in docs/tools.md between the `tool-costs:start` / `tool-costs:end` markers.
 * `--check` only compares and exits 1 when the docs are stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolSetName } from "../../lib/vocabulary.ts";
import type { MemoryStore } from "../../lib/store/memory.ts";
import type { MemoryShelf } from "../../lib/store/memory-scopes.ts";
import { measureFirstRequest, type FirstRequest } from "./request-bytes.ts";
import { DEFAULT_TOOL_SETS, builtinTools, measureToolCosts } from "../../lib/tools/index.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { createRecallDiscardedTool } from "../../lib/tools/recall-discarded.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import { createAskTool } from "../../lib/tools/ask.ts";
import { BUILTIN_PLUGINS } from "../../plugins/index.ts";

const START = "<!-- tool-costs:start -->";
const END = "<!-- tool-costs:end -->";
const docsPath = join(import.meta.dir, "../../docs/tools.md");

// Session tools (no set) are offered on every request unless their feature is off; the time
// plugin's current_time is on by default. Their stores are never touched while measuring.
const sessionTools = [
  createTodoTool({ get: () => [], set: () => undefined }),
  createAskTool(async () => undefined),
  ...createMemoryTools({} as MemoryStore, { global: {} as MemoryStore, shelf: {} as MemoryShelf }),
  createRecallDiscardedTool(() => ({ messages: [], state: { spans: [] } })),
  ...(BUILTIN_PLUGINS.time!({ cwd: ".", writeStderr: () => undefined }).tools ?? []),
];
const all = builtinTools({ complete: async () => "", extraTools: sessionTools });
const costs = measureToolCosts(all);
const setBytes = costs.tools.filter((t) => t.offered && t.set !== undefined).reduce((sum, t) => sum + t.bytes, 0);
const sessionBytes = costs.tools.filter((t) => t.set === undefined).reduce((sum, t) => sum + t.bytes, 0);
const setRank = new Map(costs.sets.map((s, i) => [s.set, i]));
const rank = (set: string | undefined) => (set === undefined ? costs.sets.length : setRank.get(set as ToolSetName)!);
const rows = [...costs.tools].sort((a, b) => rank(a.set) - rank(b.set) || b.bytes - a.bytes || a.name.localeCompare(b.name));

const measured: { label: string; request: FirstRequest }[] = [];
for (const protocol of ["chat", "responses", "anthropic"] as const)
  measured.push({ label: `\`shiro -p hi\` (${protocol})`, request: await measureFirstRequest(protocol) });
measured.push({ label: "`shiro -p hi --yolo` (chat)", request: await measureFirstRequest("chat", { args: ["--yolo"] }) });
measured.push({ label: "`shiro -p hi --no-memory --no-skills` (chat)", request: await measureFirstRequest("chat", { args: ["--no-memory", "--no-skills"] }) });
const base = measured[0]!.request;
const sentAs = (name: string) => {
  const sent = base.tools.find((t) => t.name === name);
  if (sent) return `full, ${sent.bytes.toLocaleString("en-US")}`;
  return base.deferredList?.split("\n").some((line) => line.startsWith("- ") && line.split(":")[0]!.slice(2).split(", ").includes(name))
    ? "a line of `load_tools`"
    : "withheld";
};
const fmt = (n: number) => n.toLocaleString("en-US");

const table = [
  "| tool | set | full schema bytes | default `shiro -p hi` sends it (chat) |",
  "|---|---|---:|---|",
  ...rows.map((t) => `| \`${t.name}\` | ${t.set ?? "-"} | ${fmt(t.bytes)} | ${sentAs(t.name)} |`),
  ...base.tools.filter((t) => !costs.tools.some((c) => c.name === t.name)).map((t) => `| \`${t.name}\` | - | | full, ${fmt(t.bytes)} |`),
  "",
  "| set | tools | full schema bytes | default |",
  "|---|---:|---:|---|",
  ...costs.sets.map((s) => `| ${s.set} | ${s.tools} | ${fmt(s.bytes)} | ${s.active ? "on" : "off"} |`),
  `| **default sets** (${DEFAULT_TOOL_SETS.join(" + ")}) | ${costs.tools.filter((t) => t.offered && t.set !== undefined).length} | ${fmt(setBytes)} | |`,
  `| session tools (no set) | ${sessionTools.length} | ${fmt(sessionBytes)} | on |`,
  "",
  "The whole first request, as the fake provider received it (empty git repository, no notes; budget 9,000 bytes):",
  "",
  "| request | system prompt | tools (count) | framing | **total** |",
  "|---|---:|---:|---:|---:|",
  ...measured.map(
    ({ label, request: r }) =>
      `| ${label} | ${fmt(r.system)} | ${fmt(r.tools.reduce((sum, t) => sum + t.bytes, 0))} (${r.tools.length}) | ${fmt(r.framing)} | **${fmt(r.total)}** |`,
  ),
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
