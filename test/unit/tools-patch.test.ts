import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { applyPatchTool } from "../../lib/tools/patch.ts";
import { parsePatch } from "../../lib/tools/patch-run.ts";
import { patchPaths } from "../../lib/approval/write-paths.ts";
import { errorOf, makeWorkspace, runTool, type Workspace } from "./tools-workspace.ts";

let ws: Workspace;

beforeEach(() => {
  ws = makeWorkspace({
    "src/a.ts": "import x from 'x';\n\nexport const a = 1;\nexport const b = 2;\n",
    "src/dup.ts": "same\nsame\n",
    "old.txt": "to delete\n",
    "script.sh": "#!/bin/sh\necho old\n",
    "crlf.txt": "one\r\ntwo\r\n",
    blocker: "a file where a folder would have to be\n",
    "image.bin": new Uint8Array([1, 0, 2]),
  });
  chmodSync(join(ws.root, "script.sh"), 0o755);
});

afterEach(() => ws.remove());

const apply = (patch: string) => runTool(applyPatchTool, { patch }, ws.root);

describe("apply_patch", () => {
  test("adds, updates, moves and deletes in one call", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/new.md",
      "+# New",
      "+",
      "+text",
      "*** Update File: src/a.ts",
      "-export const a = 1;",
      "+export const a = 10;",
      "",
      "*** Update File: script.sh",
      "*** Move to: bin/run.sh",
      "-echo old",
      "+echo new",
      "*** Delete File: old.txt",
      "*** End Patch",
    ].join("\n");
    expect(await apply(patch)).toBe(
      ["Applied 4 change(s):", "- added docs/new.md", "- updated src/a.ts", "- moved script.sh to bin/run.sh", "- deleted old.txt"].join("\n"),
    );
    const after = ws.snapshot();
    expect(Buffer.from(after["docs/new.md"]!, "base64").toString()).toBe("# New\n\ntext\n");
    expect(ws.read("src/a.ts")).toBe("import x from 'x';\n\nexport const a = 10;\nexport const b = 2;\n");
    expect(ws.read("bin/run.sh")).toBe("#!/bin/sh\necho new\n");
    expect(statSync(join(ws.root, "bin/run.sh")).mode & 0o777).toBe(0o755);
    expect(Object.keys(after).filter((p) => p === "script.sh" || p === "old.txt")).toEqual([]);
  });

  test("hunks split by @@, pure deletions take their newline, CRLF files stay CRLF", async () => {
    const patch = "*** Update File: src/a.ts\n-import x from 'x';\n@@\n-export const b = 2;\n+export const b = 3;\n*** Update File: crlf.txt\r\n-two\r\n+2\r\n";
    expect(await apply(patch)).toBe("Applied 2 change(s):\n- updated src/a.ts\n- updated crlf.txt");
    expect(ws.read("src/a.ts")).toBe("\nexport const a = 1;\nexport const b = 3;\n");
    expect(ws.read("crlf.txt")).toBe("one\r\n2\r\n");
  });

  test("an Update with only a Move to moves the file unchanged", async () => {
    expect(await apply("*** Update File: old.txt\n*** Move to: archive/old.txt\n")).toBe("Applied 1 change(s):\n- moved old.txt to archive/old.txt");
    expect(ws.read("archive/old.txt")).toBe("to delete\n");
    expect(Object.keys(ws.snapshot())).not.toContain("old.txt");
  });

  test("a failing check writes nothing", async () => {
    const before = ws.snapshot();
    const good = "*** Add File: fresh.txt\n+x\n*** Update File: src/a.ts\n-export const a = 1;\n+export const a = 5;\n";
    const cases: [string, string][] = [
      [`${good}*** Update File: src/dup.ts\n-nothing here\n+x`, "src/dup.ts: the - lines do not match the file. Nothing was written."],
      [`${good}*** Update File: src/dup.ts\n-same\n+x`, "src/dup.ts: the - lines appear 2 times. Add context to make them unique."],
      [`${good}*** Delete File: gone.txt`, "cannot delete gone.txt: no such file"],
      [`${good}*** Add File: old.txt\n+x`, "cannot add old.txt: it already exists"],
      [`${good}*** Update File: gone.txt\n-a\n+b`, "cannot update gone.txt: no such file"],
      [`${good}*** Update File: image.bin\n-a\n+b`, "cannot update image.bin: it is a binary file"],
      [`${good}*** Update File: old.txt\n*** Move to: src/dup.ts\n-to delete\n+x`, "cannot move old.txt: src/dup.ts already exists"],
      [`${good}*** Delete File: src/a.ts`, "src/a.ts appears twice in one patch"],
      [`${good}*** Add File: ../escape.txt\n+x`, "Path escapes workspace: ../escape.txt"],
    ];
    for (const [patch, message] of cases) expect(await errorOf(apply(patch))).toBe(message);
    expect(ws.snapshot()).toEqual(before);
  });

  test("a file that is not UTF-8 is refused; a byte-order mark survives an update", async () => {
    ws.write("latin1.txt", Buffer.from("caf\xe9\nname = old\n", "latin1"));
    ws.write("bom.txt", Buffer.from("\uFEFFname = old\n", "utf8"));
    const before = ws.snapshot();
    expect(await errorOf(apply("*** Update File: bom.txt\n-name = old\n+name = new\n*** Update File: latin1.txt\n-name = old\n+name = new\n"))).toBe(
      "cannot update latin1.txt: it is not UTF-8 text",
    );
    expect(ws.snapshot()).toEqual(before);
    expect(await apply("*** Update File: bom.txt\n-name = old\n+name = new\n")).toBe("Applied 1 change(s):\n- updated bom.txt");
    expect(readFileSync(join(ws.root, "bom.txt"))).toEqual(Buffer.from("\uFEFFname = new\n", "utf8"));
  });

  test("a write failing midway restores every file and removes new folders", async () => {
    const before = ws.snapshot();
    const patch = [
      "*** Update File: src/a.ts",
      "-export const a = 1;",
      "+export const a = 7;",
      "*** Add File: made/deep/x.txt",
      "+x",
      "*** Update File: script.sh",
      "*** Move to: moved/run.sh",
      "-echo old",
      "+echo moved",
      "*** Delete File: old.txt",
      "*** Add File: blocker/inside.txt",
      "+y",
    ].join("\n");
    const message = await errorOf(apply(patch));
    expect(message).toBe(
      "the patch failed while writing (Cannot create blocker/inside.txt: a file stands where a parent directory should be.); every file was restored",
    );
    expect(ws.snapshot()).toEqual(before);
    expect(statSync(join(ws.root, "script.sh")).mode & 0o777).toBe(0o755);
  });

  test("parse errors", () => {
    const cases: [string, string][] = [
      ["", "the patch is empty"],
      ["*** Begin Patch\n*** End Patch\n", "the patch is empty"],
      ["hello\n*** Add File: a\n+x", "patch line 1 is not a marker or part of a hunk: hello"],
      [`*** Begin Patch\n${"y".repeat(80)}`, `patch line 2 is not a marker or part of a hunk: ${"y".repeat(60)}`],
      ["*** Add File: a\n*** Move to: b\n+x", 'a: "Move to" is only valid on an Update'],
      ["*** Update File: a\n-x\n*** Move to: b", 'a: "Move to" is only valid on an Update'],
      ["*** Update File: a\n-x\n context", "a: hunk line 3 starts with neither + nor -:  context"],
      ["*** Add File: a\n+x\n-y", "a: an Add cannot remove lines"],
      ["*** Update File: a\n+x", "a: an Update needs at least one - line to locate the change"],
      ["*** Update File: a\n-x\n+y\n@@\n+z", "a: an Update needs at least one - line to locate the change"],
      ["*** Delete File: a\n-x", "a: a Delete takes no + or - lines"],
    ];
    const got = cases.map(([patch]) => {
      try {
        parsePatch(patch);
        return "parsed";
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(got).toEqual(cases.map(([, message]) => message));
  });

  test("parsePatch shape and subjects", () => {
    const patch = "*** Update File: a.ts\n*** Move to: b.ts\n-x\n+y\n*** Add File: c.ts\n*** Delete File: d.ts\n";
    expect(parsePatch(patch)).toEqual([
      { kind: "update", path: "a.ts", moveTo: "b.ts", hunks: [{ remove: ["x"], add: ["y"] }] },
      { kind: "add", path: "c.ts", lines: [] },
      { kind: "delete", path: "d.ts" },
    ]);
    expect(patchPaths(patch)).toEqual(["a.ts", "b.ts", "c.ts", "d.ts"]);
    expect(applyPatchTool.paths!({ patch }, "/ws")).toEqual(["a.ts", "b.ts", "c.ts", "d.ts"]);
  });
});

test("permission subjects break patch lines where the parser does, a lone \\r included", () => {
  const patch = "*** Begin Patch\r*** Add File: .env\r+TOKEN=1\r*** Update File: a.txt\r*** Move to: b.lock\r-x\r+y\r*** End Patch";
  expect(patchPaths(patch)).toEqual([".env", "a.txt", "b.lock"]);
  expect(parsePatch(patch).map((op) => op.path)).toEqual([".env", "a.txt"]);
});
