/**
 * Subcommands parse their argv once, with the root's strict parser: `run` receives exactly the
 * args object built from that parse (flags, positionals by name, `_`), whatever the spelling, and
 * anything the parser refuses never reaches `run`.
 */
import { describe, expect, test } from "bun:test";
import { defineCommand } from "citty";
import { runStrict } from "../../cmd/_run-citty.ts";
import { UsageError } from "../../lib/platform/errors.ts";

function recorder() {
  const calls: { args: Record<string, unknown>; rawArgs: string[] }[] = [];
  const leaf = defineCommand({
    meta: { name: "add", description: "add one" },
    args: {
      name: { type: "positional", description: "a name" },
      note: { type: "positional", description: "a note", required: false },
      json: { type: "boolean", description: "JSON" },
      limit: { type: "string", alias: "l", description: "how many" },
      kind: { type: "enum", options: ["a", "b"], description: "kind" },
      level: { type: "string", description: "level", default: "low" },
    },
    run({ args, rawArgs }) {
      calls.push({ args: { ...args }, rawArgs });
    },
  });
  const root = defineCommand({ meta: { name: "thing" }, subCommands: { add: leaf } });
  return { root, calls };
}

describe("runStrict", () => {
  test.each([
    [["add", "n1", "--json", "--limit", "5", "--kind", "b"]],
    [["add", "--json", "n1", "--limit=5", "--kind=b"]],
    [["add", "-l", "5", "n1", "--kind", "b", "--json"]],
    [["add", "--kind", "b", "--json", "-l", "5", "--", "n1"]],
  ])("%j: run gets the same args", async (argv) => {
    const { root, calls } = recorder();
    await runStrict(root, argv, "shiro thing");
    expect(calls).toEqual([{ args: { _: ["n1"], name: "n1", json: true, limit: "5", kind: "b", level: "low" }, rawArgs: argv.slice(1) }]);
  });

  test("an optional positional and a given default-carrying flag", async () => {
    const { root, calls } = recorder();
    await runStrict(root, ["add", "n1", "a note", "--level", "high"], "shiro thing");
    expect(calls.map((call) => call.args)).toEqual([{ _: ["n1", "a note"], name: "n1", note: "a note", level: "high" }]);
  });

  test.each([
    [["add", "n1", "--no-json"], "unknown flag --no-json"],
    [["add", "n1", "--json=false"], "--json takes no value"],
    [["add", "n1", "--limit"], "--limit needs a value"],
    [["add", "n1", "--kind", "c"], 'unknown value "c" for --kind. Available: a, b'],
    [["add", "n1", "note", "extra"], 'unexpected argument "extra" for shiro thing add'],
    [["add"], "shiro thing add needs <name>"],
    [["remove"], 'unknown command "shiro thing remove". Available: add'],
    [[], "shiro thing needs a command: add"],
  ])("%j is a usage error that never reaches run", async (argv, message) => {
    const { root, calls } = recorder();
    await expect(runStrict(root, argv, "shiro thing")).rejects.toThrow(new UsageError(message));
    expect(calls).toEqual([]);
  });
});

describe("the subcommand table", () => {
  test("each row's --help line lists every subcommand its module defines (aliases aside)", async () => {
    const { SUBCOMMANDS } = await import("../../cmd/_subcommands.ts");
    const { renderRootHelp } = await import("../../cmd/_help.ts");
    const help = renderRootHelp();
    const mismatched: string[] = [];
    for (const [name, row] of Object.entries(SUBCOMMANDS)) {
      const command = await row.load();
      const raw = typeof command.subCommands === "function" ? await command.subCommands() : command.subCommands;
      const defined = Object.entries((raw ?? {}) as Record<string, unknown>);
      // An alias is a second name for a command already listed (mcp rm → remove).
      const names = defined.filter(([, sub], i) => defined.findIndex(([, other]) => other === sub) === i).map(([key]) => key);
      const listed = [...(/^\[([^\]]*)\]/.exec(row.args)?.[1] ?? "").split("|")]
        .map((part) => part.split(" ")[0]!)
        .filter((word) => word && !word.startsWith("-"));
      if (names.sort().join(",") !== listed.sort().join(","))
        mismatched.push(`${name}: defines ${names.join(",") || "none"}, --help lists ${listed.join(",") || "none"}`);
      expect(help).toContain(`shiro ${[name, row.args].filter(Boolean).join(" ")}`);
    }
    expect(mismatched).toEqual([]);
  });
});
