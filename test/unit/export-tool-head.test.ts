/** The header of a folded tool call in exports: the files a change touches, else the input's first line. */
import { expect, test } from "bun:test";
import { describeToolHead } from "../../lib/export/export-entries.ts";

test("a change names its files; anything else shows its input's first line", () => {
  const patch = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/b.ts\n+z\n*** Delete File: old.ts\n*** End Patch";
  const rows: [string, unknown, string][] = [
    ["edit_file", { path: "parser.ts", oldString: "a", newString: "b" }, "parser.ts"],
    ["multi_edit", { path: "lib/x.ts", edits: [{ oldString: "a", newString: "b" }] }, "lib/x.ts"],
    ["write_file", { path: "notes.md", content: "hello\nworld" }, "notes.md"],
    ["apply_patch", { patch }, "src/a.ts, src/b.ts, old.ts"],
    ["apply_patch", { patch: "not a patch\nat all" }, "not a patch"],
    ["bash", { command: "echo hi\necho there" }, "$ echo hi"],
    ["read_file", { path: "deploy-notes.txt" }, "deploy-notes.txt"],
  ];
  for (const [name, input, head] of rows) expect({ name, head: describeToolHead(name, input) }).toEqual({ name, head });
});
