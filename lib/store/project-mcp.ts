/**
 * A project's own `.mcp.json` (at the project root: the git root, or the folder outside a
 * repository), in the shape other agents read: {"mcpServers": {name: {command, args?, env?, cwd?}
 * | {type?: "http"|"sse"|"stdio", url, headers?}}}; unknown keys are ignored, a server that does
 * not fit is skipped with a reason. Its servers run only after the user trusted this file:
 *
 * File `trusted-projects.json` (in the state folder): {version: 1, entries: [{root, sha256, at}]}
 * — the trust is in the file's exact content: an edited `.mcp.json` (another command) is
 * untrusted again until asked. Writes are locked read-modify-writes (json-file's updateJsonSync).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { McpServerSchema } from "../config/config.ts";
import { stateDir } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";

export type ProjectMcpServer = v.InferOutput<typeof McpServerSchema>;

export interface ProjectMcp {
  root: string;
  path: string;
  servers: Record<string, ProjectMcpServer>;
  skipped: { name: string; reason: string }[];
  sha256: string;
  trusted: boolean;
}

const _TrustFileSchema = v.object({
  version: v.literal(1),
  entries: v.array(v.object({ root: v.string(), sha256: v.string(), at: v.string() })),
});
const _LOCAL_KEYS = ["command", "args", "env", "cwd"] as const;
const _REMOTE_KEYS = ["url", "type", "headers"] as const;

function _trustPath(): string {
  return join(stateDir(), "trusted-projects.json");
}

/** The `.mcp.json` at the project root `root` (findProjectRoot); undefined when there is none. Throws a one-line error for a file that is not JSON or has no `mcpServers` object. */
export function readProjectMcp(root: string): ProjectMcp | undefined {
  const path = join(root, ".mcp.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}); fix it or remove it`);
  }
  const listed = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
  if (!listed || typeof listed !== "object" || Array.isArray(listed)) throw new Error(`${path} has no "mcpServers" object; fix it or remove it`);
  const servers: Record<string, ProjectMcpServer> = {};
  const skipped: ProjectMcp["skipped"] = [];
  for (const [name, raw] of Object.entries(listed as Record<string, unknown>)) {
    const picked = _pick(raw);
    const checked = v.safeParse(McpServerSchema, picked);
    if (checked.success) servers[name] = checked.output;
    else skipped.push({ name, reason: checked.issues[0].message });
  }
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { root, path, servers, skipped, sha256, trusted: _isTrusted(root, sha256) };
}

/** Records that the user trusts this exact `.mcp.json`. */
export function trustProjectMcp(project: ProjectMcp): void {
  updateJsonSync(_trustPath(), { schema: _TrustFileSchema, version: 1 }, (current) => {
    const entries = (current?.entries ?? []).filter((entry) => entry.root !== project.root);
    return { version: 1 as const, entries: [...entries, { root: project.root, sha256: project.sha256, at: new Date().toISOString() }] };
  });
  project.trusted = true;
}

function _isTrusted(root: string, sha256: string): boolean {
  const read = readJson(_trustPath(), { schema: _TrustFileSchema, version: 1 });
  return read.status === "ok" && read.value.entries.some((entry) => entry.root === root && entry.sha256 === sha256);
}

/** The keys our config knows, so another agent's extras (`"type": "stdio"`, comments) do not refuse the server. */
function _pick(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const record = raw as Record<string, unknown>;
  const keys = "url" in record ? _REMOTE_KEYS : _LOCAL_KEYS;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (record[key] !== undefined && !(key === "type" && record[key] === "stdio")) out[key] = record[key];
  return out;
}
