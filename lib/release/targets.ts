/**
 * The release targets: which binaries `bun run release` builds, what they and their archives are
 * called, and where releases live. The names are a public contract (the installers, the release
 * index and users' scripts spell them): add targets, never rename one.
 */

/** Where `install.sh`, `install.ps1` and `shiro update` look for a release unless told otherwise. */
export const DEFAULT_RELEASE_BASE = "https://github.com/shiro-neko/shiro/releases/latest/download";
/** The release index (docs/release.md describes its format). */
export const INDEX_FILE = "release.json";
export const SUMS_FILE = "SHA256SUMS";

export type ReleaseOs = "linux" | "darwin" | "windows";
export type ReleaseArch = "x64" | "arm64";
/** What the first bytes of the binary must say (checked by the release tests). */
export type BinaryFormat = "elf-x86-64" | "elf-aarch64" | "macho-x86_64" | "macho-arm64" | "pe32+-x64";

export interface ReleaseTarget {
  /** `<os>-<arch>[-variant]`: the artifact names are `shiro-<name>[.exe]` and its archive. */
  name: string;
  /** Bun's `--target` for it. */
  bunTarget: string;
  os: ReleaseOs;
  arch: ReleaseArch;
  /** `baseline`: x64 CPUs without AVX2; `musl`: musl libc (Alpine). */
  variant?: "baseline" | "musl";
  format: BinaryFormat;
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", os: "linux", arch: "x64", format: "elf-x86-64" },
  { name: "linux-x64-baseline", bunTarget: "bun-linux-x64-baseline", os: "linux", arch: "x64", variant: "baseline", format: "elf-x86-64" },
  { name: "linux-x64-musl", bunTarget: "bun-linux-x64-musl", os: "linux", arch: "x64", variant: "musl", format: "elf-x86-64" },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", os: "linux", arch: "arm64", format: "elf-aarch64" },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", os: "darwin", arch: "x64", format: "macho-x86_64" },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", os: "darwin", arch: "arm64", format: "macho-arm64" },
  { name: "windows-x64", bunTarget: "bun-windows-x64", os: "windows", arch: "x64", format: "pe32+-x64" },
];

export function findTarget(name: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((target) => target.name === name);
}

/** `shiro-linux-x64`, `shiro-windows-x64.exe`. */
export function binaryFileName(target: ReleaseTarget): string {
  return `shiro-${target.name}${target.os === "windows" ? ".exe" : ""}`;
}

/** `shiro-linux-x64.tar.gz`, `shiro-windows-x64.zip`. */
export function archiveFileName(target: ReleaseTarget): string {
  return `shiro-${target.name}.${target.os === "windows" ? "zip" : "tar.gz"}`;
}

/** The one file inside the archive: `shiro`, or `shiro.exe` on Windows. */
export function archiveEntryName(target: ReleaseTarget): string {
  return target.os === "windows" ? "shiro.exe" : "shiro";
}
