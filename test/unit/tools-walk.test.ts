import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { compileGlob, createIgnoreFilter, walkWorkspace, type WalkOptions } from "../../lib/tools/walk.ts";
import { makeWorkspace } from "./tools-workspace.ts";

const ws = makeWorkspace({
  ".gitignore": "# build output\n*.log\n!keep.log\nbuild/\n/rootonly.txt\ndocs/*.tmp\n",
  ".shiroignore": "scratch/\n",
  "a.log": "",
  "keep.log": "",
  "rootonly.txt": "",
  "notes.txt": "",
  "build/out.js": "",
  "docs/x.tmp": "",
  "docs/sub/y.tmp": "",
  "scratch/n.md": "",
  "src/.gitignore": "gen/\n!important.log\n*.txt\n/anchored.ts\nlib/inner.ts\n",
  "src/anchored.ts": "",
  "src/x/anchored.ts": "",
  "src/lib/inner.ts": "",
  "src/x/lib/inner.ts": "",
  "src/build": "a file, so the dir-only build/ rule leaves it",
  "src/rootonly.txt": "",
  "src/important.log": "",
  "src/other.log": "",
  "src/gen/g.ts": "",
  "src/main.ts": "",
  "node_modules/pkg/index.js": "",
  ".git/HEAD": "",
  "lib/node_modules/x.js": "",
});
symlinkSync(join(ws.root, "src"), join(ws.root, "linked"));

afterAll(() => ws.remove());

async function walk(options: WalkOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of walkWorkspace(ws.root, options)) out.push(`${entry.depth}:${entry.path}${entry.dir ? "/" : ""}${entry.symlink ? "@" : ""}`);
  return out;
}

describe("walkWorkspace", () => {
  test("honours nested .gitignore and .shiroignore with negation, dir-only and anchoring", async () => {
    expect(await walk()).toEqual([
      "1:.gitignore",
      "1:.shiroignore",
      "1:docs/",
      "2:docs/sub/",
      "3:docs/sub/y.tmp",
      "1:keep.log",
      "1:lib/",
      "1:linked/@",
      "1:notes.txt",
      "1:src/",
      "2:src/.gitignore",
      "2:src/build",
      "2:src/important.log",
      "2:src/lib/",
      "2:src/main.ts",
      "2:src/x/",
      "3:src/x/anchored.ts",
      "3:src/x/lib/",
      "4:src/x/lib/inner.ts",
    ]);
  });

  test("includeIgnored lists ignored files but still skips .git and node_modules", async () => {
    expect(await walk({ includeIgnored: true })).toEqual([
      "1:.gitignore",
      "1:.shiroignore",
      "1:a.log",
      "1:build/",
      "2:build/out.js",
      "1:docs/",
      "2:docs/sub/",
      "3:docs/sub/y.tmp",
      "2:docs/x.tmp",
      "1:keep.log",
      "1:lib/",
      "1:linked/@",
      "1:notes.txt",
      "1:rootonly.txt",
      "1:scratch/",
      "2:scratch/n.md",
      "1:src/",
      "2:src/.gitignore",
      "2:src/anchored.ts",
      "2:src/build",
      "2:src/gen/",
      "3:src/gen/g.ts",
      "2:src/important.log",
      "2:src/lib/",
      "3:src/lib/inner.ts",
      "2:src/main.ts",
      "2:src/other.log",
      "2:src/rootonly.txt",
      "2:src/x/",
      "3:src/x/anchored.ts",
      "3:src/x/lib/",
      "4:src/x/lib/inner.ts",
    ]);
  });

  test("starts below the root with the rules above it, and stops at maxDepth and limit", async () => {
    expect(await walk({ dir: "src", maxDepth: 1 })).toEqual([
      "1:src/.gitignore",
      "1:src/build",
      "1:src/important.log",
      "1:src/lib/",
      "1:src/main.ts",
      "1:src/x/",
    ]);
    expect(await walk({ dir: "docs", maxDepth: 1 })).toEqual(["1:docs/sub/"]);
    expect(await walk({ limit: 3 })).toEqual(["1:.gitignore", "1:.shiroignore", "1:docs/"]);
  });

  test("a deeper negation re-includes a directory a shallower rule ignored", async () => {
    const nested = makeWorkspace({ ".gitignore": "build/\n", "pkg/.gitignore": "!build/\n", "pkg/build/x.js": "", "build/y.js": "" });
    try {
      const paths: string[] = [];
      for await (const entry of walkWorkspace(nested.root)) paths.push(entry.path);
      expect(paths).toEqual([".gitignore", "pkg", "pkg/.gitignore", "pkg/build", "pkg/build/x.js"]);
    } finally {
      nested.remove();
    }
  });
});

describe("createIgnoreFilter", () => {
  test("answers for paths the walker would skip", () => {
    const filter = createIgnoreFilter(ws.root);
    const asked: [string, boolean][] = [
      ["a.log", false],
      ["keep.log", false],
      ["src/other.log", false],
      ["src/important.log", false],
      ["src/gen/g.ts", false],
      ["build/out.js", false],
      ["src/build", false],
      ["scratch/n.md", false],
      ["node_modules/pkg/index.js", false],
      ["docs/x.tmp", false],
      ["docs/sub/y.tmp", false],
    ];
    expect(asked.map(([p, dir]) => [p, filter.isIgnored(p, dir)])).toEqual([
      ["a.log", true],
      ["keep.log", false],
      ["src/other.log", true],
      ["src/important.log", false],
      ["src/gen/g.ts", true],
      ["build/out.js", true],
      ["src/build", false],
      ["scratch/n.md", true],
      ["node_modules/pkg/index.js", true],
      ["docs/x.tmp", true],
      ["docs/sub/y.tmp", false],
    ]);
  });
});

describe("compileGlob", () => {
  test("matches posix relative paths", () => {
    const cases: [string, string, boolean][] = [
      ["*.ts", "a.ts", true],
      ["*.ts", "src/deep/a.ts", true],
      ["*.ts", "a.tsx", false],
      ["src/*.ts", "src/a.ts", true],
      ["src/*.ts", "src/x/a.ts", false],
      ["/src/*.ts", "src/a.ts", true],
      ["**/*.ts", "a.ts", true],
      ["**/*.ts", "x/y/a.ts", true],
      ["src/**", "src/x/y", true],
      ["src/**", "lib/x", false],
      ["src/**/test/*.ts", "src/test/a.ts", true],
      ["src/**/test/*.ts", "src/a/b/test/a.ts", true],
      ["*.{js,jsx}", "a/b.jsx", true],
      ["*.{js,jsx}", "b.ts", false],
      ["file?.md", "file1.md", true],
      ["file?.md", "file10.md", false],
      ["[ab].txt", "a.txt", true],
      ["[!ab].txt", "a.txt", false],
      ["[!ab].txt", "c.txt", true],
      ["a.b", "axb", false],
      ["./lib/*.ts", "lib/x.ts", true],
    ];
    expect(cases.filter(([pattern, path, want]) => compileGlob(pattern)(path) !== want)).toEqual([]);
  });
});
