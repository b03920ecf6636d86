/** `shiro memory`: the notes kept about the current directory's project (list, add, forget, compact). */
import { defineCommand } from "citty";
import { UsageError } from "../lib/errors.ts";
import { findProjectRoot } from "../lib/project.ts";
import { MEMORY_KINDS, openMemory, type MemoryKind, type MemoryStore } from "../lib/store/memory.ts";
import { formatForgetResult, formatMemoryEntry, formatRememberResult } from "../lib/tools/memory-tools.ts";

function _openProjectMemory(): MemoryStore {
  return openMemory(findProjectRoot(process.cwd()), { onNotice: (text) => process.stderr.write(`shiro: ${text}\n`) });
}

const _print = (text: string) => process.stdout.write(`${text}\n`);
const _json = (value: unknown) => _print(JSON.stringify(value, null, 2));
const _jsonFlag = { json: { type: "boolean", description: "print the result as JSON" } } as const;

export default defineCommand({
  meta: { name: "memory", description: "list, add, forget or compact this project's notes" },
  subCommands: {
    list: defineCommand({
      meta: { description: "print the notes, newest first" },
      args: { json: { type: "boolean", description: "print the entries as a JSON array" } },
      run({ args }) {
        const entries = _openProjectMemory().list();
        if (args.json) return _json(entries);
        if (entries.length === 0) return _print("nothing remembered about this project yet");
        for (const entry of entries) _print(`${formatMemoryEntry(entry)}${entry.hits > 0 ? `  [recalled ${entry.hits}x]` : ""}`);
      },
    }),
    add: defineCommand({
      meta: { description: `add a note: shiro memory add command "tests run with bun test"` },
      args: {
        kind: { type: "positional", description: MEMORY_KINDS.join(" | ") },
        text: { type: "positional", description: "one self-contained line (quote it)" },
        ..._jsonFlag,
      },
      run({ args }) {
        const kind = String(args.kind);
        if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
          throw new UsageError(`unknown memory kind "${kind}". Available: ${MEMORY_KINDS.join(", ")}`);
        }
        const result = _openProjectMemory().remember(kind as MemoryKind, String(args.text));
        if (args.json) return _json(result);
        _print(formatRememberResult(result));
      },
    }),
    forget: defineCommand({
      meta: { description: "delete every note containing the text (case-insensitive)" },
      args: { text: { type: "positional", description: "text, or part of the text, of the notes" }, ..._jsonFlag },
      run({ args }) {
        const text = String(args.text);
        const removed = _openProjectMemory().forget(text);
        if (args.json) return _json({ removed });
        _print(formatForgetResult(removed, text));
      },
    }),
    compact: defineCommand({
      meta: { description: "have the model merge never-recalled notes (past 60 entries)" },
      async run() {
        const { resolveConfig } = await import("../lib/config.ts");
        const { completeOnce } = await import("../lib/providers/complete.ts");
        const { compactMemory } = await import("../lib/store/memory-compaction.ts");
        // The config is resolved only once a model call is due: a store left as is needs no key.
        const result = await compactMemory(_openProjectMemory(), (system, prompt, signal) => completeOnce(resolveConfig(), system, prompt, signal));
        _print(result.message);
      },
    }),
  },
});
