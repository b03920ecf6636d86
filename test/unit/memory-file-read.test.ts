/**
 * Reading a memory file gives what the schema gives, whatever the file holds: the entries of a
 * file in this version's shape (read without running the schema over each), unknown fields
 * dropped and `hits` defaulted exactly as the schema does, keys in the same order; and every file
 * the schema refuses is still refused with the schema's reason. The bytes on disk are the input,
 * the store's listing the output.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as v from "valibot";
import { paths } from "../../lib/platform/paths.ts";
import { projectFileSchema } from "../../lib/store/memory-file.ts";
import { openMemory, sortNewestFirst } from "../../lib/store/memory.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-memory-file-read-");

const note = (extra: Record<string, unknown> = {}) => ({
  id: "01a23177-0000-7000-8000-000000000001",
  kind: "fact",
  text: "the queue retries",
  createdAt: "2026-11-28T10:00:00.000Z",
  ...extra,
});

const files: [string, unknown][] = [
  ["a plain note", { version: 1, project: "/p", entries: [note({ hits: 2 })] }],
  ["hits absent", { version: 1, project: "/p", entries: [note()] }],
  [
    "every optional field, keys shuffled",
    {
      version: 1,
      project: "/p",
      entries: [
        {
          source: {
            untrusted: ["bash"],
            files: [
              { hash: null, path: "a.ts" },
              { path: "b.ts", hash: "0123456789abcdef" },
            ],
            commit: "c",
            agent: "build",
            runId: "r",
            sessionId: "s",
          },
          verifiedAt: "2026-11-29T00:00:00.000Z",
          lastHitAt: "2026-11-29T00:00:00.000Z",
          hits: 0,
          createdAt: "2026-11-28T10:00:00.000Z",
          text: "t",
          kind: "gotcha",
          id: "x",
        },
      ],
    },
  ],
  [
    "unknown fields at every level",
    { version: 1, project: "/p", extra: 1, entries: [note({ later: true, source: { files: [{ path: "a.ts", hash: null, size: 3 }], scope: "x" } })] },
  ],
  ["an empty source", { version: 1, project: "/p", entries: [note({ source: {} })] }],
  [
    "many notes",
    {
      version: 1,
      project: "/p",
      entries: Array.from({ length: 50 }, (_, i) =>
        note({ id: `id-${i}`, createdAt: `2026-11-${String((i % 28) + 1).padStart(2, "0")}T00:00:00.000Z`, hits: i % 3 }),
      ),
    },
  ],
  ["no entries", { version: 1, project: "/p", entries: [] }],
  ["a bare array (version 0)", [note({ hits: 1 })]],
  ["a note without text", { version: 1, project: "/p", entries: [note({ text: "" })] }],
  ["an unknown kind", { version: 1, project: "/p", entries: [note({ kind: "rumour" })] }],
  ["negative hits", { version: 1, project: "/p", entries: [note({ hits: -1 })] }],
  ["fractional hits", { version: 1, project: "/p", entries: [note({ hits: 1.5 })] }],
  ["null hits", { version: 1, project: "/p", entries: [note({ hits: null })] }],
  ["a numeric id", { version: 1, project: "/p", entries: [note({ id: 7 })] }],
  ["a null lastHitAt", { version: 1, project: "/p", entries: [note({ lastHitAt: null })] }],
  ["a file hash that is a number", { version: 1, project: "/p", entries: [note({ source: { files: [{ path: "a.ts", hash: 1 }] } })] }],
  ["untrusted marks that are not strings", { version: 1, project: "/p", entries: [note({ source: { untrusted: [1] } })] }],
  ["a source that is a string", { version: 1, project: "/p", entries: [note({ source: "s" })] }],
  ["an entry that is an array", { version: 1, project: "/p", entries: [[1]] }],
  ["no project field", { version: 1, entries: [note()] }],
  ["a newer version", { version: 2, project: "/p", entries: [note()] }],
  ["no version", { project: "/p", entries: [note()] }],
  ["entries that are not a list", { version: 1, project: "/p", entries: {} }],
];

describe("reading a memory file", () => {
  test.each(files)("%s: the listing is the schema's", (_label, content) => {
    const root = join(home.dir, "repo");
    const path = paths.projectMemory(root);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(content, null, 2));
    const notices: string[] = [];
    const listed = openMemory(root, { onNotice: (text) => notices.push(text) }).list();
    const parsed = v.safeParse(projectFileSchema(), content);
    if (parsed.success && (Array.isArray(content) || (content as { version?: unknown }).version === 1)) {
      expect(JSON.stringify(listed)).toBe(JSON.stringify(sortNewestFirst(parsed.output.entries)));
      expect(notices).toEqual([]);
    } else {
      expect(listed).toEqual([]);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toStartWith(`project memory ${path} is unreadable (`);
    }
  });

  test("a missing file lists nothing and tells nothing", () => {
    const notices: string[] = [];
    expect(openMemory(join(home.dir, "none"), { onNotice: (text) => notices.push(text) }).list()).toEqual([]);
    expect(notices).toEqual([]);
  });
});
