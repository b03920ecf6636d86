/**
 * `shiro search <query>`: one ranked search over session messages, run events, notes and
 * episodes (lib/find/search.ts). By default this project's; `--all` every project's.
 */
import { defineCommand } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "search", description: "find anything shiro remembers: prompts, answers, tool results, notes, episodes" },
  args: {
    query: { type: "positional", description: "words to look for (a hit needs one; more matching words rank higher)" },
    sessions: { type: "boolean", description: "only session messages" },
    runs: { type: "boolean", description: "only run events" },
    memory: { type: "boolean", description: "only notes and episodes" },
    since: { type: "string", description: "only what is newer: 30m, 12h, 7d, 2w or a date (2026-11-01)" },
    project: { type: "string", description: "the project holding this folder (default: the current one)" },
    all: { type: "boolean", description: "every project's sessions, runs, notes and episodes" },
    limit: { type: "string", description: "at most this many results (default 20)" },
    json: { type: "boolean", description: "the results as a JSON array" },
  },
  async run({ args }) {
    const { resolve } = await import("node:path");
    const { homedir } = await import("node:os");
    const { findProjectRoot } = await import("../lib/config/project.ts");
    const { SEARCH_DEFAULT_LIMIT, searchEverything } = await import("../lib/find/search.ts");
    const { parseSince } = await import("../lib/find/since.ts");
    const { formatSearchLines } = await import("../lib/ui/search-lines.ts");
    const { colourEnabled } = await import("../lib/ui/style.ts");
    const query = String(args.query ?? "").trim();
    if (!query) throw new UsageError('shiro search needs words to look for: shiro search "login redirect"');
    if (args.all && args.project) throw new UsageError("use --project or --all, not both");
    const limit = args.limit ? Number(args.limit) : SEARCH_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive whole number");
    const here = findProjectRoot(process.cwd());
    const { existsSync } = await import("node:fs");
    if (args.project && !existsSync(resolve(String(args.project)))) throw new UsageError(`--project ${args.project}: no such folder`);
    const project = args.all ? undefined : args.project ? findProjectRoot(resolve(String(args.project))) : here;
    const sources = (["sessions", "runs", "memory"] as const).filter((source) => args[source]);
    const hits = await searchEverything({
      query,
      sources,
      limit,
      memoryRoot: here,
      ...(args.all ? { moreMemoryRoots: (await import("../lib/find/memory-projects.ts")).listMemoryProjects() } : {}),
      ...(project ? { project } : {}),
      ...(args.since ? { since: parseSince(String(args.since)) } : {}),
      onNotice: (text) => writeErr(`shiro: ${text}\n`),
    });
    if (args.json) {
      writeOut(`${JSON.stringify(hits, null, 2)}\n`);
      return;
    }
    const lines = formatSearchLines(hits, query, { bold: colourEnabled(process.stdout), home: homedir() });
    writeOut(`${lines.join("\n")}\n`);
  },
});
