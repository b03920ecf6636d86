/**
 * `shiro memory`: the notes kept about the current directory's project (list, add, forget,
 * compact); `--global` works on the user's notes shared by every project instead, and `list --all`
 * shows both.
 */
import { defineCommand } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { findProjectRoot } from "../lib/config/project.ts";
import {
  MEMORY_KINDS, openGlobalMemory, openMemory, sortNewestFirst,
  type MemoryKind, type MemoryStore, type MemoryStoreOptions, type ScopedMemoryEntry,
} from "../lib/store/memory.ts";
import { formatForgetResult, formatMemoryEntry, formatRememberResult } from "../lib/tools/memory-tools.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";

const _notices: MemoryStoreOptions = { onNotice: (text) => writeErr(`shiro: ${text}\n`) };

function _openStore(global: boolean | undefined): MemoryStore {
  return global ? openGlobalMemory(_notices) : openMemory(findProjectRoot(process.cwd()), _notices);
}

const _print = (text: string) => writeOut(`${text}\n`);
const _json = (value: unknown) => _print(JSON.stringify(value, null, 2));
const _jsonFlag = { json: { type: "boolean", description: "print the result as JSON" } } as const;
const _globalFlag = { global: { type: "boolean", description: "the notes shared by every project, not this project's" } } as const;

const _EMPTY = {
  project: "nothing remembered about this project yet",
  global: "nothing remembered globally yet",
  all: "nothing remembered about this project or globally yet",
};

function _printEntries(entries: readonly ScopedMemoryEntry[]): void {
  for (const entry of entries) _print(`${formatMemoryEntry(entry, entry.scope)}${entry.hits > 0 ? `  [recalled ${entry.hits}x]` : ""}`);
}

export default defineCommand({
  meta: { name: "memory", description: "list, show, add, forget or compact this project's notes (--global: the notes shared by every project)" },
  subCommands: {
    list: defineCommand({
      meta: { description: "print the notes, newest first" },
      args: {
        ..._globalFlag,
        all: { type: "boolean", description: "this project's notes and the global ones, each global one marked" },
        json: { type: "boolean", description: "print the entries as a JSON array (with --all, each carries its scope)" },
      },
      run({ args }) {
        if (args.global && args.all) throw new UsageError("use --global or --all, not both");
        if (args.all) {
          const stores = [_openStore(false), _openStore(true)];
          const entries = sortNewestFirst(stores.flatMap((store) => store.list().map((entry) => ({ ...entry, scope: store.scope }))));
          if (args.json) return _json(entries);
          if (entries.length === 0) return _print(_EMPTY.all);
          return _printEntries(entries);
        }
        const store = _openStore(args.global);
        const entries = store.list();
        if (args.json) return _json(entries);
        if (entries.length === 0) return _print(_EMPTY[store.scope]);
        _printEntries(entries.map((entry) => ({ ...entry, scope: store.scope })));
      },
    }),
    add: defineCommand({
      meta: { description: `add a note: shiro memory add command "tests run with bun test"` },
      args: {
        kind: { type: "positional", description: MEMORY_KINDS.join(" | ") },
        text: { type: "positional", description: "one self-contained line (quote it)" },
        ..._globalFlag,
        ..._jsonFlag,
      },
      run({ args }) {
        const kind = String(args.kind);
        if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
          throw new UsageError(`unknown memory kind "${kind}". Available: ${MEMORY_KINDS.join(", ")}`);
        }
        const store = _openStore(args.global);
        const result = store.remember(kind as MemoryKind, String(args.text));
        if (args.json) return _json(result);
        _print(formatRememberResult(result, store.scope));
      },
    }),
    forget: defineCommand({
      meta: { description: "delete every note containing the text (case-insensitive)" },
      args: { text: { type: "positional", description: "text, or part of the text, of the notes" }, ..._globalFlag, ..._jsonFlag },
      run({ args }) {
        const text = String(args.text);
        const removed = _openStore(args.global).forget(text);
        if (args.json) return _json({ removed });
        _print(formatForgetResult(removed, text));
      },
    }),
    show: defineCommand({
      meta: { description: "one note or episode of this project (or a global note) by id or unique prefix, as shiro search prints it" },
      args: { id: { type: "positional", description: "note or episode id, or a unique prefix" }, ..._jsonFlag },
      async run({ args }) {
        const { formatMemoryItem, listMemoryItems } = await import("../lib/find/memory-items.ts");
        const { shortSessionId } = await import("../lib/store/short-ids.ts");
        const item = listMemoryItems(findProjectRoot(process.cwd()), _notices.onNotice).find(String(args.id ?? ""));
        if (args.json) return _json(item.kind === "note" ? { type: "note", ...item.note } : { type: "episode", ...item.episode });
        _print(formatMemoryItem(item, shortSessionId));
      },
    }),
    compact: defineCommand({
      meta: { description: "have the model merge never-recalled notes (past 60 entries)" },
      args: { ..._globalFlag },
      async run({ args }) {
        const { resolveConfig } = await import("../lib/config/config.ts");
        const { completeOnce } = await import("../lib/providers/complete.ts");
        const { compactMemory } = await import("../lib/agent/memory-compaction.ts");
        // The config is resolved only once a model call is due: a store left as is needs no key.
        const result = await compactMemory(_openStore(args.global), (system, prompt, signal) => completeOnce(resolveConfig(), system, prompt, signal));
        _print(result.message);
      },
    }),
  },
});
