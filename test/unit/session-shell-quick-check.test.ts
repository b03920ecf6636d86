/**
 * The session shell's hand check (lib/store/session-record.ts `isSessionShell`) knows exactly the
 * schema's fields, and what it passes for an id, the schema passes with that id and the same
 * messages; what it refuses is left to the schema (sessions.ts `readSessionMessages`).
 */
import { expect, test } from "bun:test";
import * as v from "valibot";
import { isSessionShell, sessionShellSchema } from "../../lib/store/session-record.ts";
import { sameFields } from "../../lib/store/quick-check.ts";

const ID = "0190aaaa-0000-7000-8000-000000000001";
const SHELL = { version: 1, id: ID, title: "t", messages: [{ role: "user", parts: [] }, 7] };

test("the hand check knows every field of the schema", () => {
  expect(sameFields(sessionShellSchema() as unknown as { entries: object }, ["version", "id", "messages"])).toBe(true);
});

test("what the hand check passes, the schema passes with the same id and messages", () => {
  const raws: unknown[] = [
    SHELL,
    { ...SHELL, messages: [] },
    { ...SHELL, version: 2 },
    { ...SHELL, version: "1" },
    { ...SHELL, id: "0190aaaa-0000-7000-8000-000000000002" },
    { ...SHELL, messages: {} },
    { version: 1, messages: [] },
    [SHELL],
    null,
    "text",
  ];
  const passed: unknown[] = [];
  for (const raw of raws) {
    if (!isSessionShell(raw, ID)) continue;
    passed.push(raw);
    const schema = v.safeParse(sessionShellSchema(), raw);
    const output = schema.success ? schema.output : undefined;
    expect({ success: schema.success, id: output?.id, messages: output?.messages }).toEqual({
      success: true,
      id: ID,
      messages: raw.messages,
    });
  }
  expect(passed).toEqual([SHELL, { ...SHELL, messages: [] }]);
  expect(isSessionShell(SHELL, ID)).toBe(true);
  expect(isSessionShell({ ...SHELL, id: "NOT AN ID" }, "NOT AN ID")).toBe(false);
});
