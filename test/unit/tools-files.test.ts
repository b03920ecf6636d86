/**
 * The editor's buffers as the file tools' source (`ctx.files`, ACP fs delegation): read_file,
 * write_file, edit_file and multi_edit read and write through them, the disk keeps its bytes, and
 * a path the jail refuses (outside, through a symlink, a NUL byte) never reaches them.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { editFileTool, multiEditTool } from "../../lib/tools/edit.ts";
import { readFileTool, writeFileTool } from "../../lib/tools/fs.ts";
import type { ToolDefinition, WorkspaceFiles } from "../../lib/tools/types.ts";
import { errorOf, makeWorkspace, type Workspace } from "./tools-workspace.ts";

let ws: Workspace;
let buffers: Map<string, string>;
let asked: string[];

const files: WorkspaceFiles = {
  read: async (abs) => {
    asked.push(`read ${abs}`);
    const text = buffers.get(abs);
    if (text === undefined) throw new Error(`not open: ${abs}`);
    return text;
  },
  write: async (abs, text) => {
    asked.push(`write ${abs}`);
    buffers.set(abs, text);
  },
};

beforeEach(() => {
  ws = makeWorkspace({ "a.ts": "on disk\n", "b.ts": "b on disk\n" });
  buffers = new Map([[join(ws.root, "a.ts"), "const a = 1;\nconst b = 2;\n"]]);
  asked = [];
});
afterEach(() => ws.remove());

const run = (tool: ToolDefinition, input: unknown) =>
  tool.execute(v.parse(tool.schema, input), { root: ws.root, signal: new AbortController().signal, emitOutput: () => {}, callId: "c1", files });

describe("file tools through the editor's buffers", () => {
  test("read_file reads the buffer, not the disk", async () => {
    expect(await run(readFileTool, { path: "a.ts" })).toBe("1: const a = 1;\n2: const b = 2;");
    expect(asked).toEqual([`read ${join(ws.root, "a.ts")}`]);
  });

  test("edit_file and multi_edit change the buffer; the disk keeps its bytes", async () => {
    expect(await run(editFileTool, { path: "a.ts", oldString: "a = 1", newString: "a = 10" })).toBe("Replaced 1 occurrence(s) in a.ts");
    expect(
      await run(multiEditTool, {
        path: "a.ts",
        edits: [
          { oldString: "a = 10", newString: "a = 11" },
          { oldString: "b = 2", newString: "b = 12" },
        ],
      }),
    ).toBe("Applied 2 edit(s) to a.ts (1x, 1x)");
    expect(buffers.get(join(ws.root, "a.ts"))).toBe("const a = 11;\nconst b = 12;\n");
    expect(ws.read("a.ts")).toBe("on disk\n");
  });

  test("write_file replaces an open buffer and creates a new file through the editor", async () => {
    expect(await run(writeFileTool, { path: "a.ts", content: "replaced\n" })).toBe("Wrote 9 chars to a.ts");
    expect(await run(writeFileTool, { path: "new/c.ts", content: "fresh\n" })).toBe("Wrote 6 chars to new/c.ts");
    expect(buffers.get(join(ws.root, "a.ts"))).toBe("replaced\n");
    expect(buffers.get(join(ws.root, "new/c.ts"))).toBe("fresh\n");
    expect(ws.read("a.ts")).toBe("on disk\n");
  });

  test("the jail refuses before the editor is asked", async () => {
    symlinkSync("/etc", join(ws.root, "etc-link"));
    const table: [ToolDefinition, unknown, string][] = [
      [readFileTool, { path: "../outside.txt" }, "Path escapes workspace: ../outside.txt"],
      [readFileTool, { path: "etc-link/hostname" }, "Path escapes workspace: etc-link/hostname"],
      [writeFileTool, { path: "/tmp/elsewhere.txt", content: "x" }, "Path escapes workspace: /tmp/elsewhere.txt"],
      [writeFileTool, { path: "etc-link/x", content: "x" }, "Path escapes workspace: etc-link/x"],
      [editFileTool, { path: "../a.ts", oldString: "a", newString: "b" }, "Path escapes workspace: ../a.ts"],
      [readFileTool, { path: "a\0.ts" }, "it contains a NUL byte"],
    ];
    for (const [tool, input, message] of table) expect(await errorOf(run(tool, input))).toContain(message);
    expect(asked).toEqual([]);
  });
});
