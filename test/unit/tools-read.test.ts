import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { editFileTool } from "../../lib/tools/edit.ts";
import { readFileTool, readManyFilesTool, writeFileTool } from "../../lib/tools/fs.ts";
import { grepTool } from "../../lib/tools/grep.ts";
import { applyPatchTool } from "../../lib/tools/patch.ts";
import { errorOf, makeWorkspace, runTool } from "./tools-workspace.ts";

const binary = new Uint8Array(200).fill(65);
binary[100] = 0;
const lateNul = new Uint8Array(8292).fill(65);
lateNul[8192] = 0;

const ws = makeWorkspace({
  "five.txt": "a\nb\nc\nd\ne\n",
  "crlf.txt": "one\r\ntwo\r\n",
  "no-newline.txt": "x\ny",
  "empty.txt": "",
  "long.txt": Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n"),
  "image.bin": binary,
  "late-nul.txt": lateNul,
  ".env": "KEY=1\n",
  "config/.env.local": "KEY=2\n",
  "certs/server.pem": "-----BEGIN-----\n",
  ".env.example": "KEY=\n",
  "dir/inner.txt": "inner\n",
});
symlinkSync(join(ws.root, ".env"), join(ws.root, "settings"));

afterAll(() => ws.remove());

const read = (input: Record<string, unknown>) => runTool(readFileTool, input, ws.root);

describe("read_file", () => {
  test("numbers lines from 1, without their line endings", async () => {
    expect(await read({ path: "five.txt" })).toBe("1: a\n2: b\n3: c\n4: d\n5: e");
    expect(await read({ path: "crlf.txt" })).toBe("1: one\n2: two");
    expect(await read({ path: "no-newline.txt" })).toBe("1: x\n2: y");
    expect(await read({ path: "empty.txt" })).toBe("empty.txt is empty.");
  });

  test("offset and limit page through a file, with a note on where to continue", async () => {
    expect(await read({ path: "five.txt", offset: 2, limit: 2 })).toBe("2: b\n3: c\n... [2 more lines; continue with offset=4]");
    expect(await read({ path: "five.txt", offset: 4, limit: 10 })).toBe("4: d\n5: e");
    expect(await errorOf(read({ path: "five.txt", offset: 9 }))).toBe("five.txt has 5 lines; offset 9 is past the end.");
  });

  test("reads 2000 lines by default", async () => {
    const out = (await read({ path: "long.txt" })).split("\n");
    expect(out.length).toBe(2001);
    expect(out[0]).toBe("1: line 1");
    expect(out[1999]).toBe("2000: line 2000");
    expect(out[2000]).toBe("... [500 more lines; continue with offset=2001]");
  });

  test("errors: missing file, folder, binary", async () => {
    expect(await errorOf(read({ path: "nope.txt" }))).toBe("No such file: nope.txt");
    expect(await errorOf(read({ path: "dir" }))).toBe("dir is a directory, not a file.");
    expect(await errorOf(read({ path: "image.bin" }))).toBe("image.bin is a binary file, not text. Use bash if you need to inspect it.");
    expect(await read({ path: "late-nul.txt", limit: 1 })).toStartWith("1: AAAA");
  });

  test("read_file refuses what it opened when it may hold secrets, unless the gate let secrets through", async () => {
    const ctx = (secretsAllowed: boolean) => ({ root: ws.root, signal: new AbortController().signal, emitOutput: () => {}, callId: "c", secretsAllowed });
    for (const [path, why] of [
      [".env", "an env file"],
      ["settings", "an env file"],
      ["certs/server.pem", "a private key or keystore"],
    ] as const) {
      expect(await errorOf(readFileTool.execute({ path, offset: 1, limit: 10 }, ctx(false)))).toBe(
        `Refusing to read ${path}: it may hold secrets (${why}). Ask the user to share what you need from it.`,
      );
    }
    expect(await readFileTool.execute({ path: ".env", offset: 1, limit: 10 }, ctx(true))).toStartWith("1: ");
  });

  test("read_many_files skips secrets files, also through a symlink, but reads .env.example", async () => {
    const paths = [".env", "config/.env.local", "certs/server.pem", "settings"];
    const out = await runTool(readManyFilesTool, { files: [...paths, ".env.example"].map((path) => ({ path })) }, ws.root);
    const skipped = (why: string) => `[skipped: it may hold secrets (${why}). Ask the user, or read it with read_file, which asks them.]`;
    expect(out).toBe(
      [
        `===== .env =====\n${skipped("an env file")}`,
        `===== config/.env.local =====\n${skipped("an env file")}`,
        `===== certs/server.pem =====\n${skipped("a private key or keystore")}`,
        `===== settings =====\n${skipped("an env file")}`,
        "===== .env.example =====\n1: KEY=",
      ].join("\n\n"),
    );
  });

  test("schema: offset and limit are whole numbers from 1", () => {
    expect(v.safeParse(readFileTool.schema, { path: "a", offset: 0 }).success).toBe(false);
    expect(v.safeParse(readFileTool.schema, { path: "a", limit: 1.5 }).success).toBe(false);
    expect(v.parse(readFileTool.schema, { path: "a" })).toEqual({ path: "a", offset: 1, limit: 2000 });
  });

  test("paths and effect", () => {
    expect(readFileTool.paths!({ path: "a.ts", offset: 1, limit: 2000 }, "/ws")).toEqual(["a.ts"]);
    expect(readFileTool.paths!({ path: 42 }, "/ws")).toEqual([]);
    expect(readFileTool.effect).toBe("read");
  });
});

describe("read_many_files", () => {
  test("keeps the order asked and reports failures inline", async () => {
    const out = await runTool(
      readManyFilesTool,
      {
        files: [
          { path: "five.txt", offset: 5 },
          { path: "nope.txt" },
          { path: "crlf.txt", limit: 1 },
          { path: "../x" },
          { path: ".env" },
          { path: "image.bin" },
        ],
      },
      ws.root,
    );
    expect(out).toBe(
      [
        "===== five.txt =====\n5: e",
        "===== nope.txt =====\n[unreadable: No such file: nope.txt]",
        "===== crlf.txt =====\n1: one\n... [1 more line; continue with offset=2]",
        "===== ../x =====\n[unreadable: Path escapes workspace: ../x]",
        "===== .env =====\n[skipped: it may hold secrets (an env file). Ask the user, or read it with read_file, which asks them.]",
        "===== image.bin =====\n[unreadable: image.bin is a binary file, not text. Use bash if you need to inspect it.]",
      ].join("\n\n"),
    );
  });

  test("takes 1 to 20 files", () => {
    const files = (n: number) => ({ files: Array.from({ length: n }, (_, i) => ({ path: `f${i}` })) });
    expect(v.safeParse(readManyFilesTool.schema, files(0)).success).toBe(false);
    expect(v.safeParse(readManyFilesTool.schema, files(20)).success).toBe(true);
    expect(v.safeParse(readManyFilesTool.schema, files(21)).success).toBe(false);
    expect(readManyFilesTool.paths!(v.parse(readManyFilesTool.schema, files(2)), ws.root)).toEqual(["f0", "f1"]);
  });
});

describe.skipIf(process.platform === "win32")("named pipes are refused, never read", () => {
  // Without the check each call would wait forever for a writer to open the pipe.
  const fifoWs = makeWorkspace({ "a.txt": "hello\n" }, "shiro-fifo-");
  spawnSync("mkfifo", [join(fifoWs.root, "pipe")]);
  afterAll(() => fifoWs.remove());

  test("every file tool", async () => {
    const run = (tool: Parameters<typeof runTool>[0], input: unknown) => errorOf(runTool(tool, input, fifoWs.root));
    expect(await run(readFileTool, { path: "pipe" })).toBe("pipe is not a regular file.");
    expect(await runTool(readManyFilesTool, { files: [{ path: "pipe" }] }, fifoWs.root)).toBe("===== pipe =====\n[unreadable: pipe is not a regular file.]");
    expect(await run(writeFileTool, { path: "pipe", content: "x" })).toBe("pipe is not a regular file.");
    expect(await run(editFileTool, { path: "pipe", oldString: "a", newString: "b" })).toBe("pipe is not a regular file.");
    expect(await run(applyPatchTool, { patch: "*** Update File: pipe\n-a\n+b\n" })).toBe("cannot update pipe: it is not a regular file");
    const savedPath = process.env.PATH;
    process.env.PATH = "";
    try {
      expect(await runTool(grepTool, { pattern: "hello" }, fifoWs.root)).toBe("a.txt:1: hello");
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
