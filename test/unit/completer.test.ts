/** REPL tab completion: slash commands with the exact name first, and @paths prefix-first. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCompleter } from "../../lib/ui/completer.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "shiro-completer-"));
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "app.ts"), "");
  writeFileSync(join(root, "app.md"), "");
  writeFileSync(join(root, "README.md"), "");
  writeFileSync(join(root, ".gitignore"), "dist/\n");
  mkdirSync(join(root, "dist"));
  writeFileSync(join(root, "dist", "app.js"), "");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const complete = (completer: ReturnType<typeof createCompleter>, line: string) =>
  new Promise<[string[], string]>((resolve) => completer(line, (_error, result) => resolve(result)));

test("slash commands complete by prefix, the exact name first", async () => {
  const completer = createCompleter({ root, commands: ["/models", "/model", "/memory", "/help"] });
  expect(await complete(completer, "/mo")).toEqual([["/model", "/models"], "/mo"]);
  expect(await complete(completer, "/model")).toEqual([["/model", "/models"], "/model"]);
  expect(await complete(completer, "/model x")).toEqual([[], "/model x"]);
});

test("@ completes workspace files, prefix matches before substring matches, ignored files left out", async () => {
  const completer = createCompleter({ root, commands: [] });
  expect(await complete(completer, "look at @app")).toEqual([["@app.md", "@src/app.ts"], "@app"]);
  expect(await complete(completer, "@READ")).toEqual([["@README.md"], "@READ"]);
  expect(await complete(completer, "no token here")).toEqual([[], "no token here"]);
});

test("after a command and a space, its values complete by prefix; a command without values completes nothing", async () => {
  const values = (command: string) => (command === "/think" ? ["off", "low", "medium", "high", "max"] : command === "/agent" ? ["default", "deep"] : undefined);
  const completer = createCompleter({ root, commands: ["/think", "/agent", "/compact"], values });
  expect(await complete(completer, "/think m")).toEqual([["medium", "max"], "m"]);
  expect(await complete(completer, "/think ")).toEqual([["off", "low", "medium", "high", "max"], ""]);
  expect(await complete(completer, "/agent de")).toEqual([["default", "deep"], "de"]);
  expect(await complete(completer, "/compact fo")).toEqual([[], "/compact fo"]);
});
