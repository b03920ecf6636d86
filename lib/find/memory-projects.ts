/**
 * The projects shiro keeps notes or episodes about, for `shiro search --all`: memory files are
 * keyed by a hash of the project root (lib/platform/paths.ts), and each file records its root in
 * its `project` field (`memory/<hash16>.json`, the header line of `memory/<hash16>.episodes.jsonl`,
 * an older `memory/<hash16>.episodes.json`). Reads only; a
 * file that is unreadable, not JSON or names no root is skipped (the store reports it when opened).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../platform/paths.ts";

const _PROJECT_FILE = /^[0-9a-f]{16}(?:\.episodes)?\.jsonl?$/;

/** Every project root with a notes or episodes file, sorted, each once. */
export function listMemoryProjects(): string[] {
  const dir = paths.memoryDir();
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => _PROJECT_FILE.test(name));
  } catch {
    return [];
  }
  const roots = new Set<string>();
  for (const name of names) {
    const root = _readProjectRoot(join(dir, name));
    if (root) roots.add(root);
  }
  return [...roots].sort();
}

function _readProjectRoot(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8");
    // An episode log names its project in its first line (lib/store/episodes.ts).
    const record = JSON.parse(file.endsWith(".jsonl") ? text.slice(0, text.indexOf("\n") >>> 0) : text) as { project?: unknown };
    return typeof record?.project === "string" && record.project ? record.project : undefined;
  } catch {
    return undefined;
  }
}
