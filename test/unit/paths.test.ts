import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ensureStateDir, pathHash16, paths, stateDir } from "../../lib/platform/paths.ts";
import { useTempHome } from "./temp-home.ts";

describe("stateDir", () => {
  test("SHIRO_HOME replaces the home directory; the folder is always .shiro-neko", () => {
    expect(stateDir({ SHIRO_HOME: "/srv/shiro" })).toBe("/srv/shiro/.shiro-neko");
    expect(stateDir({})).toBe(join(homedir(), ".shiro-neko"));
    expect(stateDir({ SHIRO_HOME: "" })).toBe(join(homedir(), ".shiro-neko"));
  });
});

describe("pathHash16", () => {
  test("is the first 16 hex digits of the SHA-256 of the path", () => {
    expect(pathHash16("/work/project")).toBe(createHash("sha256").update("/work/project").digest("hex").slice(0, 16));
    expect(pathHash16("/work/project")).toMatch(/^[0-9a-f]{16}$/);
    expect(pathHash16("/work/project")).not.toBe(pathHash16("/work/project/"));
  });
});

describe("with SHIRO_HOME set", () => {
  const home = useTempHome("shiro-paths-");

  test("every state file sits at its documented place", () => {
    const s = join(home.dir, ".shiro-neko");
    const h = pathHash16("/work/project");
    expect({
      config: paths.config(),
      memoryDir: paths.memoryDir(),
      projectMemory: paths.projectMemory("/work/project"),
      globalMemory: paths.globalMemory(),
      projectEpisodes: paths.projectEpisodes("/work/project"),
      legacyProjectEpisodes: paths.legacyProjectEpisodes("/work/project"),
      memoryIndex: paths.memoryIndex("/work/project"),
      memoryVectors: paths.memoryVectors("/work/project"),
      sessionsDir: paths.sessionsDir(),
      session: paths.session("0190a0b1-c2d3-7e4f-8a5b-6c7d8e9f0a1b"),
      historyDir: paths.historyDir(),
      history: paths.history("/work/project"),
      runsDir: paths.runsDir(),
      run: paths.run("r1"),
      eventsDir: paths.eventsDir(),
      events: paths.events("r1"),
      approvals: paths.approvals(),
      requestsDir: paths.requestsDir(),
      cancelRequest: paths.cancelRequest("r1"),
      registryDir: paths.registryDir(),
      userSkillsDir: paths.userSkillsDir(),
    }).toEqual({
      config: `${s}/config.json`,
      memoryDir: `${s}/memory`,
      projectMemory: `${s}/memory/${h}.json`,
      globalMemory: `${s}/memory/global.json`,
      projectEpisodes: `${s}/memory/${h}.episodes.jsonl`,
      legacyProjectEpisodes: `${s}/memory/${h}.episodes.json`,
      memoryIndex: `${s}/memory/${h}.index`,
      memoryVectors: `${s}/memory/${h}.vectors.json`,
      sessionsDir: `${s}/sessions`,
      session: `${s}/sessions/0190a0b1-c2d3-7e4f-8a5b-6c7d8e9f0a1b.json`,
      historyDir: `${s}/history`,
      history: `${s}/history/${h}.json`,
      runsDir: `${s}/runs`,
      run: `${s}/runs/r1.json`,
      eventsDir: `${s}/events`,
      events: `${s}/events/r1.jsonl`,
      approvals: `${s}/approvals.json`,
      requestsDir: `${s}/requests`,
      cancelRequest: `${s}/requests/r1.cancel`,
      registryDir: `${s}/registry`,
      userSkillsDir: `${s}/skills`,
    });
  });

  test("paths follow a SHIRO_HOME changed at run time", () => {
    const other = join(home.dir, "elsewhere");
    process.env.SHIRO_HOME = other;
    expect(paths.config()).toBe(join(other, ".shiro-neko", "config.json"));
  });

  test("ensureStateDir creates the folder and its sub-folders as 0700", () => {
    const created = ensureStateDir("registry", "skills");
    expect(created).toBe(join(home.dir, ".shiro-neko", "registry", "skills"));
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect([mode(join(home.dir, ".shiro-neko")), mode(join(home.dir, ".shiro-neko", "registry")), mode(created)]).toEqual([0o700, 0o700, 0o700]);
    expect(ensureStateDir()).toBe(join(home.dir, ".shiro-neko"));
  });
});
