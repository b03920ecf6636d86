/**
 * A project's own `.mcp.json` (at the project root: the git root, or the folder outside a
 * repository), in the shape other agents read: {"mcpServers": {name: {type?: "stdio", command, args?,
 * env?, cwd?, …} | {type?: "http"|"sse", url, headers?, …}}} (config.ts McpServerSchema); unknown keys are ignored, a server that does
 * not fit is skipped with a reason. Its servers run only after the user trusted this file's exact
 * content (trusted-files.ts): an edited `.mcp.json` (another command) is untrusted again until asked.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
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

const [_LOCAL_KEYS, _REMOTE_KEYS] = McpServerSchema.options.map((option) => Object.keys(option.entries)) as [string[], string[]];

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
    const checked = readServerEntry(raw);
    if (typeof checked === "string") skipped.push({ name, reason: checked });
    else servers[name] = checked;
  }
  const sha256 = contentHash(text);
  return { root, path, servers, skipped, sha256, trusted: isTrustedContent(root, ".mcp.json", sha256) };
}

/** Records that the user trusts this exact `.mcp.json`. */
export function trustProjectMcp(project: ProjectMcp): void {
  trustContent(project.root, ".mcp.json", project.sha256);
  project.trusted = true;
}

/** One server entry as another client wrote it (unknown keys dropped), or the reason it does not fit. */
export function readServerEntry(raw: unknown): ProjectMcpServer | string {
  const checked = v.safeParse(McpServerSchema, _pick(raw));
  if (checked.success) return checked.output;
  const issue = checked.issues[0];
  const key = issue.path?.map((item) => String(item.key)).join(".");
  return key ? `${key} ${issue.message}` : issue.message;
}

/**
 * Adds (or replaces) one server in the project's `.mcp.json`, keeping every other key of the file
 * as it was. The new content is trusted when the file was absent or trusted before (the user
 * wrote the change: `shiro mcp add --scope project`); an untrusted file stays untrusted.
 */
export function writeProjectServer(root: string, name: string, server: ProjectMcpServer): string {
  const path = join(root, ".mcp.json");
  let current: Record<string, unknown> = {};
  let trusted = true;
  try {
    const before = readFileSync(path, "utf8");
    trusted = isTrustedContent(root, ".mcp.json", contentHash(before));
    current = JSON.parse(before) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw new Error(`${path} is not JSON; fix it before adding a server to it`);
  }
  const listed = current.mcpServers && typeof current.mcpServers === "object" ? (current.mcpServers as Record<string, unknown>) : {};
  const text = `${JSON.stringify({ ...current, mcpServers: { ...listed, [name]: server } }, null, 2)}\n`;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  if (trusted) trustContent(root, ".mcp.json", contentHash(text));
  return path;
}

/** The keys our config knows, so another agent's extras (comments, fields of clients we do not model) do not refuse the server. */
function _pick(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const record = raw as Record<string, unknown>;
  const keys = "url" in record ? _REMOTE_KEYS : _LOCAL_KEYS;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (record[key] !== undefined) out[key] = record[key];
  return out;
}
