/**
 * A fresh, empty SHIRO_HOME for every test of the file (or describe block) that calls
 * `useTempHome`: before each test a new temp folder is made and SHIRO_HOME and HOME point at it
 * (so a login shell the agent starts, git and anything reading `~` see no file of the machine's
 * user); after each test the previous values come back and the folder is removed. Bun runs afterEach
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
  let saved: Record<"SHIRO_HOME" | "HOME", string | undefined> = { SHIRO_HOME: undefined, HOME: undefined };
  beforeEach(() => {
    saved = { SHIRO_HOME: process.env.SHIRO_HOME, HOME: process.env.HOME };
    dir = mkdtempSync(join(tmpdir(), prefix));
    process.env.SHIRO_HOME = dir;
    process.env.HOME = dir;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
  };
}
