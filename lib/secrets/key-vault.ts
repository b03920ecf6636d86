/**
 * Where provider keys live once shiro has started: in this module, not in the process environment.
 *
 * `sealKeys(names)` moves each named variable out of `process.env` into the vault, then blanks it in
 * the process's initial environment block too. That block is what `/proc/<pid>/environ` shows (the
 * kernel reads it from the process's own memory between `env_start` and `env_end` of
 * `/proc/self/stat`), and deleting from `process.env` leaves it as it was; so on Linux the bytes of
 * every `NAME=value` sealed are overwritten with NULs through `/proc/self/mem`, which a process may
 * always write for itself. Nothing is spawned and no file is written. Where `/proc` is missing
 * (macOS, Windows) or refuses the write, only `process.env` is cleaned: `sealKeys` reports whether
 * the environment block was blanked.
 *
 * `sealedEnv(env)` is `env` with the sealed keys put back: what configuration resolution reads.
 * Sealing is idempotent and may be called again with more names (a config's `*apiKeyEnv`).
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

const _vault = new Map<string, string>();

export interface SealResult {
  /** Names moved out of `process.env` by this call. */
  sealed: string[];
  /** True when the initial environment block holds none of the sealed names any more (Linux). */
  blanked: boolean;
}

/** Moves `names` from `process.env` into the vault and blanks them in `/proc/self/environ`. */
export function sealKeys(names: readonly string[]): SealResult {
  const sealed: string[] = [];
  for (const name of new Set(names)) {
    const value = process.env[name];
    if (value === undefined) continue;
    _vault.set(name, value);
    delete process.env[name];
    sealed.push(name);
  }
  return { sealed, blanked: _blankInitialEnvironment([..._vault.keys()]) };
}

/** A sealed key's value, or undefined. */
export function sealedKey(name: string): string | undefined {
  return _vault.get(name);
}

/** `env` with every sealed key put back (the process environment as it was before sealing). */
export function sealedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return _vault.size === 0 ? env : { ...env, ...Object.fromEntries(_vault) };
}

/** The sealed keys: for a shiro that starts another shiro (a detached run), which seals them again. */
export function sealedKeys(): Record<string, string> {
  return Object.fromEntries(_vault);
}

function _blankInitialEnvironment(names: readonly string[]): boolean {
  if (process.platform !== "linux" || names.length === 0) return names.length === 0;
  let fd: number | undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    // Fields after the parenthesised command name; env_start and env_end are fields 50 and 51.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 1 << 24) return false;
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    let at = 0;
    while (at < block.length) {
      const stop = block.indexOf(0, at) === -1 ? block.length : block.indexOf(0, at);
      const entry = block.toString("latin1", at, stop);
      const name = entry.slice(0, entry.indexOf("="));
      if (entry.includes("=") && names.includes(name)) writeSync(fd, Buffer.alloc(stop - at), 0, stop - at, start + at);
      at = stop + 1;
    }
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
