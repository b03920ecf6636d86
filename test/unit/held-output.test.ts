/** Output held while a question is open comes out in order once the last hold is released. */
import { expect, test } from "bun:test";
import { createHeldOutput } from "../../lib/ui/held-output.ts";

test("holds nest, a release twice counts once, and held text keeps its order", () => {
  const written: string[] = [];
  const held = createHeldOutput((text) => written.push(text));
  held.write("a");
  const first = held.hold();
  const second = held.hold();
  held.write("b");
  held.write("c");
  first();
  first();
  expect(written).toEqual(["a"]);
  second();
  expect(written).toEqual(["a", "bc"]);
  held.write("d");
  expect(written).toEqual(["a", "bc", "d"]);
});
