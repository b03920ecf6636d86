import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { classifySecretFile, classifySecretPath } from "../../lib/secrets/classify.ts";
import { resolveInWorkspace, toWorkspacePath } from "../../lib/tools/jail.ts";
import { readFileTool, writeFileTool } from "../../lib/tools/fs.ts";
import { errorOf, makeWorkspace, runTool } from "./tools-workspace.ts";

const ws = makeWorkspace({ "src/a.ts": "a\n", "..notes": "dots\n" });
const outside = makeWorkspace({ "secret.txt": "outside\n", "dir/inner.txt": "inner\n" }, "shiro-outside-");
symlinkSync(join(outside.root, "secret.txt"), join(ws.root, "out-file"));
symlinkSync(outside.root, join(ws.root, "out-dir"));
symlinkSync(join(outside.root, "missing.txt"), join(ws.root, "dangling"));
symlinkSync(join(ws.root, "src"), join(ws.root, "in-dir"));
mkdirSync(join(ws.root, "empty"));

afterAll(() => {
  ws.remove();
  outside.remove();
});

describe("resolveInWorkspace", () => {
  test("paths inside resolve to absolute paths, existing or not", () => {
    expect(resolveInWorkspace(ws.root, "src/a.ts")).toBe(join(ws.root, "src/a.ts"));
    expect(resolveInWorkspace(ws.root, "./src/../src/a.ts")).toBe(join(ws.root, "src/a.ts"));
    expect(resolveInWorkspace(ws.root, join(ws.root, "src"))).toBe(join(ws.root, "src"));
    expect(resolveInWorkspace(ws.root, "new/deep/file.txt")).toBe(join(ws.root, "new/deep/file.txt"));
    expect(resolveInWorkspace(ws.root, "..notes")).toBe(join(ws.root, "..notes"));
    expect(resolveInWorkspace(ws.root, ".")).toBe(ws.root);
    expect(resolveInWorkspace(ws.root, "in-dir/a.ts")).toBe(join(ws.root, "in-dir/a.ts"));
    expect(resolveInWorkspace(ws.root, "in-dir/new.ts")).toBe(join(ws.root, "in-dir/new.ts"));
  });

  test("escapes are refused with one message", () => {
    const cases = [
      "../x",
      "a/../../x",
      "..",
      join(outside.root, "secret.txt"),
      "/etc/passwd",
      "out-file",
      "out-dir/secret.txt",
      "out-dir/new.txt",
      "out-dir/dir/inner.txt",
      "out-dir",
      "dangling",
    ];
    for (const p of cases) expect(() => resolveInWorkspace(ws.root, p)).toThrow(new Error(`Path escapes workspace: ${p}`));
  });

  test("toWorkspacePath gives posix root-relative paths", () => {
    expect(toWorkspacePath(ws.root, join(ws.root, "src", "a.ts"))).toBe("src/a.ts");
    expect(toWorkspacePath(ws.root, ws.root)).toBe(".");
  });
});

describe("the jail in the tools", () => {
  test("read_file refuses a symlinked file and a symlinked folder that point outside", async () => {
    expect(await errorOf(runTool(readFileTool, { path: "out-file" }, ws.root))).toBe("Path escapes workspace: out-file");
    expect(await errorOf(runTool(readFileTool, { path: "out-dir/secret.txt" }, ws.root))).toBe("Path escapes workspace: out-dir/secret.txt");
    expect(await errorOf(runTool(readFileTool, { path: "../x" }, ws.root))).toBe("Path escapes workspace: ../x");
  });

  test("write_file through a symlinked folder or a dangling link creates nothing outside", async () => {
    expect(await errorOf(runTool(writeFileTool, { path: "out-dir/new/x.txt", content: "x" }, ws.root))).toBe("Path escapes workspace: out-dir/new/x.txt");
    expect(await errorOf(runTool(writeFileTool, { path: "dangling", content: "x" }, ws.root))).toBe("Path escapes workspace: dangling");
    expect(existsSync(join(outside.root, "new"))).toBe(false);
    expect(existsSync(join(outside.root, "missing.txt"))).toBe(false);
    expect(outside.snapshot()).toEqual({
      "dir/": "",
      "dir/inner.txt": Buffer.from("inner\n").toString("base64"),
      "secret.txt": Buffer.from("outside\n").toString("base64"),
    });
  });

  test("write_file through a symlinked folder inside the workspace works", async () => {
    expect(await runTool(writeFileTool, { path: "in-dir/b.ts", content: "b" }, ws.root)).toBe("Wrote 1 chars to in-dir/b.ts");
    expect(ws.read("src/b.ts")).toBe("b");
  });
});

describe("odd paths", () => {
  test("a NUL byte is refused before any file system call, by every path tool", async () => {
    expect(() => resolveInWorkspace(ws.root, "src/a.ts\0.txt")).toThrow(new Error('Invalid path "src/a.ts\\u0000.txt": it contains a NUL byte.'));
    expect(await errorOf(runTool(writeFileTool, { path: "a\0b", content: "x" }, ws.root))).toBe('Invalid path "a\\u0000b": it contains a NUL byte.');
  });

  test("~ means the home folder, as in a shell, so writing ~/x creates no ~ folder in the workspace", async () => {
    expect(() => resolveInWorkspace(ws.root, "~/.bashrc")).toThrow(new Error("Path escapes workspace: ~/.bashrc"));
    expect(() => resolveInWorkspace(ws.root, "~")).toThrow(new Error("Path escapes workspace: ~"));
    expect(await errorOf(runTool(writeFileTool, { path: "~/notes.txt", content: "x" }, ws.root))).toBe("Path escapes workspace: ~/notes.txt");
    expect(existsSync(join(ws.root, "~"))).toBe(false);
    expect(resolveInWorkspace(homedir(), "~/x")).toBe(join(homedir(), "x"));
    expect(resolveInWorkspace(ws.root, "src/~")).toBe(join(ws.root, "src/~"));
    expect(resolveInWorkspace(ws.root, "~draft.txt")).toBe(join(ws.root, "~draft.txt"));
  });

  test("backslashes are ordinary name characters on POSIX; they never climb out", () => {
    if (process.platform === "win32") return;
    expect(resolveInWorkspace(ws.root, "..\\x")).toBe(join(ws.root, "..\\x"));
    expect(resolveInWorkspace(ws.root, "C:\\Windows\\x")).toBe(join(ws.root, "C:\\Windows\\x"));
  });

  test("secrets names match in any letter case", async () => {
    expect(["KEY.PEM", ".ENV", "App.Env.Local"].filter((p) => !classifySecretPath(p))).toEqual([]);
    expect(classifySecretPath(".ENV.EXAMPLE")).toBeUndefined();
    ws.write("certs/KEY.PEM", "-----BEGIN PRIVATE KEY-----\n");
    expect(classifySecretFile(join(ws.root, "certs/KEY.PEM"), ws.root)).toBe("a private key or keystore");
  });
});
