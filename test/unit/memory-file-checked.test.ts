/**
 * A notes file the hand check passed is vouched for by its check record (`<file>.checked`,
 * memory-file.ts): a later process takes the file as parsed while the record names the build
 * running and the file's stamp now, and checks the file whenever anything else holds. The record
 * is written only when the entries as parsed are exactly the check's output. The bytes on disk
 * (the notes file, the record) are the input; the listing and the record left behind the output.
 * Each test reads its own path: within one process a file whose stamp holds is not read again.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileStamp } from "../../lib/state-file/file-stamp.ts";
import { openFileBacking, projectFileSchema } from "../../lib/store/memory-file.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-memory-file-checked-");

const BUILD = "0.1.0 abc123 2026-12-04T00:00:00.000Z";
const note = (extra: Record<string, unknown> = {}) => ({
  id: "01a23177-0000-7000-8000-000000000001",
  kind: "fact",
  text: "the queue retries",
  createdAt: "2026-11-28T10:00:00.000Z",
  hits: 0,
  ...extra,
});

const _write = (name: string, file: unknown): string => {
  mkdirSync(join(home.dir, "memory"), { recursive: true });
  const path = join(home.dir, "memory", `${name}.json`);
  writeFileSync(path, JSON.stringify(file));
  return path;
};
const _backing = (path: string, build: string | null = BUILD, notices: string[] = []) =>
  openFileBacking(
    { label: "project memory", path, schema: projectFileSchema, header: { project: "/p" }, checkedPath: `${path}.checked`, build: build ?? undefined },
    { onNotice: (text) => notices.push(text) },
  );
const _record = (path: string, build = BUILD, stamp = fileStamp(path)) => `shiro notes checked 1\n${build}\n${stamp}\n`;
// What the check refuses (no such kind), kept to the length of a real one.
const _refused = { version: 1, project: "/p", entries: [note({ kind: "facx" })] };

describe("a notes file's check record", () => {
  test("is written after a check that gives the file's entries as parsed, naming the build and the stamp", () => {
    const path = _write("plain", { version: 1, project: "/p", entries: [note(), note({ id: "01a23177-0000-7000-8000-000000000002", hits: 3 })] });
    expect(
      _backing(path)
        .read()
        .map((entry) => entry.id),
    ).toHaveLength(2);
    expect(readFileSync(`${path}.checked`, "utf8")).toBe(_record(path));
  });

  test("vouches for the file while it names the build running and the file's stamp now: the entries are taken as parsed", () => {
    const path = _write("vouched", _refused);
    writeFileSync(`${path}.checked`, _record(path));
    expect(_backing(path).read() as unknown[]).toEqual([note({ kind: "facx" })]);
  });

  test("another build, another stamp, a cut record or another header: the file is checked (and refused here)", () => {
    const path = _write("out-of-date", _refused);
    const stamp = fileStamp(path)!;
    for (const text of [
      _record(path, "0.1.0 def456 2026-12-04T00:00:00.000Z"),
      _record(path, BUILD, `${stamp}1`),
      _record(path).slice(0, -1),
      _record(path).replace("checked 1", "checked 2"),
    ]) {
      writeFileSync(`${path}.checked`, text);
      const notices: string[] = [];
      expect(_backing(path, BUILD, notices).read()).toEqual([]);
      expect(notices).toHaveLength(1);
    }
  });

  test("is not written for a file whose entries the check changes: hits added, a field dropped, keys reordered", () => {
    const { hits: _, ...withoutHits } = note();
    const { id, ...rest } = note();
    for (const [name, entry] of [
      ["no-hits", withoutHits],
      ["unknown-field", note({ colour: "blue" })],
      ["reordered", { ...rest, id }],
    ] as const) {
      const path = _write(name, { version: 1, project: "/p", entries: [entry] });
      expect(
        _backing(path)
          .read()
          .map((read) => read.id),
      ).toEqual([note().id]);
      expect(existsSync(`${path}.checked`)).toBe(false);
    }
  });

  test("is neither read nor written without a build (a source run)", () => {
    const path = _write("source-run", _refused);
    writeFileSync(`${path}.checked`, _record(path));
    expect(_backing(path, null).read()).toEqual([]);
    const plain = _write("source-run-plain", { version: 1, project: "/p", entries: [note()] });
    expect(_backing(plain, null).read()).toHaveLength(1);
    expect(existsSync(`${plain}.checked`)).toBe(false);
  });
});
