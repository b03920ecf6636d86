/**
 * The release index, `release.json`, published beside the artifacts. Installers in the field and
 * older binaries' `shiro update` read it, so its format is hard to change: fields may be added,
 * none removed or renamed; a breaking change needs a new `format` number (docs/release.md).
 *
 *   { "format": 1, "product": "shiro-neko", "version": "0.2.0", "commit": "<40 hex>[-dirty]",
 *     "date": "2026-12-01T10:00:00.000Z",
 *     "artifacts": [ { "file": "shiro-linux-x64.tar.gz", "target": "linux-x64", "kind": "archive",
 *                      "size": 55489958, "sha256": "<64 hex>" }, … ] }
 *
 * `artifacts` is sorted by `file`; each target has a `binary` and an `archive` entry.
 */
import * as v from "valibot";

export const INDEX_FORMAT = 1;

const ArtifactSchema = v.object({
  file: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name")),
  target: v.string(),
  kind: v.picklist(["binary", "archive"]),
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits")),
});

const IndexSchema = v.object({
  format: v.literal(INDEX_FORMAT, `must be ${INDEX_FORMAT}`),
  product: v.string(),
  version: v.pipe(v.string(), v.regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, "must be a version like 1.2.3")),
  commit: v.string(),
  date: v.string(),
  artifacts: v.array(ArtifactSchema),
});

export type ReleaseArtifact = v.InferOutput<typeof ArtifactSchema>;
export type ReleaseIndex = v.InferOutput<typeof IndexSchema>;

/** Parses release.json text; throws an Error naming the first problem (`where` names the source). */
export function parseReleaseIndex(text: string, where: string): ReleaseIndex {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${where} is not JSON; is the release base right?`);
  }
  if (data && typeof data === "object" && "format" in data && data.format !== INDEX_FORMAT && typeof data.format === "number") {
    throw new Error(`${where} has index format ${data.format}, newer than this shiro reads (${INDEX_FORMAT}); reinstall with install.sh`);
  }
  const result = v.safeParse(IndexSchema, data);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue.path?.map((item) => String(item.key)).join(".") ?? "";
    throw new Error(`${where} is not a release index: ${path ? `${path} ` : ""}${issue.message}`);
  }
  return result.output;
}

/** The artifact of `kind` for `target`, if the release has one. */
export function findArtifact(index: ReleaseIndex, target: string, kind: ReleaseArtifact["kind"]): ReleaseArtifact | undefined {
  return index.artifacts.find((artifact) => artifact.target === target && artifact.kind === kind);
}

/**
 * Orders `major.minor.patch[-pre]` versions: negative when a < b. A pre-release sorts before its
 * release; pre-release parts compare numerically when both are numbers, else as text.
 */
export function compareVersions(a: string, b: string): number {
  const [coreA = "", preA] = _split(a);
  const [coreB = "", preB] = _split(b);
  const numsA = coreA.split(".").map(Number);
  const numsB = coreB.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (numsA[i] ?? 0) - (numsB[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  const partsA = preA.split(".");
  const partsB = preB.split(".");
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const [x, y] = [partsA[i], partsB[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const numeric = /^\d+$/.test(x) && /^\d+$/.test(y);
    return numeric ? Math.sign(Number(x) - Number(y)) : x < y ? -1 : 1;
  }
  return 0;
}

function _split(version: string): [string, string | undefined] {
  const dash = version.indexOf("-");
  return dash < 0 ? [version, undefined] : [version.slice(0, dash), version.slice(dash + 1)];
}
