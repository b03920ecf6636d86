/**
 * The shared SSE reader: events split across chunks, CRLF, named events, multi-line data,
 * comments, an unterminated tail, and abort.
 */
import { describe, expect, test } from "bun:test";
import { readSse, type SseMessage } from "../../lib/providers/_sse.ts";

function _body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function _read(body: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const message of readSse(body, signal)) messages.push(message);
  return messages;
}

describe("readSse", () => {
  test("reassembles events across chunk boundaries, including a split multi-byte character", async () => {
    const bytes = new TextEncoder().encode('data: {"t":"caf\u00e9"}\n\n');
    const cut = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut));
        controller.enqueue(new TextEncoder().encode("event: ping\r\nda"));
        controller.enqueue(new TextEncoder().encode("ta: {}\r\n\r\n: a comment\n\ndata: one\ndata: two\n\n"));
        controller.close();
      },
    });
    expect(await _read(body)).toEqual([{ data: '{"t":"café"}' }, { event: "ping", data: "{}" }, { data: "one\ntwo" }]);
  });

  test("an event the server never terminated is not yielded", async () => {
    expect(await _read(_body(["data: complete\n\n", "data: cut"]))).toEqual([{ data: "complete" }]);
  });

  test("abort cancels the body and throws the signal's reason", async () => {
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode("data: first\n\n"));
      },
    });
    const seen: SseMessage[] = [];
    const reading = (async () => {
      for await (const message of readSse(body, controller.signal)) {
        seen.push(message);
        controller.abort(new Error("stop reading"));
      }
    })();
    await expect(reading).rejects.toThrow("stop reading");
    expect(seen).toEqual([{ data: "first" }]);
  });
});
