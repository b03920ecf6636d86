/**
 * The arguments every `shiro memory` subcommand shares: the scope flags, turned into a scope, and
 * the shelf of stores they open for the current directory's project.
 */
import { findProjectRoot } from "../lib/config/project.ts";
import { UsageError } from "../lib/platform/errors.ts";
import { openMemoryShelf, type MemoryShelf } from "../lib/store/memory-scopes.ts";
import { openRepoNotesTrust } from "../lib/store/repo-notes-trust.ts";
import { MEMORY_SCOPES, type MemoryScope, type MemoryStoreOptions } from "../lib/store/memory.ts";
import { resolveInWorkspace } from "../lib/tools/jail.ts";
import { writeErr } from "../lib/ui/output.ts";

/** Store notices go to stderr, one line each. */
export const MEMORY_NOTICES: MemoryStoreOptions = { onNotice: (text) => writeErr(`shiro: ${text}\n`) };

export const MEMORY_FLAGS = {
  scope: { type: "string", description: `one of ${MEMORY_SCOPES.filter((scope) => scope !== "run").join(", ")} (default project)` },
  global: { type: "boolean", description: "the notes shared by every project (--scope global)" },
  agent: { type: "string", description: "with --scope agent: the agent variant (default: default)" },
  json: { type: "boolean", description: "print the result as JSON" },
} as const;

export function openShelf(agent?: string): MemoryShelf {
  const root = findProjectRoot(process.cwd());
  // The user sees every scope, trusted or not; a note the user writes keeps a trusted repo file trusted.
  const repoTrust = { ...openRepoNotesTrust(root), trusted: () => true };
  return openMemoryShelf(root, { ...MEMORY_NOTICES, agent: agent || "default", guard: (path) => void resolveInWorkspace(root, path), repoTrust });
}

export function scopeFromArgs(args: { scope?: string; global?: boolean }): MemoryScope | undefined {
  if (args.global && args.scope && args.scope !== "global") throw new UsageError("use --global or --scope, not both");
  const scope = args.global ? "global" : args.scope;
  if (scope === undefined) return undefined;
  if (scope === "run") throw new UsageError('run notes live only inside a run: the model keeps them with remember {scope: "run"}');
  if (!(MEMORY_SCOPES as readonly string[]).includes(scope))
    throw new UsageError(`unknown scope "${scope}". Available: ${MEMORY_SCOPES.filter((name) => name !== "run").join(", ")}`);
  return scope as MemoryScope;
}
