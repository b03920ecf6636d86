import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { grepTool } from "../../lib/tools/grep.ts";
import { findRipgrep } from "../../lib/tools/grep-run.ts";
import { hostDescribe, hostPackage, hostTest } from "../host-packages.ts";
import { errorOf, makeWorkspace, runTool, type Workspace } from "./tools-workspace.ts";

const ws = makeWorkspace({
  ".gitignore": "dist/\n",
  ".shiroignore": "fixtures/\n",
  "src/a.ts": "import { x } from './x';\n  export const Hello = 1;   \nconst other = 2;\n",
  "src/b.js": "hello from js\n",
  "src/.hidden.ts": "hello hidden\n",
  "src/nested/.shiroignore": "skip.ts\n",
  "src/nested/skip.ts": "hello skipped\n",
  "src/nested/keep.ts": "hello kept\r\n",
  "dist/out.js": "hello dist\n",
  "fixtures/f.txt": "hello fixture\n",
  "node_modules/m/i.js": "hello module\n",
  ".env": "HELLO=secret\n",
  "long.txt": `hello ${"x".repeat(400)}\n`,
  "bin.dat": new Uint8Array([104, 101, 108, 108, 111, 0, 1]),
});
const outside = makeWorkspace({ "o.txt": "hello outside\n" }, "shiro-outside-");
symlinkSync(join(outside.root, "o.txt"), join(ws.root, "link.txt"));
const many = makeWorkspace({ "many.txt": Array.from({ length: 250 }, (_, i) => `hit ${i}`).join("\n") });

afterAll(() => {
  ws.remove();
  outside.remove();
  many.remove();
});

const rg = findRipgrep();
// CI installs Debian's ripgrep (.ci/run): there the rg engine's tests must run, not skip.
const RIPGREP = hostPackage("ripgrep", "apt-get install -y ripgrep", rg !== undefined, "rg is not on PATH");

for (const engine of ["js", "rg"] as const) {
  const block = (name: string, body: () => void) => (engine === "rg" ? hostDescribe(RIPGREP, name, body) : describe(name, body));
  block(`grep (${engine})`, () => {
    const savedPath = process.env.PATH;
    beforeEach(() => {
      if (engine === "js") process.env.PATH = "";
    });
    afterEach(() => {
      process.env.PATH = savedPath;
    });
    const grep = (input: Record<string, unknown>, root = ws.root) => runTool(grepTool, input, root);

    test("finds lines across the workspace, skipping ignored, binary, secrets and outside files", async () => {
      expect(await grep({ pattern: "hello" })).toBe(
        ["long.txt:1: hello " + "x".repeat(294) + "…", "src/.hidden.ts:1: hello hidden", "src/b.js:1: hello from js", "src/nested/keep.ts:1: hello kept"].join(
          "\n",
        ),
      );
    });

    test("ignoreCase, include and includeIgnored", async () => {
      expect(await grep({ pattern: "hello", ignoreCase: true, include: "*.ts" })).toBe(
        ["src/.hidden.ts:1: hello hidden", "src/a.ts:2: export const Hello = 1;", "src/nested/keep.ts:1: hello kept"].join("\n"),
      );
      expect(await grep({ pattern: "^hello (di|fi|sk|mo)", includeIgnored: true })).toBe(
        ["dist/out.js:1: hello dist", "fixtures/f.txt:1: hello fixture", "src/nested/skip.ts:1: hello skipped"].join("\n"),
      );
      expect(await grep({ pattern: "other", include: "src/**" })).toBe("src/a.ts:3: const other = 2;");
    });

    test("no matches, invalid regex, and a JS-only regex", async () => {
      expect(await grep({ pattern: "nothing-matches-this" })).toBe("No matches.");
      expect(await errorOf(grep({ pattern: "(" }))).toBe("Invalid regex: missing )");
      expect(await grep({ pattern: "(?<=const )other" })).toBe("src/a.ts:3: const other = 2;");
    });

    test("an interrupted search throws", async () => {
      expect(await errorOf(runTool(grepTool, { pattern: "hello" }, ws.root, AbortSignal.abort()))).toBe("grep was interrupted.");
    });

    test("stops at 200 hits", async () => {
      const lines = (await grep({ pattern: "^hit" }, many.root)).split("\n");
      expect(lines.length).toBe(201);
      expect(lines[0]).toBe("many.txt:1: hit 0");
      expect(lines[199]).toBe("many.txt:200: hit 199");
      expect(lines[200]).toBe("... [hit limit 200]");
    });
  });
}

describe("grep basics", () => {
  test("subjects and effect", () => {
    expect(grepTool.subjects!({ pattern: "a.b", include: "**/*" })).toEqual(["a.b"]);
    expect(grepTool.effect).toBe("read");
  });

  test("findRipgrep looks only on PATH", () => {
    expect(findRipgrep({ PATH: "" })).toBeUndefined();
    expect(findRipgrep({ PATH: ws.root })).toBeUndefined();
  });
});

hostDescribe(RIPGREP, "rg and the walker agree", () => {
  // Made in beforeAll: a describe skipped for want of rg still runs its body, and never its afterAll.
  let agree: Workspace;
  beforeAll(() => {
    agree = makeWorkspace({
      ".gitignore": "build/\n*.log\n",
      ".ignore": "dot-ignored.txt\n",
      "dot-ignored.txt": "needle dot\n",
      "build/deep/b.txt": "needle build\n",
      "keep.log": "needle log\n",
      "a.txt": "needle a\n",
      "src/é.txt": "needle é\n",
      "late-nul.txt": `needle early\n${"y".repeat(9000)}\0\nneedle late\n`,
    });
    symlinkSync(join(agree.root, "a.txt"), join(agree.root, "link-in.txt"));
  });
  afterAll(() => agree?.remove());
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });
  const both = async (input: Record<string, unknown>) => {
    process.env.PATH = savedPath;
    const withRg = await runTool(grepTool, input, agree.root);
    process.env.PATH = "";
    const withWalker = await runTool(grepTool, input, agree.root);
    return { withRg, withWalker };
  };
  const expectBoth = async (input: Record<string, unknown>, expected: string) => {
    const { withRg, withWalker } = await both(input);
    expect(withWalker).toBe(expected);
    if (rg) expect(withRg).toBe(expected);
  };

  test("links are not followed, a NUL anywhere means binary, only .gitignore and .shiroignore apply", async () => {
    await expectBoth({ pattern: "needle" }, ["a.txt:1: needle a", "dot-ignored.txt:1: needle dot", "src/é.txt:1: needle é"].join("\n"));
    await expectBoth({ pattern: "needle", include: "*.{txt,log}" }, ["a.txt:1: needle a", "dot-ignored.txt:1: needle dot", "src/é.txt:1: needle é"].join("\n"));
    await expectBoth({ pattern: "needle", include: "build/**", includeIgnored: true }, "build/deep/b.txt:1: needle build");
  });

  test("Unicode classes work in both", async () => {
    await expectBoth({ pattern: "needle \\p{L}$", include: "src/*" }, "src/é.txt:1: needle é");
    await expectBoth({ pattern: "NEEDLE É", ignoreCase: true }, "src/é.txt:1: needle é");
  });
});

describe("patterns only one engine accepts", () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  hostTest(RIPGREP, "rg answers a pattern JavaScript rejects", async () => {
    expect(await runTool(grepTool, { pattern: "(?i)HELLO FROM" }, ws.root)).toBe("src/b.js:1: hello from js");
  });

  test("without rg the same pattern is an invalid regex", async () => {
    process.env.PATH = "";
    expect(await errorOf(runTool(grepTool, { pattern: "(?i)HELLO FROM" }, ws.root))).toBe("Invalid regex: unrecognized character after (?");
  });
});

hostDescribe(RIPGREP, "grep (rg) arguments", () => {
  test("no whitelist --glob: it would override the ignore files and search every ignored tree", async () => {
    const dir = makeWorkspace({}, "shiro-fake-rg-");
    const argvFile = join(dir.root, "argv.txt");
    dir.write("rg", `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvFile}'\nexec '${rg}' "$@"\n`);
    chmodSync(join(dir.root, "rg"), 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = dir.root;
    try {
      expect(await runTool(grepTool, { pattern: "hello", include: "src/**" }, ws.root)).toBe(
        "src/.hidden.ts:1: hello hidden\nsrc/b.js:1: hello from js\nsrc/nested/keep.ts:1: hello kept",
      );
      expect(await runTool(grepTool, { pattern: "hello", include: "*.js" }, ws.root)).toBe("src/b.js:1: hello from js");
      expect(await runTool(grepTool, { pattern: "hello" }, ws.root)).toContain("src/b.js:1: hello from js");
    } finally {
      process.env.PATH = savedPath;
    }
    const argv = readFileSync(argvFile, "utf8").split("\n");
    const globs = argv.flatMap((arg, i) => (argv[i - 1] === "--glob" ? [arg] : []));
    expect(globs.filter((glob) => !glob.startsWith("!"))).toEqual([]);
    dir.remove();
  });
});
