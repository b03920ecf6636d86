/** The whole state of a folder as data — every entry's kind, permission bits, bytes or link target — for before/after comparisons. */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

export interface EntryState {
  path: string;
  kind: "file" | "dir" | "link";
  mode: string;
  content?: string;
}

/** Every entry under `root`, sorted, `.git` left out unless `withGit`. */
export function treeState(root: string, options: { withGit?: boolean } = {}): EntryState[] {
  const out: EntryState[] = [];
  const visit = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (name === ".git" && !options.withGit) continue;
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(root, path));
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isSymbolicLink()) out.push({ path, kind: "link", mode: "", content: readlinkSync(join(root, path)) });
      else if (stat.isDirectory()) {
        out.push({ path, kind: "dir", mode });
        visit(path);
      } else out.push({ path, kind: "file", mode, content: readFileSync(join(root, path)).toString("base64") });
    }
  };
  visit("");
  return out;
}
