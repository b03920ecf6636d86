/**
 * A fresh, empty SHIRO_HOME for every test of the file (or describe block) that calls
 * `useTempHome`: before each test a new temp folder is made and SHIRO_HOME points at it; after
 * each test the previous SHIRO_HOME comes back and the folder is removed. Bun runs afterEach
 * hooks in the order they were registered: cleanup that must run while the folder still exists
 * is registered before calling this.
 */
import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempHome {
  /** The current test's SHIRO_HOME (the state folder is `<dir>/.shiro-neko`). */
  readonly dir: string;
}

export function useTempHome(prefix: string): TempHome {
  let dir = "";
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.SHIRO_HOME;
    dir = mkdtempSync(join(tmpdir(), prefix));
    process.env.SHIRO_HOME = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.SHIRO_HOME;
    else process.env.SHIRO_HOME = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
  };
}
