/**
 * Content-bound trust in a project's own files: the user trusted this exact content of this file
 * of this project. Used for `.mcp.json` (project-mcp.ts), `.shiro/notes.json` (repo-notes-trust.ts) and
 * project custom commands whose allowed-tools pre-approve (lib/ui/slash/custom-commands.ts).
 *
 * File `trusted-projects.json` (in the state folder): {version: 1, entries: [{root, file?, sha256, at}]}
 * — `file` is the path relative to the project root (absent: `.mcp.json`, as the first version
 * wrote it). One entry per root and file: trusting a new content replaces the old one, so an
 * edited file is untrusted again until asked. Writes are locked read-modify-writes
 * (json-file's updateJsonSync); an unreadable trust file trusts nothing.
 */
import { join } from "node:path";
import * as v from "valibot";
import { stateDir } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";
import { sha256Hex } from "../platform/sha256.ts";

const _trustFileSchema = () =>
  v.object({
    version: v.literal(1),
    entries: v.array(v.object({ root: v.string(), file: v.optional(v.string()), sha256: v.string(), at: v.string() })),
  });
let _trustFile: ReturnType<typeof _trustFileSchema> | undefined;
// The schema is built at the first read of a file that exists.
const _options = {
  get schema() {
    return (_trustFile ??= _trustFileSchema());
  },
  version: 1,
};
const _DEFAULT_FILE = ".mcp.json";

function _trustPath(): string {
  return join(stateDir(), "trusted-projects.json");
}

/** The SHA-256 (hex) trust is bound to. */
export function contentHash(content: string | Uint8Array): string {
  return sha256Hex(content);
}

/** True when the user trusted `file` of the project at `root` with exactly this content hash. */
export function isTrustedContent(root: string, file: string, sha256: string): boolean {
  const read = readJson(_trustPath(), _options);
  return read.status === "ok" && read.value.entries.some((entry) => entry.root === root && (entry.file ?? _DEFAULT_FILE) === file && entry.sha256 === sha256);
}

/** Records that the user trusts this content of `file` of the project at `root`. */
export function trustContent(root: string, file: string, sha256: string): void {
  updateJsonSync(_trustPath(), _options, (current) => {
    const entries = (current?.entries ?? []).filter((entry) => entry.root !== root || (entry.file ?? _DEFAULT_FILE) !== file);
    const added = { root, ...(file === _DEFAULT_FILE ? {} : { file }), sha256, at: new Date().toISOString() };
    return { version: 1 as const, entries: [...entries, added] };
  });
}
