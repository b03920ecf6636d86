/**
 * Self-update of an installed binary (`shiro update`). Reads release.json from the release base,
 * compares versions, downloads this binary's archive, verifies its size and sha256 against the
 * index, and swaps it in: the new binary is written beside the running one, must answer
 * `--version` with the new version, and only then is renamed over it (atomic on one filesystem;
 * on Windows, where a running .exe cannot be replaced, the old one is renamed aside first and
 * restored if the swap fails). Until that rename the installed binary is untouched.
 *
 * Every download is capped: release.json at INDEX_MAX_BYTES, an artifact at the size the index
 * gives it (and never past ARTIFACT_MAX_BYTES). A body that runs past its cap is cut off as it
 * streams in, so an endless or huge answer costs at most the cap in memory and fails in one line.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, fstatSync, openSync, readSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { UserError } from "../platform/errors.ts";
import { sha256Hex } from "../platform/sha256.ts";
import { PRODUCT, VERSION } from "../platform/version.ts";
import { compareVersions, findArtifact, parseReleaseIndex, type ReleaseIndex } from "./release-index.ts";
import { readTarFile } from "./tar.ts";
import { DEFAULT_RELEASE_BASE, INDEX_FILE, archiveEntryName, findTarget } from "./targets.ts";

export interface UpdateCheck {
  base: string;
  current: string;
  latest: string;
  /** True when the release is newer than this binary. */
  newer: boolean;
  index: ReleaseIndex;
}

export interface UpdateResult {
  from: string;
  to: string;
  path: string;
}

/** The most of release.json `shiro update` reads: a real index is a few KiB. */
export const INDEX_MAX_BYTES = 1024 * 1024;
/** The most of any artifact it reads, whatever size the index claims. */
export const ARTIFACT_MAX_BYTES = 512 * 1024 * 1024;

/** The release base: SHIRO_INSTALL_BASE, else config's `update.base`, else the project's releases. */
export function resolveReleaseBase(env: NodeJS.ProcessEnv, configured?: string): string {
  return (env.SHIRO_INSTALL_BASE || configured || DEFAULT_RELEASE_BASE).replace(/\/+$/, "");
}

/** Reads the release index at `base` and compares it with `current`. Throws UserError when unreachable or malformed. */
export async function checkForUpdate(base: string, current = VERSION): Promise<UpdateCheck> {
  const where = `${base}/${INDEX_FILE}`;
  const text = (await _download(where, 30_000, INDEX_MAX_BYTES)).toString("utf8");
  let index: ReleaseIndex;
  try {
    index = parseReleaseIndex(text, where);
  } catch (error) {
    throw new UserError((error as Error).message);
  }
  return { base, current, latest: index.version, newer: compareVersions(index.version, current) > 0, index };
}

/**
 * Replaces the binary at `execPath` (symlinks resolved) with `target`'s build from `check.index`.
 * Throws UserError, leaving the installed binary as it was, when anything does not verify.
 */
export async function applyUpdate(check: UpdateCheck, options: { execPath: string; target: string }): Promise<UpdateResult> {
  const target = findTarget(options.target);
  if (!target) throw new UserError(`this binary does not name its release target ("${options.target}"); reinstall with install.sh`);
  const wantsArchive = target.os !== "windows";
  const artifact = findArtifact(check.index, target.name, wantsArchive ? "archive" : "binary");
  if (!artifact) throw new UserError(`release ${check.latest} at ${check.base} has no build for ${target.name}`);
  const bytes = await _download(`${check.base}/${artifact.file}`, 600_000, Math.min(artifact.size, ARTIFACT_MAX_BYTES));
  const sha256 = sha256Hex(bytes);
  if (bytes.length !== artifact.size || sha256 !== artifact.sha256) {
    throw new UserError(`checksum mismatch for ${artifact.file} (expected ${artifact.sha256}, got ${sha256}); kept shiro ${check.current}`);
  }
  const binary = wantsArchive ? _extract(bytes, archiveEntryName(target), artifact.file) : bytes;
  const path = realpathSync(options.execPath);
  const staged = join(dirname(path), `.${basename(path)}.update-${process.pid}${target.os === "windows" ? ".exe" : ""}`);
  try {
    writeFileSync(staged, binary, { mode: 0o755 });
    chmodSync(staged, 0o755);
  } catch (error) {
    rmSync(staged, { force: true });
    throw new UserError(
      `cannot write beside ${path} (${(error as NodeJS.ErrnoException).code ?? "error"}); reinstall with install.sh --dir <a folder you own>`,
    );
  }
  try {
    _checkAnswers(staged, check.latest);
    _swap(staged, path, target.os === "windows");
  } catch (error) {
    rmSync(staged, { force: true });
    throw error;
  }
  return { from: check.current, to: check.latest, path };
}

function _extract(archive: Buffer, entry: string, file: string): Buffer {
  let binary: Buffer | undefined;
  try {
    binary = readTarFile(gunzipSync(archive), entry);
  } catch {
    binary = undefined;
  }
  if (!binary) throw new UserError(`${file} does not hold ${entry}; kept the installed shiro`);
  return binary;
}

function _checkAnswers(staged: string, version: string): void {
  const result = spawnSync(staged, ["--version"], { encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] });
  const answer = (result.stdout ?? "").trim();
  if (result.status !== 0 || !answer.startsWith(`${PRODUCT} ${version} `)) {
    const said = answer || (result.stderr ?? "").trim().split("\n")[0] || result.error?.message || `exit ${result.status}`;
    throw new UserError(`the downloaded shiro ${version} did not answer --version (${said}); kept the installed one`);
  }
}

function _swap(staged: string, path: string, windows: boolean): void {
  if (!windows) {
    renameSync(staged, path);
    return;
  }
  const aside = `${path}.old`;
  rmSync(aside, { force: true });
  renameSync(path, aside);
  try {
    renameSync(staged, path);
  } catch (error) {
    renameSync(aside, path);
    throw error;
  }
}

/** The bytes at `source` (http(s), file:// or a path), refused past `maxBytes` as they arrive. */
async function _download(source: string, timeoutMs: number, maxBytes: number): Promise<Buffer> {
  const tooBig = () =>
    new UserError(`${source} is larger than ${maxBytes} bytes, more than a release holds; check SHIRO_INSTALL_BASE or update.base in config`);
  if (!/^https?:\/\//.test(source)) {
    const path = source.startsWith("file://") ? new URL(source).pathname : source;
    return _readCapped(path, maxBytes, tooBig);
  }
  let response: Response;
  try {
    response = await fetch(source, { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
  } catch (error) {
    throw new UserError(`cannot reach ${source} (${(error as Error).message}); check the network or SHIRO_INSTALL_BASE`);
  }
  if (!response.ok) throw new UserError(`${source} answered HTTP ${response.status}; check SHIRO_INSTALL_BASE or update.base in config`);
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooBig();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`reading ${source} failed (${(error as Error).message}); check the network or SHIRO_INSTALL_BASE`);
  }
  return Buffer.concat(chunks, total);
}

function _readCapped(path: string, maxBytes: number, tooBig: () => UserError): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    throw new UserError(`cannot read ${path}; check SHIRO_INSTALL_BASE or update.base in config`);
  }
  try {
    if (fstatSync(fd).size > maxBytes) throw tooBig();
    const buffer = Buffer.alloc(maxBytes + 1 > 64 * 1024 * 1024 ? 64 * 1024 * 1024 : maxBytes + 1);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      total += read;
      if (total > maxBytes) throw tooBig();
      chunks.push(Buffer.from(buffer.subarray(0, read)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}
