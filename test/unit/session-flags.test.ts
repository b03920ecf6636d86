import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { parseFlags } from "../../cmd/_flags.ts";
import { ROOT_FLAGS, agentFlagsFrom, flagsFromRunOptions, runOptionsFromFlags } from "../../lib/config/flags.ts";
import { runSchemas } from "../../lib/store/runs.ts";

/** A value each string flag accepts: its first choice that is not the default, or a free text. */
function _sample(name: string): string {
  const flag = ROOT_FLAGS.find((spec) => spec.name === name)!;
  return flag.choices?.find((choice) => choice !== flag.default) ?? `value-of-${name}`;
}

describe("one declaration per flag", () => {
  const withOption = ROOT_FLAGS.filter((flag) => flag.option);

  test("every flag with an option reaches AgentFlags under that name, spelled --flag v, --flag=v or by alias", () => {
    for (const flag of withOption) {
      const value = flag.kind === "boolean" ? true : flag.kind === "list" ? [_sample(flag.name)] : _sample(flag.name);
      const spellings =
        flag.kind === "boolean"
          ? [[`--${flag.name}`], ...(flag.alias ? [[`-${flag.alias}`]] : [])]
          : [[`--${flag.name}`, String(value)], [`--${flag.name}=${value}`], ...(flag.alias ? [[`-${flag.alias}`, String(value)]] : [])];
      for (const argv of spellings) {
        expect({ argv, got: (agentFlagsFrom(parseFlags(argv, ROOT_FLAGS)) as Record<string, unknown>)[flag.option!] }).toEqual({ argv, got: value });
      }
      if (flag.kind !== "list") continue;
      // A repeatable flag keeps every value, in order.
      const argv = [`--${flag.name}`, "first", `--${flag.name}=second`];
      expect({ argv, got: (agentFlagsFrom(parseFlags(argv, ROOT_FLAGS)) as Record<string, unknown>)[flag.option!] }).toEqual({
        argv,
        got: ["first", "second"],
      });
    }
  });

  test("absent flags: switches off, defaults in place, other strings absent", () => {
    const empty = agentFlagsFrom(parseFlags([], ROOT_FLAGS)) as Record<string, unknown>;
    for (const flag of withOption) {
      expect({ flag: flag.name, value: empty[flag.option!] }).toEqual({ flag: flag.name, value: flag.kind === "boolean" ? false : flag.default });
    }
  });

  test("every saved flag survives a run snapshot written to disk and read back; unsaved ones do not", () => {
    const argv = withOption.flatMap((flag) => (flag.kind === "boolean" ? [`--${flag.name}`] : [`--${flag.name}`, _sample(flag.name)]));
    const flags = agentFlagsFrom(parseFlags(argv, ROOT_FLAGS)) as Record<string, unknown>;
    const stored = v.parse(runSchemas().options, JSON.parse(JSON.stringify(runOptionsFromFlags(flags as never))));
    const back = flagsFromRunOptions(stored) as Record<string, unknown>;
    for (const flag of withOption) {
      const expected = flag.saved ? flags[flag.option!] : flag.kind === "boolean" ? false : flag.default;
      expect({ flag: flag.name, value: back[flag.option!] }).toEqual({ flag: flag.name, value: expected });
    }
    expect(Object.keys(stored).sort()).toEqual(
      withOption
        .filter((flag) => flag.saved)
        .map((flag) => flag.option!)
        .sort(),
    );
  });

  test("a snapshot from an older shiro (unknown keys, a value outside the choices) reads back safely", () => {
    const stored = v.parse(runSchemas().options, { yolo: true, json: true, approvals: "sometimes", model: "m1" });
    expect(flagsFromRunOptions(stored)).toMatchObject({ yolo: true, approvals: "deny", model: "m1", noSandbox: false, continue: false });
    expect("json" in stored).toBe(false);
  });
});
