/**
 * `@pic.png` in the REPL, through the built binary: a real PNG reaches the fake provider as an
 * image part in each protocol's wire shape (the fake checks it against the vendored schemas), the
 * session keeps it so a resumed session sends it again, a model without vision and an oversized
 * or fake image are each refused in one line and nothing is sent for them.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, useE2E, type WireProtocol } from "./_harness.ts";
import { startPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

/** A real 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const DATA_URL = `data:image/png;base64,${PNG}`;

async function withRepl(protocol: WireProtocol, args: string[], body: (repl: PtyDriver) => Promise<void>): Promise<void> {
  const repl = startPty(args, { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, protocol) });
  try {
    await repl.until("› ");
    await body(repl);
    repl.type("\x04");
    await repl.exited;
  } finally {
    repl.kill();
    await repl.exited;
  }
}

/** The user turns of a recorded request body, in the protocol's own shape (Anthropic's prompt-cache marks left out). */
function userContents(protocol: WireProtocol, body: any): unknown[] {
  if (protocol === "anthropic") {
    return body.messages
      .filter((message: any) => message.role === "user")
      .map((message: any) => message.content.map(({ cache_control: _, ...block }: any) => block));
  }
  if (protocol === "chat") return body.messages.filter((message: any) => message.role === "user").map((message: any) => message.content);
  return body.input.filter((item: any) => item.type === "message" && item.role === "user").map((item: any) => item.content);
}

const PROMPT = "what is in @pic.png?";
const TEXT = `${PROMPT}\n\n[image: pic.png]`;
const expected: Record<WireProtocol, unknown> = {
  chat: [
    { type: "text", text: TEXT },
    { type: "image_url", image_url: { url: DATA_URL } },
  ],
  responses: [
    { type: "input_text", text: TEXT },
    { type: "input_image", image_url: DATA_URL, detail: "auto" },
  ],
  anthropic: [
    { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    { type: "text", text: TEXT },
  ],
};

describe("@pic.png attaches an image", () => {
  for (const protocol of ["chat", "responses", "anthropic"] as const) {
    test(`${protocol}: the image reaches the provider in its wire shape, and a resumed session sends it again`, async () => {
      writeFileSync(join(e2e.dirs.cwd, "pic.png"), Buffer.from(PNG, "base64"));
      e2e.fake.script({ text: "a single pixel" }, { text: "still a pixel" });
      await withRepl(protocol, [], async (repl) => {
        repl.type(`${PROMPT}\r`);
        const at = await repl.until(`attached @pic.png (image, PNG, ${Buffer.from(PNG, "base64").length} bytes)`);
        await repl.until("a single pixel", at);
      });
      expect(e2e.fake.requests.length).toBe(1);
      expect(userContents(protocol, e2e.fake.requests[0]!.body)[0]).toEqual(expected[protocol]);

      await withRepl(protocol, ["-c"], async (repl) => {
        repl.type("and now?\r");
        await repl.until("still a pixel");
      });
      expect(e2e.fake.requests.length).toBe(2);
      expect(userContents(protocol, e2e.fake.requests[1]!.body)[0]).toEqual(expected[protocol]);
    }, 60_000);
  }
});

describe("@image refusals: one line, nothing sent for it", () => {
  const cases: [string, string[], () => void, string][] = [
    [
      "a model without vision",
      ["--model", "llama3.1:8b"],
      () => writeFileSync(join(e2e.dirs.cwd, "pic.png"), Buffer.from(PNG, "base64")),
      "@pic.png not attached: the model llama3.1:8b does not take images",
    ],
    [
      "an image over 5 MB",
      [],
      () => writeFileSync(join(e2e.dirs.cwd, "pic.png"), Buffer.concat([Buffer.from(PNG, "base64"), Buffer.alloc(6 * 1024 * 1024)])),
      "@pic.png not attached: 6.0 MB is over the 5 MB image limit; scale it down first",
    ],
    [
      "text named .png",
      [],
      () => writeFileSync(join(e2e.dirs.cwd, "pic.png"), "just text\n"),
      "@pic.png not attached: not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)",
    ],
  ];
  for (const [name, args, write, line] of cases) {
    test(name, async () => {
      write();
      e2e.fake.script({ text: "no picture" });
      await withRepl("chat", args, async (repl) => {
        repl.type(`${PROMPT}\r`);
        const at = await repl.until(line);
        await repl.until("no picture", at);
      });
      expect(e2e.fake.requests.length).toBe(1);
      expect(userContents("chat", e2e.fake.requests[0]!.body)).toEqual([PROMPT]);
    }, 60_000);
  }
});
