/**
 * A project's own `.mcp.json` (at the project root: the git root, or the folder outside a
 * repository), in the shape other agents read: {"mcpServers": {name: {command, args?, env?, cwd?}
 * | {type?: "http"|"sse"|"stdio", url, headers?}}}; unknown keys are ignored, a server that does
 * not fit is skipped with a reason. Its servers run only after the user trusted this file's exact
 * content (trusted-files.ts): an edited `.mcp.json` (another command) is untrusted again until asked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { McpServerSchema } from "../config/config.ts";
import { contentHash, isTrustedContent, trustContent } from "./trusted-files.ts";

export type ProjectMcpServer = v.InferOutput<typeof McpServerSchema>;

export interface ProjectMcp {
  root: string;
  path: string;
  servers: Record<string, ProjectMcpServer>;
  skipped: { name: string; reason: string }[];
  sha256: string;
  trusted: boolean;
}

const _LOCAL_KEYS = ["command", "args", "env", "cwd"] as const;
const _REMOTE_KEYS = ["url", "type", "headers"] as const;

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
  const sha256 = contentHash(text);
  return { root, path, servers, skipped, sha256, trusted: isTrustedContent(root, ".mcp.json", sha256) };
}

/** Records that the user trusts this exact `.mcp.json`. */
export function trustProjectMcp(project: ProjectMcp): void {
  trustContent(project.root, ".mcp.json", project.sha256);
  project.trusted = true;
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
