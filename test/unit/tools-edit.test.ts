import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { deleteFileTool, editFileTool, moveFileTool, multiEditTool } from "../../lib/tools/edit.ts";
import { writeFileTool } from "../../lib/tools/fs.ts";
import { errorOf, makeWorkspace, runTool, type Workspace } from "./tools-workspace.ts";

let ws: Workspace;

beforeEach(() => {
  ws = makeWorkspace({
    "a.ts": "const a = 1;\nconst b = 2;\nconst a2 = 1;\n",
    "crlf.txt": "one\r\ntwo\r\nthree\r\n",
    "lines.txt": Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n"),
    "dir/inner.txt": "inner\n",
  });
});

afterEach(() => ws.remove());

const run = (tool: Parameters<typeof runTool>[0], input: unknown) => runTool(tool, input, ws.root);

describe("write_file", () => {
  test("creates parent folders and reports the length", async () => {
    expect(await run(writeFileTool, { path: "new/deep/x.txt", content: "héllo\n" })).toBe("Wrote 6 chars to new/deep/x.txt");
    expect(ws.read("new/deep/x.txt")).toBe("héllo\n");
    expect(await run(writeFileTool, { path: "a.ts", content: "const a = 3;\nconst b = 2;\n" })).toBe("Wrote 26 chars to a.ts");
  });

  test("warns when a rewrite of similar length collapsed the lines", async () => {
    const flat = ws.read("lines.txt").replaceAll("\n", " ");
    expect(await run(writeFileTool, { path: "lines.txt", content: flat })).toBe(
      `Wrote ${flat.length} chars to lines.txt, but it collapsed 40 lines into 1. If that was not intended, re-send the content with its original newlines and indentation.`,
    );
    expect(await run(writeFileTool, { path: "dir/inner.txt", content: "x" })).toBe("Wrote 1 chars to dir/inner.txt");
  });

  test("refuses a folder and a file standing in for a parent folder", async () => {
    expect(await errorOf(run(writeFileTool, { path: "dir", content: "x" }))).toBe("dir is a directory.");
    expect(await errorOf(run(writeFileTool, { path: "a.ts/x.txt", content: "x" }))).toBe(
      "Cannot create a.ts/x.txt: a file stands where a parent directory should be.",
    );
  });
});

describe("edit_file", () => {
  test("replaces a unique match exactly, with no $ substitution", async () => {
    expect(await run(editFileTool, { path: "a.ts", oldString: "const b = 2;", newString: "const b = '$&$1';" })).toBe("Replaced 1 occurrence(s) in a.ts");
    expect(ws.read("a.ts")).toBe("const a = 1;\nconst b = '$&$1';\nconst a2 = 1;\n");
  });

  test("replaceAll replaces every match and counts them", async () => {
    expect(await run(editFileTool, { path: "a.ts", oldString: "= 1;", newString: "= 9;", replaceAll: true })).toBe("Replaced 2 occurrence(s) in a.ts");
    expect(ws.read("a.ts")).toBe("const a = 9;\nconst b = 2;\nconst a2 = 9;\n");
  });

  test("matches LF edit strings on a CRLF file and keeps CRLF", async () => {
    expect(await run(editFileTool, { path: "crlf.txt", oldString: "one\ntwo", newString: "1\n2" })).toBe("Replaced 1 occurrence(s) in crlf.txt");
    expect(ws.read("crlf.txt")).toBe("1\r\n2\r\nthree\r\n");
  });

  test("error strings, and the file is left as it was", async () => {
    const before = ws.snapshot();
    expect(await errorOf(run(editFileTool, { path: "a.ts", oldString: "x", newString: "x" }))).toBe("oldString and newString are identical");
    expect(await errorOf(run(editFileTool, { path: "nope.ts", oldString: "x", newString: "y" }))).toBe("No such file: nope.ts");
    expect(await errorOf(run(editFileTool, { path: "a.ts", oldString: "const c", newString: "y" }))).toBe("oldString not found in a.ts");
    expect(await errorOf(run(editFileTool, { path: "a.ts", oldString: "= 1;", newString: "= 9;" }))).toBe(
      "oldString appears 2 times in a.ts. Add surrounding context or set replaceAll.",
    );
    expect(await errorOf(run(editFileTool, { path: "a.ts", oldString: "", newString: "y" }))).toBe(
      "oldString is empty. Use write_file to create or replace a whole file.",
    );
    expect(ws.snapshot()).toEqual(before);
  });
});

describe("edits keep the bytes they do not touch", () => {
  const latin1 = Buffer.from("caf\xe9\nname = old\n", "latin1");
  const bom = Buffer.from("\uFEFFname = old\n", "utf8");

  test("a file that is not UTF-8, or is binary, is refused and left byte-identical", async () => {
    ws.write("latin1.txt", latin1);
    ws.write("data.bin", new Uint8Array([111, 108, 100, 0, 1]));
    const before = ws.snapshot();
    const notUtf8 = "latin1.txt is not UTF-8 text; editing it here would corrupt its other characters. Use bash if you need to change it.";
    expect(await errorOf(run(editFileTool, { path: "latin1.txt", oldString: "old", newString: "new" }))).toBe(notUtf8);
    expect(await errorOf(run(multiEditTool, { path: "latin1.txt", edits: [{ oldString: "old", newString: "new" }] }))).toBe(notUtf8);
    expect(await errorOf(run(editFileTool, { path: "data.bin", oldString: "old", newString: "new" }))).toBe(
      "data.bin is a binary file, not text. Use bash if you need to change it.",
    );
    expect(ws.snapshot()).toEqual(before);
  });

  test("a byte-order mark survives an edit", async () => {
    ws.write("bom.txt", bom);
    expect(await run(editFileTool, { path: "bom.txt", oldString: "old", newString: "new" })).toBe("Replaced 1 occurrence(s) in bom.txt");
    expect(readFileSync(join(ws.root, "bom.txt"))).toEqual(Buffer.from("\uFEFFname = new\n", "utf8"));
  });
});

describe("multi_edit", () => {
  test("applies edits in order, each on the previous result", async () => {
    const out = await run(multiEditTool, {
      path: "a.ts",
      edits: [
        { oldString: "= 1;", newString: "= 5;", replaceAll: true },
        { oldString: "const a = 5;", newString: "let a = 5;" },
        { oldString: "let a", newString: "var a" },
      ],
    });
    expect(out).toBe("Applied 3 edit(s) to a.ts (2x, 1x, 1x)");
    expect(ws.read("a.ts")).toBe("var a = 5;\nconst b = 2;\nconst a2 = 5;\n");
  });

  test("a failing edit leaves the file byte-identical", async () => {
    const before = ws.snapshot();
    const cases: [unknown[], string][] = [
      [
        [
          { oldString: "const", newString: "let", replaceAll: true },
          { oldString: "nowhere", newString: "x" },
        ],
        "edit 2: oldString not found in a.ts. No edits were applied.",
      ],
      [
        [
          { oldString: "const b", newString: "let b" },
          { oldString: "= 1;", newString: "= 2;" },
        ],
        "edit 2: oldString appears 2 times in a.ts. Add surrounding context or set replaceAll. No edits were applied.",
      ],
      [
        [
          { oldString: "a", newString: "b" },
          { oldString: "x", newString: "x" },
        ],
        "edit 2: oldString and newString are identical",
      ],
      [
        [
          { oldString: "const b = 2;", newString: "B" },
          { oldString: "B", newString: "const b = 2;" },
        ],
        "No change to a.ts: the edits cancel out.",
      ],
    ];
    for (const [edits, message] of cases) expect(await errorOf(run(multiEditTool, { path: "a.ts", edits }))).toBe(message);
    expect(await errorOf(run(multiEditTool, { path: "nope.ts", edits: [{ oldString: "a", newString: "b" }] }))).toBe("No such file: nope.ts");
    expect(ws.snapshot()).toEqual(before);
  });

  test("needs at least one edit", () => {
    expect(v.safeParse(multiEditTool.schema, { path: "a.ts", edits: [] }).success).toBe(false);
  });
});

describe("move_file into itself", () => {
  test("a folder cannot move below itself, the workspace root included", async () => {
    const before = ws.snapshot();
    expect(await errorOf(run(moveFileTool, { from: "dir", to: "dir/sub/dir" }))).toBe("Cannot move dir into itself (dir/sub/dir).");
    expect(await errorOf(run(moveFileTool, { from: ".", to: "elsewhere" }))).toBe("Cannot move . into itself (elsewhere).");
    expect(ws.snapshot()).toEqual(before);
    expect(await run(moveFileTool, { from: "dir", to: "dir2/dir" })).toBe("Moved dir to dir2/dir");
  });
});

describe("move_file", () => {
  test("moves a file, creating the target folder", async () => {
    expect(await run(moveFileTool, { from: "a.ts", to: "src/lib/a.ts" })).toBe("Moved a.ts to src/lib/a.ts");
    expect(existsSync(join(ws.root, "a.ts"))).toBe(false);
    expect(ws.read("src/lib/a.ts")).toBe("const a = 1;\nconst b = 2;\nconst a2 = 1;\n");
    expect(await run(moveFileTool, { from: "dir", to: "renamed" })).toBe("Moved dir to renamed");
    expect(ws.read("renamed/inner.txt")).toBe("inner\n");
  });

  test("error strings", async () => {
    const before = ws.snapshot();
    expect(await errorOf(run(moveFileTool, { from: "a.ts", to: "./a.ts" }))).toBe("from and to are the same path");
    expect(await errorOf(run(moveFileTool, { from: "nope.ts", to: "b.ts" }))).toBe("No such file: nope.ts");
    expect(await errorOf(run(moveFileTool, { from: "a.ts", to: "lines.txt" }))).toBe("lines.txt already exists. Delete it first or pick another name.");
    expect(await errorOf(run(moveFileTool, { from: "a.ts", to: "../a.ts" }))).toBe("Path escapes workspace: ../a.ts");
    expect(ws.snapshot()).toEqual(before);
    expect(moveFileTool.paths!({ from: "a", to: "b" }, ws.root)).toEqual(["a", "b"]);
  });
});

describe("delete_file", () => {
  test("deletes one file and reports its size", async () => {
    expect(await run(deleteFileTool, { path: "dir/inner.txt" })).toBe("Deleted dir/inner.txt (6 bytes)");
    expect(existsSync(join(ws.root, "dir/inner.txt"))).toBe(false);
  });

  test("error strings", async () => {
    expect(await errorOf(run(deleteFileTool, { path: "nope" }))).toBe("No such file: nope");
    expect(await errorOf(run(deleteFileTool, { path: "dir" }))).toBe("dir is a directory. Delete its files individually.");
  });
});
