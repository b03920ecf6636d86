import { describe, expect, test } from "bun:test";
import { ROOT_FLAGS } from "../../lib/config/flags.ts";
import { parseFlags } from "../../cmd/_flags.ts";
import { UsageError } from "../../lib/platform/errors.ts";

describe("parseFlags", () => {
  test("a flag takes the next item unless it starts with a dash", () => {
    expect(parseFlags(["-p", "--json"], ROOT_FLAGS)).toEqual({ _: [], print: "", json: true });
    expect(parseFlags(["-p", "-", "--json"], ROOT_FLAGS)).toEqual({ _: [], print: "", json: true });
    expect(parseFlags(["--print", "-"], ROOT_FLAGS)).toEqual({ _: [], print: "" });
    expect(parseFlags(["-p", "hello there", "--model", "m1"], ROOT_FLAGS)).toEqual({ _: [], print: "hello there", model: "m1" });
    expect(parseFlags(["--base-url=http://x/v1", "-c"], ROOT_FLAGS)).toEqual({ _: [], "base-url": "http://x/v1", continue: true });
  });

  test("unknown flags, missing values and bad choices are usage errors", () => {
    expect(() => parseFlags(["--bogus"], ROOT_FLAGS)).toThrow(new UsageError("unknown flag --bogus"));
    expect(() => parseFlags(["--model"], ROOT_FLAGS)).toThrow(new UsageError("--model needs a value <id>"));
    expect(() => parseFlags(["--agent", "x"], ROOT_FLAGS)).toThrow(
      new UsageError('unknown agent "x" for --agent. Available: default, quick, deep, plan, review'),
    );
    expect(() => parseFlags(["--yolo=1"], ROOT_FLAGS)).toThrow(new UsageError("--yolo takes no value"));
  });
});
