/**
 * A project's own `.mcp.json` (at the project root: the git root, or the folder outside a
 * repository), in the shape other agents read: {"mcpServers": {name: {type?: "stdio", command, args?,
 * env?, cwd?, …} | {type?: "http"|"sse", url, headers?, …} | {httpUrl, headers?, …}}} (config.ts mcpServerSchema); unknown keys are ignored, a server that does
 * not fit is skipped with a reason. Its servers run only after the user trusted this file's exact
 * content and the content of every workspace file its local servers run from (trusted-files.ts):
 * `files` are the command when it is a path, and each argument or `env` word naming a file inside
 * the root (`--require=./x.js` included), so an edited `.mcp.json`, or an edited `server.js`
 * behind `node ./server.js`, is untrusted again until asked.
 */
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import * as v from "valibot";
import { mcpServerKeys, mcpServerSchema } from "../config/config.ts";
import { contentHash, isTrustedContent, trustContent } from "./trusted-files.ts";

export type ProjectMcpServer = v.InferOutput<ReturnType<typeof mcpServerSchema>>;

export interface ProjectMcp {
  root: string;
  path: string;
  servers: Record<string, ProjectMcpServer>;
  skipped: { name: string; reason: string }[];
  /** Workspace files the local servers run from, relative to the root, sorted; their content is part of `sha256`. */
  files: string[];
  sha256: string;
  trusted: boolean;
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
    const checked = readServerEntry(raw);
    if (typeof checked === "string") skipped.push({ name, reason: checked });
    else servers[name] = checked;
  }
  const files = [...new Set(Object.values(servers).flatMap((server) => serverFiles(root, server)))].sort();
  const bound = [text, ...files.map((file) => `\0${file}\0${_fileSha(join(root, file))}`)].join("");
  const sha256 = contentHash(bound);
  return { root, path, servers, skipped, files, sha256, trusted: isTrustedContent(root, ".mcp.json", sha256) };
}

/**
 * The workspace files a local server runs from: its command when it is a path, and every word of
 * its arguments and `env` values (a `--flag=value` word counts by its value) that names a regular
 * file inside `root` (links resolved), relative to the server's `cwd`. Sorted, relative to `root`.
 */
export function serverFiles(root: string, server: ProjectMcpServer): string[] {
  if (!("command" in server)) return [];
  const realRoot = _real(root) ?? root;
  const base = server.cwd ? resolve(root, server.cwd) : root;
  const words = [server.command, ...(server.args ?? []), ...Object.values(server.env ?? {}).flatMap((value) => value.split(/\s+/))];
  const found = new Set<string>();
  for (const word of words) {
    for (const candidate of [word, word.includes("=") ? word.slice(word.indexOf("=") + 1) : ""]) {
      if (!candidate || candidate.startsWith("-")) continue;
      const real = _real(resolve(base, candidate));
      if (!real || !_isFile(real)) continue;
      const inside = relative(realRoot, real);
      if (inside && !inside.startsWith("..") && !isAbsolute(inside)) found.add(inside.split("\\").join("/"));
    }
  }
  return [...found].sort();
}

function _real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function _isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function _fileSha(path: string): string {
  try {
    return contentHash(readFileSync(path));
  } catch {
    return "unreadable";
  }
}

/** Records that the user trusts this exact `.mcp.json`. */
export function trustProjectMcp(project: ProjectMcp): void {
  trustContent(project.root, ".mcp.json", project.sha256);
  project.trusted = true;
}

/** One server entry as another client wrote it (unknown keys dropped), or the reason it does not fit. */
export function readServerEntry(raw: unknown): ProjectMcpServer | string {
  const checked = v.safeParse(mcpServerSchema(), _pick(raw));
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
    current = JSON.parse(before) as Record<string, unknown>;
    trusted = readProjectMcp(root)?.trusted === true;
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw new Error(`${path} is not JSON; fix it before adding a server to it`);
  }
  const listed = current.mcpServers && typeof current.mcpServers === "object" ? (current.mcpServers as Record<string, unknown>) : {};
  const text = `${JSON.stringify({ ...current, mcpServers: { ...listed, [name]: server } }, null, 2)}\n`;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  const written = trusted ? readProjectMcp(root) : undefined;
  if (written) trustProjectMcp(written);
  return path;
}

/** The keys our config knows, so another agent's extras (comments, fields of clients we do not model) do not refuse the server. */
function _pick(raw: unknown): unknown {
  if (!raw || typeof raw !== "object") return raw;
  const record = raw as Record<string, unknown>;
  const known = mcpServerKeys();
  const keys = "url" in record ? known.url : "httpUrl" in record ? known.httpUrl : known.local;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (record[key] !== undefined) out[key] = record[key];
  return out;
}
