#!/usr/bin/env bun
/**
 * `bun run release`: builds every release target from this machine into dist/release/ — each
 * binary, its archive (tar.gz, or zip for Windows), SHA256SUMS, the release index (release.json,
 * lib/release/release-index.ts) and the two installers. `bun run build` runs it with `--dev`: one
 * native binary at dist/shiro.
 *
 *   bun .ci/release/build.ts [--targets linux-x64,darwin-arm64] [--out DIR] [--version 1.2.3]
 *   bun .ci/release/build.ts --dev [--outfile dist/shiro]
 *
 * Reproducible: the date embedded and written to the index is SOURCE_DATE_EPOCH, else the date of
 * the commit, so building one commit twice gives the same bytes (archives carry that date as
 * mtime, entries in a fixed order); the output names are fixed because Bun embeds them.
 * Build tooling, not runtime: it may use Bun.* and run only under Bun.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import pkg from "../../package.json" with { type: "json" };
import { INDEX_FORMAT, type ReleaseArtifact, type ReleaseIndex } from "../../lib/release/release-index.ts";
import { writeTar } from "../../lib/release/tar.ts";
import {
  INDEX_FILE,
  RELEASE_TARGETS,
  SUMS_FILE,
  archiveEntryName,
  archiveFileName,
  binaryFileName,
  findTarget,
  type ReleaseTarget,
} from "../../lib/release/targets.ts";
import { PRODUCT } from "../../lib/platform/version.ts";
import { builtinSkillHeaders } from "../../lib/skills/skills.ts";
import { bakeToolSchemas } from "./tool-schemas.ts";
import { writeZip } from "./zip.ts";

const ROOT = resolve(import.meta.dir, "../..");
const ENTRY = "cmd/shiro.ts";
// `--compile-jit-policy=16`: the JIT's tier-up thresholds times 16 until the front end calls
// useNormalJitPolicy (lib/platform/runtime.ts). A `-p` turn runs most of its code once; compiling the
// few hundred calls of a recall ranking took the second core from the first request (docs/development.md).
const BUILD_FLAGS = ["build", "--compile", "--minify", "--bytecode", "--splitting", "--format=esm", "--compile-jit-policy=16"];

export interface ReleaseOptions {
  targets: ReleaseTarget[];
  out: string;
  version: string;
}

interface Stamp {
  commit: string;
  date: string;
}

/** What writes one target's binary to `outfile`, stamped with `defines`; `bun build --compile` unless a test brings a stand-in. */
export type CompileTarget = (target: ReleaseTarget, outfile: string, defines: BuildDefines) => void;

export interface BuildDefines {
  version: string;
  commit: string;
  date: string;
  target: string;
}

/** Builds the release into `options.out` (emptied first) and returns its index. */
export function buildRelease(
  options: ReleaseOptions,
  compile: CompileTarget = (target, outfile, defines) => _compile(target.bunTarget, outfile, defines),
): ReleaseIndex {
  const stamp = _releaseStamp();
  rmSync(options.out, { recursive: true, force: true });
  mkdirSync(options.out, { recursive: true });
  const artifacts: ReleaseArtifact[] = [];
  for (const target of options.targets) {
    const started = performance.now();
    const binaryPath = join(options.out, binaryFileName(target));
    compile(target, binaryPath, { version: options.version, ...stamp, target: target.name });
    const binary = readFileSync(binaryPath);
    const archive = _archive(target, binary, Math.floor(Date.parse(stamp.date) / 1000));
    writeFileSync(join(options.out, archiveFileName(target)), archive);
    artifacts.push(_artifact(binaryFileName(target), target, "binary", binary), _artifact(archiveFileName(target), target, "archive", archive));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(`built ${binaryFileName(target)} (${_mb(binary.length)}), ${archiveFileName(target)} (${_mb(archive.length)}) in ${seconds}s\n`);
  }
  for (const script of ["install.sh", "install.ps1"]) copyFileSync(join(ROOT, ".ci", "release", script), join(options.out, script));
  artifacts.sort((a, b) => (a.file < b.file ? -1 : 1));
  const sums = [...artifacts.map((a) => ({ file: a.file, sha256: a.sha256 })), ..._scriptSums(options.out)].sort((a, b) => (a.file < b.file ? -1 : 1));
  writeFileSync(join(options.out, SUMS_FILE), sums.map((s) => `${s.sha256}  ${s.file}\n`).join(""));
  const index: ReleaseIndex = { format: INDEX_FORMAT, product: PRODUCT, version: options.version, commit: stamp.commit, date: stamp.date, artifacts };
  writeFileSync(join(options.out, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
  return index;
}

/** The native dev build `bun run build` makes: stamped with the commit and the time now. */
export function buildDev(outfile: string): void {
  _compile(undefined, outfile, { version: pkg.version, commit: _commit(), date: new Date().toISOString(), target: "" });
}

function _compile(bunTarget: string | undefined, outfile: string, defines: BuildDefines): void {
  const args = [...BUILD_FLAGS, ...(bunTarget ? [`--target=${bunTarget}`] : [])];
  for (const [key, value] of Object.entries(defines)) args.push("--define", `SHIRO_BUILD_${key.toUpperCase()}=${JSON.stringify(value)}`);
  // Shiro's own tools' JSON Schemas, converted here once instead of at every start (lib/tools/schema.ts).
  args.push("--define", `SHIRO_TOOL_SCHEMAS=${JSON.stringify(bakeToolSchemas())}`);
  // The compiled-in skills' names and descriptions, read here once (lib/skills/skills.ts).
  args.push("--define", `SHIRO_BUILTIN_SKILLS=${JSON.stringify(builtinSkillHeaders())}`);
  args.push(ENTRY, "--outfile", outfile);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) {
    throw new Error(`bun build${bunTarget ? ` --target=${bunTarget}` : ""} failed:\n${result.stdout}${result.stderr}`);
  }
}

function _archive(target: ReleaseTarget, binary: Buffer, mtimeSeconds: number): Buffer {
  if (target.os === "windows") return writeZip([{ name: archiveEntryName(target), data: binary }]);
  return gzipSync(writeTar([{ name: archiveEntryName(target), data: binary, mode: 0o755 }], mtimeSeconds));
}

function _artifact(file: string, target: ReleaseTarget, kind: ReleaseArtifact["kind"], bytes: Buffer): ReleaseArtifact {
  return { file, target: target.name, kind, size: bytes.length, sha256: _sha256(bytes) };
}

function _scriptSums(out: string): { file: string; sha256: string }[] {
  return ["install.sh", "install.ps1"].map((file) => ({ file, sha256: _sha256(readFileSync(join(out, file))) }));
}

function _releaseStamp(): Stamp {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && !/^\d+$/.test(epoch)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not "${epoch}"`);
  const seconds = epoch ?? _git(["log", "-1", "--format=%ct", "HEAD"]) ?? "0";
  return { commit: _commit(), date: new Date(Number(seconds) * 1000).toISOString() };
}

function _commit(): string {
  const head = _git(["rev-parse", "HEAD"]);
  if (!head) return "unknown";
  return _git(["status", "--porcelain", "--untracked-files=no"]) ? `${head}-dirty` : head;
}

function _git(args: string[]): string | undefined {
  const result = spawnSync("git", args, { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function _sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function _mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function _parseArgs(argv: string[]): { dev: boolean; outfile: string; release: ReleaseOptions } {
  let dev = false;
  let outfile = join(ROOT, "dist", "shiro");
  const release: ReleaseOptions = { targets: [...RELEASE_TARGETS], out: join(ROOT, "dist", "release"), version: pkg.version };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === "--dev") dev = true;
    else if (flag === "--outfile") outfile = resolve(value());
    else if (flag === "--out") release.out = resolve(value());
    else if (flag === "--version") release.version = value();
    else if (flag === "--targets") release.targets = value().split(",").map(_target);
    else throw new Error(`unknown option ${flag}; see the comment at the top of .ci/release/build.ts`);
  }
  return { dev, outfile, release };
}

function _target(name: string): ReleaseTarget {
  const target = findTarget(name.trim());
  if (!target) throw new Error(`unknown target "${name}"; known: ${RELEASE_TARGETS.map((t) => t.name).join(", ")}`);
  return target;
}

if (import.meta.main) {
  try {
    const { dev, outfile, release } = _parseArgs(process.argv.slice(2));
    if (dev) buildDev(outfile);
    else {
      const index = buildRelease(release);
      process.stderr.write(`release ${index.version} (${index.commit.slice(0, 12)}, ${index.date}): ${index.artifacts.length} artifacts in ${release.out}\n`);
    }
  } catch (error) {
    process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
