/**
 * `shiro memory`: the notes kept about the current directory's project, in every scope (list,
 * show, add, forget, verify, compact) and its indexes (gc). `--scope` names one scope (`--global` is `--scope global`);
 * `list --all` shows every scope, `list --episodes` the episodes.
 */
import { defineCommand } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { openEpisodes } from "../lib/store/episodes.ts";
import { lookupMemory, memoryAbbreviator, projectStores } from "../lib/store/memory-lookup.ts";
import { buildProvenance, refreshProvenance, staleNote } from "../lib/store/memory-provenance.ts";
import { MEMORY_KINDS, sortNewestFirst, type MemoryKind } from "../lib/store/memory.ts";
import { formatForgetResult, formatRememberResult } from "../lib/tools/memory-tools.ts";
import { formatEpisodeDetail, formatEpisodeLines, formatNoteDetail, formatNoteLines } from "../lib/ui/memory-view.ts";
import { writeOut } from "../lib/ui/output.ts";
import { showControls } from "../lib/ui/terminal-text.ts";
import { MEMORY_FLAGS, MEMORY_NOTICES, openShelf, scopeFromArgs } from "./_memory-args.ts";

const _print = (text: string) => writeOut(`${text}\n`);
const _json = (value: unknown) => _print(JSON.stringify(value, null, 2));
const _EMPTY: Record<string, string> = {
  project: "nothing remembered about this project yet",
  global: "nothing remembered globally yet",
  all: "nothing remembered about this project or globally yet",
};

export default defineCommand({
  meta: { name: "memory", description: "list, show, add, forget, verify or compact this project's notes in every scope, list its episodes, gc its indexes" },
  subCommands: {
    list: defineCommand({
      meta: { description: "print the notes, newest first, each with its id" },
      args: {
        ...MEMORY_FLAGS,
        all: { type: "boolean", description: "every scope: project, repo, each agent's, global" },
        episodes: { type: "boolean", description: "the project's episodes instead of notes" },
        stale: { type: "boolean", description: "only notes whose files changed since they were written" },
      },
      run({ args }) {
        const scope = scopeFromArgs(args);
        if (args.all && scope) throw new UsageError("use --all or --scope/--global, not both");
        const shelf = openShelf(args.agent);
        const all = projectStores(shelf, MEMORY_NOTICES);
        const episodes = openEpisodes(shelf.projectRoot, MEMORY_NOTICES).read().episodes;
        // Ids as short as `shiro memory show` (every scope's notes, the episodes, their sessions) tells apart.
        const abbreviate = memoryAbbreviator(all, episodes);
        if (args.episodes) {
          if (args.json) return _json(episodes);
          return _print(episodes.length === 0 ? "no episodes recorded for this project yet" : formatEpisodeLines(episodes, abbreviate).join("\n"));
        }
        const stores = args.all ? all : [shelf.store(scope ?? "project")];
        let entries = sortNewestFirst(stores.flatMap((store) => store.list().map((entry) => ({ ...entry, scope: store.scope }))));
        if (args.stale) entries = entries.filter((entry) => staleNote(entry, shelf.projectRoot));
        if (args.json) return _json(args.all || scope ? entries : entries.map(({ scope: _, ...entry }) => entry));
        if (entries.length === 0) return _print(args.stale ? "no note is stale" : (_EMPTY[args.all ? "all" : (scope ?? "project")] ?? `no ${scope} notes yet`));
        _print(formatNoteLines(entries, shelf.projectRoot, abbreviate).join("\n"));
      },
    }),
    show: defineCommand({
      meta: { description: "print one note (with its provenance and staleness) or one episode, by id or id prefix" },
      args: { id: { type: "positional", description: "a note id, an episode id or a session id (4+ characters)" }, json: MEMORY_FLAGS.json },
      run({ args }) {
        const shelf = openShelf();
        const found = lookupMemory(projectStores(shelf, MEMORY_NOTICES), openEpisodes(shelf.projectRoot, MEMORY_NOTICES), String(args.id));
        if (found.found === "none") throw new UsageError(`no note or episode with id "${args.id}": shiro memory list --all (or --episodes) prints the ids`);
        if (found.found === "ambiguous")
          throw new UsageError(`"${args.id}" matches ${found.ids.length} ids (${found.ids.slice(0, 3).join(", ")}…): give more characters`);
        if (found.found === "episode") return args.json ? _json(found.episode) : _print(formatEpisodeDetail(found.episode));
        return args.json ? _json(found.entry) : _print(formatNoteDetail(found.entry, shelf.projectRoot));
      },
    }),
    add: defineCommand({
      meta: { description: `add a note: shiro memory add command "tests run with bun test" [--scope repo]` },
      args: {
        kind: { type: "positional", description: MEMORY_KINDS.join(" | ") },
        text: { type: "positional", description: "one self-contained line (quote it)" },
        ...MEMORY_FLAGS,
      },
      run({ args }) {
        const kind = String(args.kind);
        if (!(MEMORY_KINDS as readonly string[]).includes(kind)) throw new UsageError(`unknown memory kind "${kind}". Available: ${MEMORY_KINDS.join(", ")}`);
        const shelf = openShelf(args.agent);
        const store = shelf.store(scopeFromArgs(args) ?? "project");
        const text = String(args.text);
        const result = store.remember(
          kind as MemoryKind,
          text,
          buildProvenance(shelf.projectRoot, text, store.scope === "agent" ? { agent: store.agent } : {}),
        );
        if (args.json) return _json(result);
        _print(formatRememberResult(result, store.scope, showControls));
      },
    }),
    forget: defineCommand({
      meta: { description: "delete a note by id, or every note containing the text (case-insensitive)" },
      args: { text: { type: "positional", description: "a note id (prefix), or text in the notes" }, ...MEMORY_FLAGS },
      run({ args }) {
        const text = String(args.text);
        const shelf = openShelf(args.agent);
        const scope = scopeFromArgs(args);
        const byId = lookupMemory(scope ? [shelf.store(scope)] : projectStores(shelf, MEMORY_NOTICES), undefined, text);
        const removed = byId.found === "note" ? byId.store.remove([byId.entry.id]) : shelf.store(scope ?? "project").forget(text);
        if (args.json) return _json({ removed });
        _print(showControls(formatForgetResult(removed, text)));
      },
    }),
    verify: defineCommand({
      meta: { description: "confirm a note still holds: re-hash its files, record the commit and the time" },
      args: { id: { type: "positional", description: "a note id (prefix)" }, json: MEMORY_FLAGS.json },
      run({ args }) {
        const shelf = openShelf();
        const found = lookupMemory(projectStores(shelf, MEMORY_NOTICES), undefined, String(args.id));
        if (found.found !== "note")
          throw new UsageError(
            found.found === "ambiguous"
              ? `"${args.id}" matches several notes: give more characters`
              : `no note with id "${args.id}": shiro memory list --all prints the ids`,
          );
        const entry = found.store.verify(found.entry.id, refreshProvenance(shelf.projectRoot, found.entry))!;
        if (args.json) return _json(entry);
        _print(`verified ${entry.id} at ${entry.verifiedAt}: ${entry.text}`);
      },
    }),
    compact: defineCommand({
      meta: { description: "have the model merge never-recalled notes (past 60)" },
      args: { scope: MEMORY_FLAGS.scope, global: MEMORY_FLAGS.global, agent: MEMORY_FLAGS.agent },
      async run({ args }) {
        const { resolveConfig } = await import("../lib/config/config.ts");
        const { completeOnce } = await import("../lib/providers/complete.ts");
        const { compactMemory } = await import("../lib/agent/memory-compaction.ts");
        // The config is resolved only once a model call is due: a store left as is needs no key.
        const result = await compactMemory(openShelf(args.agent).store(scopeFromArgs(args) ?? "project"), (system, prompt, signal) =>
          completeOnce(resolveConfig(), system, prompt, signal),
        );
        _print(result.message);
      },
    }),
    gc: defineCommand({
      meta: { description: "merge the search and recall indexes' segments into one each, dropping removed documents, and compact the episode log" },
      async run() {
        const { collectIndexGarbage } = await import("../lib/find/index-gc.ts");
        _print(collectIndexGarbage(openShelf(), MEMORY_NOTICES).join("\n"));
      },
    }),
  },
});
