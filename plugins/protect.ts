/**
 * The protect plugin: refuses writes to paths another tool owns (git's store, lockfiles,
 * installed dependencies, build output, caches). Only whole path segments match, compared
 * exactly, so `docs/dist-layout.md` and `src/build-info.ts` pass while `dist/app.js` does not.
 * It judges the paths every `write` tool declares (ToolDefinition.paths, folders expanded).
 */
import type { Plugin } from "../lib/extension-api/plugin-api.ts";
import { pathSegments } from "../lib/approval/write-paths.ts";

export interface ProtectRule {
  why: string;
  /** `name` is the last segment, `folders` the ones before it. */
  matches(name: string, folders: readonly string[]): boolean;
}

const _LOCKFILES = new Set([
  "bun.lock",
  "bun.lockb",
  "package-lock.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "Cargo.lock",
  "poetry.lock",
  "uv.lock",
  "composer.lock",
  "go.sum",
  "Gemfile.lock",
]);
const _BUILD_OUTPUT = new Set(["dist", "build", "out", ".next", ".nuxt", ".svelte-kit", "coverage"]);
const _CACHES = new Set([".venv", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".turbo", ".parcel-cache"]);

const _inFolder = (names: ReadonlySet<string>) => (_name: string, folders: readonly string[]) => folders.some((folder) => names.has(folder));

export const PROTECT_RULES: readonly ProtectRule[] = [
  { why: "git's own object store", matches: _inFolder(new Set([".git"])) },
  { why: "a lockfile the package manager owns", matches: (name) => _LOCKFILES.has(name) },
  { why: "an installed dependency", matches: _inFolder(new Set(["node_modules"])) },
  {
    why: "a vendored or build directory",
    matches: (_name, folders) =>
      folders.includes("vendor") || folders.some((folder, i) => folder === "target" && (folders[i + 1] === "debug" || folders[i + 1] === "release")),
  },
  { why: "generated build output", matches: _inFolder(_BUILD_OUTPUT) },
  { why: "a tool cache", matches: _inFolder(_CACHES) },
];

/** Why writing `path` is refused, or undefined when no tool owns it. */
export function protectReason(path: string, cwd?: string): string | undefined {
  const segments = pathSegments(path, cwd);
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  return PROTECT_RULES.find((rule) => rule.matches(name, segments.slice(0, -1)))?.why;
}

export function createProtectPlugin(): Plugin {
  return {
    name: "protect",
    description: "refuses writes to lockfiles, .git/, node_modules/, build output and tool caches",
    beforeToolCall({ effect, paths, cwd }) {
      if (effect !== "write") return undefined;
      for (const path of paths ?? []) {
        const why = protectReason(path, cwd);
        if (why) return `refusing to write ${path} (${why}). Regenerate it with the tool that owns it rather than editing it.`;
      }
      return undefined;
    },
  };
}
