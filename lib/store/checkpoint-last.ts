/**
 * What the newest snapshot of a workspace left behind, so the next one can skip what did not
 * change: `checkpoints/<hash16>/last.json`, `{version: 1, index, at, tree, meta, metaJson}` —
 * the shadow index's checksum right after that snapshot, the second it started looking, its tree
 * and meta blob, and the meta blob's text. It is a cache: it counts only while the index is
 * byte-identical (same checksum), it is removed whenever git may have dropped its objects (a
 * prune) or the index is changed outside a snapshot, and a missing, torn or stale file costs one
 * full permission scan, nothing else. Replaced by a rename, 0600, by the snapshot holding the lock.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { readJson } from "../state-file/json-file.ts";
import type { ShadowRepo } from "./checkpoint-git.ts";

const _LastSchema = v.object({
  version: v.literal(1),
  index: v.string(),
  at: v.number(),
  tree: v.string(),
  meta: v.string(),
  metaJson: v.string(),
});

export type LastSnapshot = Omit<v.InferOutput<typeof _LastSchema>, "version">;

/** The last snapshot's record, when it describes the index whose checksum is `indexChecksum`. */
export function readLastSnapshot(repo: ShadowRepo, indexChecksum: string): LastSnapshot | undefined {
  if (indexChecksum === "") return undefined;
  const read = readJson(_file(repo), { schema: _LastSchema });
  if (read.status !== "ok" || read.value.index !== indexChecksum) return undefined;
  const { version: _, ...last } = read.value;
  return last;
}

/** Replaces the record (renamed into place; not synced to disk, as a cache need not be). */
export function writeLastSnapshot(repo: ShadowRepo, last: LastSnapshot): void {
  const temp = `${_file(repo)}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ version: 1, ...last }), { mode: 0o600 });
  renameSync(temp, _file(repo));
}

/** Forgets the last snapshot (its objects may be gone, or the index is about to change). */
export function forgetLastSnapshot(repo: ShadowRepo): void {
  rmSync(_file(repo), { force: true });
}

function _file(repo: ShadowRepo): string {
  return join(repo.dir, "last.json");
}
