/** Prompt history: per directory, 200 at most, no consecutive repeats, old and damaged files handled. */
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { appendHistory, loadHistory } from "../../lib/store/history.ts";
import { useTempHome } from "./temp-home.ts";

const DIR = "/work/project-a";
useTempHome("shiro-history-");

test("appends in order, skips a repeat of the newest entry and blank lines, keeps directories apart", () => {
  expect(loadHistory(DIR)).toEqual([]);
  appendHistory(DIR, "fix the build");
  appendHistory(DIR, "fix the build");
  appendHistory(DIR, "   ");
  appendHistory(DIR, "run the tests");
  expect(appendHistory(DIR, "fix the build")).toEqual(["fix the build", "run the tests", "fix the build"]);
  appendHistory("/work/project-b", "elsewhere");
  expect(JSON.parse(readFileSync(paths.history(DIR), "utf8"))).toEqual({ version: 1, entries: ["fix the build", "run the tests", "fix the build"] });
  expect(loadHistory("/work/project-b")).toEqual(["elsewhere"]);
});

test("keeps the newest 200", () => {
  for (let i = 0; i < 205; i++) appendHistory(DIR, `prompt ${i}`);
  const entries = loadHistory(DIR);
  expect(entries.length).toBe(200);
  expect(entries[0]).toBe("prompt 5");
  expect(entries[199]).toBe("prompt 204");
});

test("a bare array (version 0) reads and is upgraded by the next append", () => {
  mkdirSync(dirname(paths.history(DIR)), { recursive: true });
  writeFileSync(paths.history(DIR), JSON.stringify(["old one", "old two"]));
  expect(loadHistory(DIR)).toEqual(["old one", "old two"]);
  appendHistory(DIR, "new");
  expect(JSON.parse(readFileSync(paths.history(DIR), "utf8"))).toEqual({ version: 1, entries: ["old one", "old two", "new"] });
});

test("a damaged file reads as empty and is moved aside, not overwritten, by the next append", () => {
  mkdirSync(dirname(paths.history(DIR)), { recursive: true });
  writeFileSync(paths.history(DIR), '["half');
  expect(loadHistory(DIR)).toEqual([]);
  expect(appendHistory(DIR, "fresh start")).toEqual(["fresh start"]);
  const backups = readdirSync(dirname(paths.history(DIR))).filter((name) => name.includes(".corrupt-"));
  expect(backups.map((name) => readFileSync(join(dirname(paths.history(DIR)), name), "utf8"))).toEqual(['["half']);
});
