/**
 * The product version and what the build embedded. `bun run build` and `bun run release`
 * (.ci/release/build.ts) pass `--define SHIRO_BUILD_*` values; a source run has none of them, and
 * reads the version from package.json.
 */
import pkg from "../../package.json" with { type: "json" };

declare const SHIRO_BUILD_VERSION: string | undefined;
declare const SHIRO_BUILD_COMMIT: string | undefined;
declare const SHIRO_BUILD_DATE: string | undefined;
declare const SHIRO_BUILD_TARGET: string | undefined;

/** The product version: package.json's, unless the build set another one. */
export const VERSION: string = typeof SHIRO_BUILD_VERSION === "string" ? SHIRO_BUILD_VERSION : pkg.version;
export const PRODUCT = "shiro-neko";

/** Set in a binary built by .ci/release/build.ts; undefined in a source run. */
export interface BuildInfo {
  /** The git commit (full hash, `-dirty` appended when the tree had changes). */
  commit: string;
  /** ISO 8601 UTC: the release date (the commit's date unless SOURCE_DATE_EPOCH), or the build time of a dev build. */
  date: string;
  /** The release target this binary was built for (`linux-x64-musl`, …), or "" for a native dev build. */
  target: string;
}

export const BUILD: BuildInfo | undefined =
  typeof SHIRO_BUILD_COMMIT === "string"
    ? {
        commit: SHIRO_BUILD_COMMIT,
        date: typeof SHIRO_BUILD_DATE === "string" ? SHIRO_BUILD_DATE : "",
        target: typeof SHIRO_BUILD_TARGET === "string" ? SHIRO_BUILD_TARGET : "",
      }
    : undefined;

/** `0.1.0 (9f12180 2026-12-01)` in a built binary, `0.1.0` from source. */
export function describeVersion(): string {
  if (!BUILD) return VERSION;
  return `${VERSION} (${BUILD.commit.slice(0, 7)}${BUILD.commit.endsWith("-dirty") ? "-dirty" : ""} ${BUILD.date.slice(0, 10)})`;
}
