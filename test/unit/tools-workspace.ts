/** Temp workspaces for the file-system tool tests: create files, run a tool as the loop would, snapshot bytes. */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as v from "valibot";
import type { ToolDefinition } from "../../lib/tools/types.ts";

export interface Workspace {
  root: string;
  write(rel: string, content: string | Uint8Array): void;
  read(rel: string): string;
  /** Every file under the root (posix path → base64 bytes; symlinks as `-> target`), for byte-identity checks. */
  snapshot(): Record<string, string>;
  remove(): void;
}

export function makeWorkspace(files: Record<string, string | Uint8Array> = {}, prefix = "shiro-tools-"): Workspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const ws: Workspace = {
    root,
    write(rel, content) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), content);
    },
    read: (rel) => readFileSync(join(root, rel), "utf8"),
    snapshot: () => _snapshot(root, ""),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
  for (const [rel, content] of Object.entries(files)) ws.write(rel, content);
  return ws;
}

/** Validates `input` with the tool's schema (defaults applied), then runs it in `root`. */
export async function runTool(tool: ToolDefinition, input: unknown, root: string, signal = new AbortController().signal): Promise<string> {
  const parsed = v.parse(tool.schema, input);
  return tool.execute(parsed, { root, signal, emitOutput: () => {}, callId: "call-1" });
}

/** The message a rejected promise (a tool run, a fetch) carries; fails the test when it resolves. */
export async function errorOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the promise to reject");
}

function _snapshot(root: string, rel: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const info = lstatSync(join(root, path));
    if (info.isDirectory()) {
      out[`${path}/`] = "";
      Object.assign(out, _snapshot(root, path));
    } else out[path] = info.isSymbolicLink() ? "-> link" : readFileSync(join(root, path)).toString("base64");
  }
  return out;
}
