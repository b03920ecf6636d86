import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "seal-keys.ts");

describe("sealKeys", () => {
  test.skipIf(process.platform !== "linux")(
    "moves the keys out of process.env and blanks them in /proc/self/environ; other variables stay; passEnv gets a sealed key back",
    () => {
      const run = spawnSync(process.execPath, [FIXTURE, "OPENAI_API_KEY", "SHIRO_API_KEY", "EMBED_TOKEN", "NOT_SET"], {
        env: {
          PATH: process.env.PATH,
          SHIRO_HOME: "/nonexistent-shiro-home",
          OPENAI_API_KEY: "sk-a",
          SHIRO_API_KEY: "sk-b",
          EMBED_TOKEN: "e",
          KEEP_ME: "still-here",
          MY_OPENAI_API_KEY: "not-a-key",
          NOTE: "OPENAI_API_KEY=in-a-value",
        },
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        result: { sealed: ["OPENAI_API_KEY", "SHIRO_API_KEY", "EMBED_TOKEN"], blanked: true },
        before: ["OPENAI_API_KEY", "SHIRO_API_KEY", "EMBED_TOKEN"],
        after: [],
        env: [],
        sealedEnv: ["OPENAI_API_KEY", "SHIRO_API_KEY", "EMBED_TOKEN"],
        passed: ["OPENAI_API_KEY"],
        kept: true,
        lookalikes: ["MY_OPENAI_API_KEY=not-a-key", "NOTE=OPENAI_API_KEY=in-a-value"],
      });
    },
  );
});
