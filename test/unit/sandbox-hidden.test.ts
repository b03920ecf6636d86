import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBwrapArgv } from "../../lib/sandbox/bwrap.ts";
import { HIDDEN_HOME_PATHS, hiddenPathList, resolveHiddenPaths } from "../../lib/sandbox/hidden-paths.ts";
import { buildSeatbeltArgv, buildSeatbeltProfile } from "../../lib/sandbox/seatbelt.ts";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
const temp = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "shiro-hidden-")));
  dirs.push(dir);
  return dir;
};

describe("hidden paths", () => {
  test("the list: every default under HOME, both state folders, then config hidePaths", () => {
    const list = hiddenPathList(["~/private", "/srv/keys"], { HOME: "/h", SHIRO_HOME: "/s" });
    expect(list).toEqual([...HIDDEN_HOME_PATHS.map((path) => `/h/${path}`), "/h/.shiro-neko", "/s/.shiro-neko", "~/private", "/srv/keys"]);
    expect(list).toContain("/h/.ssh");
    expect(list).toContain("/h/.config/gh");
  });

  test("resolved: existing only, real paths, relative to the workspace, never one holding the workspace", () => {
    const home = temp();
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".netrc"), "x");
    mkdirSync(join(home, "real-aws"));
    symlinkSync(join(home, "real-aws"), join(home, ".aws"));
    const workspace = join(home, "work");
    mkdirSync(join(workspace, "secrets"), { recursive: true });
    const env = { HOME: home, SHIRO_HOME: home };
    const list = [...hiddenPathList([], env), "~/missing", "~", home, "secrets", join(home, ".ssh")];
    expect(resolveHiddenPaths(list, workspace, env)).toEqual([join(home, ".ssh"), join(home, "real-aws"), join(home, ".netrc"), join(workspace, "secrets")]);
  });

  test("bwrap: a folder gets a read-only tmpfs, a file /dev/null, after the workspace is bound", () => {
    const home = temp();
    mkdirSync(join(home, ".ssh"));
    writeFileSync(join(home, ".netrc"), "x");
    const argv = buildBwrapArgv("bwrap", { mode: "workspace-write", network: false, hide: [join(home, ".ssh"), join(home, ".netrc")] }, home, ["true"], 1000);
    const at = argv.indexOf("--tmpfs", argv.indexOf("/tmp") + 1);
    expect(argv.slice(at, at + 7)).toEqual(["--tmpfs", join(home, ".ssh"), "--remount-ro", join(home, ".ssh"), "--ro-bind", "/dev/null", join(home, ".netrc")]);
    expect(argv.indexOf("--bind")).toBeLessThan(at);
  });

  test("seatbelt: reads denied through HIDE parameters, never spliced into the profile", () => {
    expect(buildSeatbeltProfile({ mode: "read-only", network: false, hide: ["/a", '/b") (allow'] })).toContain(
      '(deny file-read* (subpath (param "HIDE0")) (subpath (param "HIDE1")))',
    );
    const argv = buildSeatbeltArgv("sandbox-exec", { mode: "read-only", network: false, hide: ["/a"] }, "/", "/tmp", ["true"]);
    expect(argv).toContain("HIDE0=/a");
  });
});
