import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { globTool, listDirTool } from "../../lib/tools/fs.ts";
import { formatSize } from "../../lib/tools/fs-run.ts";
import { errorOf, makeWorkspace, runTool } from "./tools-workspace.ts";

const ws = makeWorkspace({
  ".gitignore": "dist/\n",
  "README.md": "x".repeat(10),
  "src/index.ts": "y".repeat(2048),
  "src/deep/a/b/c.ts": "",
  "src/deep/a/b/d.ts": "",
  "dist/bundle.js": "z".repeat(1_610_613),
  "big/huge.bin": "",
});
symlinkSync(join(ws.root, "src"), join(ws.root, "src-link"));
mkdirSync(join(ws.root, "empty"));
const many = makeWorkspace(Object.fromEntries(Array.from({ length: 320 }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, ""])));

afterAll(() => {
  ws.remove();
  many.remove();
});

const list = (input: Record<string, unknown>, root = ws.root) => runTool(listDirTool, input, root);
const glob = (input: Record<string, unknown>, root = ws.root) => runTool(globTool, input, root);

describe("list_dir", () => {
  test("a tree two levels deep by default, ignore-aware, sizes in B/K/M", async () => {
    expect(await list({})).toBe(
      [".gitignore  6B", "README.md  10B", "big/", "  huge.bin  0B", "empty/", "src/", "  deep/", "  index.ts  2K", "src-link/  (symlink)"].join("\n"),
    );
  });

  test("depth, a sub-folder and includeIgnored", async () => {
    expect(await list({ path: "src", depth: 6 })).toBe("deep/\n  a/\n    b/\n      c.ts  0B\n      d.ts  0B\nindex.ts  2K");
    expect(await list({ path: "src/", depth: 1 })).toBe("deep/\nindex.ts  2K");
    expect(await list({ path: "dist", includeIgnored: true })).toBe("bundle.js  1.5M");
  });

  test("empty, ignored and missing folders", async () => {
    expect(await list({ path: "empty" })).toBe("empty is empty (or everything in it is ignored).");
    expect(await list({ path: "dist" })).toBe("dist is empty (or everything in it is ignored).");
    expect(await list({}, join(ws.root, "empty"))).toBe("The workspace is empty (or everything in it is ignored).");
    expect(await errorOf(list({ path: "README.md" }))).toBe("Not a directory: README.md");
    expect(await errorOf(list({ path: "nope" }))).toBe("Not a directory: nope");
    expect(await errorOf(list({ path: "../" }))).toBe("Path escapes workspace: ../");
  });

  test("stops at 300 entries", async () => {
    const lines = (await list({}, many.root)).split("\n");
    expect(lines.length).toBe(301);
    expect(lines[299]).toBe("f299.txt  0B");
    expect(lines[300]).toBe("... [300-entry limit reached]");
  });

  test("formatSize", () => {
    expect([0, 1023, 1024, 1536, 1024 * 1024 - 1, 1024 * 1024, 5.25 * 1024 * 1024].map(formatSize)).toEqual([
      "0B",
      "1023B",
      "1K",
      "2K",
      "1024K",
      "1.0M",
      "5.3M",
    ]);
  });
});

describe("glob", () => {
  test("matches files by glob, sorted, ignore-aware", async () => {
    expect(await glob({ pattern: "**/*.ts" })).toBe("src/deep/a/b/c.ts\nsrc/deep/a/b/d.ts\nsrc/index.ts");
    expect(await glob({ pattern: "*.ts", limit: 2 })).toBe("src/deep/a/b/c.ts\nsrc/deep/a/b/d.ts\n... [2-file limit reached]");
    expect(await glob({ pattern: "src/*.ts" })).toBe("src/index.ts");
    expect(await glob({ pattern: "*.js" })).toBe("No files matched.");
    expect(await glob({ pattern: "*.js", includeIgnored: true })).toBe("dist/bundle.js");
    expect(await errorOf(glob({ pattern: "[z-a].ts" }))).toBe("Invalid glob: range out of order in character class");
    expect(globTool.subjects!({ pattern: "*.js", limit: 200 })).toEqual(["*.js"]);
  });

  test("stops at 200 paths, whatever limit asks", async () => {
    const lines = (await glob({ pattern: "*.txt", limit: 500 }, many.root)).split("\n");
    expect(lines.length).toBe(201);
    expect(lines[199]).toBe("f199.txt");
    expect(lines[200]).toBe("... [200-file limit reached]");
  });
});
