/**
 * Images on a user message: each adapter's wire shape, the type read from the first bytes, the
 * vision flag per model family, the fixed token estimate, the redactor leaving the base64 alone,
 * and an old session (no `images`) and a new one both valid.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { estimateTokens, IMAGE_TOKEN_ESTIMATE } from "../../lib/agent/context/planner.ts";
import type { Message } from "../../lib/messages.ts";
import { toAnthropicMessages } from "../../lib/providers/anthropic.ts";
import { toChatMessages } from "../../lib/providers/openai-chat.ts";
import { toResponsesInput } from "../../lib/providers/openai-responses.ts";
import { acceptsImages } from "../../lib/providers/windows.ts";
import { redactValue } from "../../lib/secrets/redact.ts";
import { messageSchema } from "../../lib/store/session-schema.ts";
import { detectImageType, IMAGE_MAX_BYTES, readImageAttachment } from "../../lib/ui/attach-image.ts";
import { attachMentions } from "../../lib/ui/attachments.ts";

/** A real 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const withImage: Message = { role: "user", content: "what is this?", images: [{ mediaType: "image/png", data: PNG }] };

describe("adapters send images in their wire shape", () => {
  test("Anthropic: an image block with a base64 source, before the text", () => {
    expect(toAnthropicMessages([withImage], { replayThinking: false })).toEqual([
      {
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          { type: "text", text: "what is this?" },
        ],
      },
    ]);
  });
  test("OpenAI chat: a content list, text then image_url with a data URL", () => {
    expect(toChatMessages([withImage])).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });
  test("OpenAI Responses: input_text then input_image with a data URL", () => {
    expect(toResponsesInput([withImage])).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "what is this?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        ],
      },
    ]);
  });
  test("a message without images keeps its plain shape everywhere", () => {
    const plain: Message = { role: "user", content: "hi" };
    expect(toChatMessages([plain])).toEqual([{ role: "user", content: "hi" }]);
    expect(toResponsesInput([plain])).toEqual([{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }]);
    expect(toAnthropicMessages([plain], { replayThinking: false })).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });
});

describe("the image type comes from the first bytes", () => {
  const table: [string, number[], string | undefined][] = [
    ["PNG", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0], "image/png"],
    ["JPEG", [0xff, 0xd8, 0xff, 0xe0, 0], "image/jpeg"],
    ["GIF89a", [...Buffer.from("GIF89a"), 0], "image/gif"],
    ["GIF87a", [...Buffer.from("GIF87a"), 0], "image/gif"],
    ["WebP", [...Buffer.from("RIFF"), 1, 2, 3, 4, ...Buffer.from("WEBP")], "image/webp"],
    ["a RIFF that is not WebP", [...Buffer.from("RIFF"), 1, 2, 3, 4, ...Buffer.from("WAVE")], undefined],
    ["text", [...Buffer.from("hello, world")], undefined],
    ["a truncated PNG signature", [0x89, 0x50, 0x4e], undefined],
    ["nothing", [], undefined],
  ];
  for (const [name, bytes, type] of table) test(`${name} → ${type}`, () => expect(detectImageType(Uint8Array.from(bytes))).toBe(type as never));
});

describe("reading an @image", () => {
  const root = mkdtempSync(join(tmpdir(), "shiro-images-"));
  test("a PNG named .jpg goes as what its bytes say; text named .png, an oversized file and a named pipe are refused in one line", async () => {
    writeFileSync(join(root, "real.jpg"), Buffer.from(PNG, "base64"));
    writeFileSync(join(root, "fake.png"), "not an image\n");
    writeFileSync(join(root, "big.png"), Buffer.alloc(IMAGE_MAX_BYTES + 1));
    expect(await readImageAttachment(root, "real.jpg", undefined)).toEqual({ mediaType: "image/png", data: PNG });
    await expect(readImageAttachment(root, "fake.png", undefined)).rejects.toThrow("not a PNG, JPEG, GIF or WebP image (its first bytes say otherwise)");
    await expect(readImageAttachment(root, "big.png", undefined)).rejects.toThrow("5.0 MB is over the 5 MB image limit; scale it down first");
    await expect(readImageAttachment(root, "real.jpg", "llama3.1")).rejects.toThrow("the model llama3.1 does not take images");
    if (spawnSync("mkfifo", [join(root, "pipe.png")], { timeout: 5_000 }).status === 0) {
      await expect(readImageAttachment(root, "pipe.png", undefined)).rejects.toThrow("not a regular file");
    }
  });
  test("attachMentions: the text keeps [image: path], the image rides along", async () => {
    writeFileSync(join(root, "pic.png"), Buffer.from(PNG, "base64"));
    const result = await attachMentions("look @pic.png", { root, ask: async () => "n" });
    expect(result.prompt).toBe("look @pic.png\n\n[image: pic.png]");
    expect(result.images).toEqual([{ mediaType: "image/png", data: PNG }]);
    expect(result.report).toEqual([`attached @pic.png (image, PNG, ${Buffer.from(PNG, "base64").length} bytes)`]);
    const refused = await attachMentions("look @pic.png", { root, ask: async () => "n", imagesRefusedBy: "qwen3" });
    expect(refused).toEqual({ prompt: "look @pic.png", images: [], report: ["@pic.png not attached: the model qwen3 does not take images"] });
    rmSync(root, { recursive: true, force: true });
  });
});

test("vision per model family: the big vendors' current families yes, unknown and local ones no", () => {
  for (const model of [
    "gpt-5",
    "gpt-5-mini",
    "gpt-4o",
    "gpt-4.1-nano",
    "o3",
    "o4-mini",
    "claude-sonnet-4-5",
    "anthropic/claude-opus-4.1",
    "gemini-2.5-pro",
    "grok-4",
  ]) {
    expect([model, acceptsImages(model)]).toEqual([model, true]);
  }
  for (const model of ["llama3.1:8b", "qwen2.5-coder:7b", "deepseek-chat", "gpt-oss-20b", "my-local-model", ""]) {
    expect([model, acceptsImages(model)]).toEqual([model, false]);
  }
});

test("an image counts as a fixed token estimate, whatever its base64 length", () => {
  const small = estimateTokens([withImage]);
  const large = estimateTokens([{ ...withImage, images: [{ mediaType: "image/png", data: "A".repeat(4_000_000) }] }]);
  expect(small).toBe(large);
  expect(small - estimateTokens([{ role: "user", content: "what is this?" }])).toBeGreaterThanOrEqual(IMAGE_TOKEN_ESTIMATE - 10);
  expect(estimateTokens([{ role: "user", content: "hi" }])).toBe(Math.round(JSON.stringify([{ role: "user", content: "hi" }]).length / 4));
});

test("the redactor leaves an image's base64 whole, even where it looks like a key", () => {
  const lookalike = `${PNG.slice(0, -1)}AKIAIOSFODNN7EXAMPLEghp_${"a1B2".repeat(9)}`;
  const message = { role: "user", content: "x", images: [{ mediaType: "image/png", data: lookalike }] };
  expect(redactValue(message)).toBe(message);
  expect(redactValue({ role: "user", content: "x", images: [{ mediaType: "image/png", data: PNG }] }).images[0]!.data).toBe(PNG);
});

test("a stored user message with or without images is valid; a bad media type is not", () => {
  expect(v.safeParse(messageSchema(), { role: "user", content: "old" }).success).toBe(true);
  expect(v.safeParse(messageSchema(), withImage).success).toBe(true);
  expect(v.safeParse(messageSchema(), { role: "user", content: "x", images: [{ mediaType: "image/tiff", data: PNG }] }).success).toBe(false);
});
