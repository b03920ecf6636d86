/**
 * The five memory scopes of one session, opened together: `run` (in this process, emptied when
 * the next run starts), `agent` (one file per agent variant in the project), `project`, `global`
 * and `repo` (`.shiro/notes.json` in the repository, meant to be committed).
 *
 * Files:
 * - agent: `memory/<hash16>.agent-<name>.json` beside the project store,
 *   {version: 1, project: "<root>", agent: "<name>", entries: MemoryEntry[]}.
 * - repo: `<project root>/.shiro/notes.json`, {version: 1, entries: MemoryEntry[]}, written
 *   0644 (a team reviews it in git), locked and atomic like every store, secrets redacted, and
 *   never with hit counts (a recall must not dirty the work tree). `guard` (the path jail) runs
 *   before each write, so a `.shiro` that links outside the workspace is refused. With `repoTrust`
 *   (repo-notes-trust.ts), `stores()` and `entries()` leave the repo store out while the file is
 *   untrusted; `store("repo")` still reaches it, for writes.
 * Opening a shelf creates no file; `--no-memory` opens no shelf at all.
 */
import { join } from "node:path";
import { paths } from "../platform/paths.ts";
import { REPO_NOTES_PATH, type RepoNotesTrust } from "./repo-notes-trust.ts";
import { globalFileSchema, projectFileSchema, openFileBacking, type MemoryBacking, type MemoryEntry } from "./memory-file.ts";
import {
  MEMORY_SCOPES,
  createMemoryStore,
  openGlobalMemory,
  openMemory,
  type MemoryScope,
  type MemoryStore,
  type MemoryStoreOptions,
  type ScopedMemoryEntry,
} from "./memory.ts";

export { REPO_NOTES_PATH };

/** Every scope of one session. `agent` follows the variant in force (`setAgent`). */
export interface MemoryShelf {
  readonly projectRoot: string;
  readonly project: MemoryStore;
  readonly global: MemoryStore;
  readonly repo: MemoryStore;
  readonly run: MemoryStore;
  /** The store of the agent variant in force. */
  readonly agent: MemoryStore;
  setAgent(name: string): void;
  /** The store of another agent variant or subagent kind. */
  agentStore(name: string): MemoryStore;
  store(scope: MemoryScope): MemoryStore;
  /** Every store the current agent sees, in MEMORY_SCOPES order. */
  stores(): MemoryStore[];
  /** Every note the current agent sees, each tagged with its scope. */
  entries(): ScopedMemoryEntry[];
  /** Empties the run store (a new run starts). */
  clearRun(): void;
}

export interface MemoryShelfOptions extends MemoryStoreOptions {
  /** The agent variant whose notes are seen (default `default`). */
  agent?: string;
  /** Runs on the repo file's path before each write; throws to refuse it (the path jail). */
  guard?: (path: string) => void;
  /** Whether the repository's notes may be used, and trust that follows shiro's own writes. */
  repoTrust?: RepoNotesTrust;
}

export function openMemoryShelf(projectRoot: string, options: MemoryShelfOptions = {}): MemoryShelf {
  const project = openMemory(projectRoot, options);
  const global = openGlobalMemory(options);
  const repo = openRepoMemory(projectRoot, options);
  const run = openRunMemory();
  const agents = new Map<string, MemoryStore>();
  const agentStore = (name: string): MemoryStore => {
    let store = agents.get(name);
    if (!store) agents.set(name, (store = openAgentMemory(projectRoot, name, options)));
    return store;
  };
  let agentName = options.agent ?? "default";
  const shelf: MemoryShelf = {
    projectRoot,
    project,
    global,
    repo,
    run,
    get agent() {
      return agentStore(agentName);
    },
    setAgent(name) {
      agentName = name;
    },
    agentStore,
    store: (scope) => ({ run, agent: shelf.agent, project, global, repo })[scope],
    stores: () => MEMORY_SCOPES.filter((scope) => scope !== "repo" || !options.repoTrust || options.repoTrust.trusted()).map((scope) => shelf.store(scope)),
    entries: () => shelf.stores().flatMap((store) => store.list().map((entry) => ({ ...entry, scope: store.scope }))),
    clearRun: () => run.remove(run.list().map((entry) => entry.id)),
  };
  return shelf;
}

/** Notes for one run: kept in the process, never on disk. */
export function openRunMemory(options: MemoryStoreOptions = {}): MemoryStore {
  let entries: MemoryEntry[] = [];
  const backing: MemoryBacking = {
    read: () => entries,
    update(change) {
      const next = change(entries);
      if (next) entries = next;
    },
  };
  return createMemoryStore({ scope: "run", path: "", backing }, options);
}

/** The notes one agent variant (or subagent kind) keeps about this project. */
export function openAgentMemory(projectRoot: string, agent: string, options: MemoryStoreOptions = {}): MemoryStore {
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(agent)) throw new Error(`"${agent}" is not an agent name: use lowercase letters, digits and dashes`);
  const path = agentMemoryPath(projectRoot, agent);
  const backing = openFileBacking(
    { label: `${agent} agent memory`, path, schema: projectFileSchema, header: { project: projectRoot, agent }, checkedPath: `${path}.checked` },
    options,
  );
  return createMemoryStore({ scope: "agent", path, backing, projectRoot, agent }, options);
}

export function agentMemoryPath(projectRoot: string, agent: string): string {
  return paths.projectMemory(projectRoot).replace(/\.json$/, `.agent-${agent}.json`);
}

/** The repository's own notes (`.shiro/notes.json`), shared through git. */
export function openRepoMemory(projectRoot: string, options: MemoryShelfOptions = {}): MemoryStore {
  const path = join(projectRoot, REPO_NOTES_PATH);
  const backing = openFileBacking(
    {
      label: "repo notes",
      path,
      schema: globalFileSchema,
      header: {},
      mode: 0o644,
      beforeWrite: () => {
        options.guard?.(REPO_NOTES_PATH);
        options.repoTrust?.beforeWrite();
      },
      afterWrite: () => options.repoTrust?.afterWrite(),
    },
    options,
  );
  return createMemoryStore({ scope: "repo", path, backing, projectRoot, countsHits: false }, options);
}
