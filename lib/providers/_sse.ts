/**
 * The one Server-Sent Events reader every adapter uses, over `eventsource-parser`, and the one
 * reading of an event's JSON data.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseMessage {
  /** The `event:` field, when the server sent one. */
  event?: string;
  data: string;
}

/**
 * Yields each complete event of `body` in order. Ends when the body ends; an event the server
 * never terminated with a blank line is not yielded. When `signal` aborts, the body is cancelled
 * and the iteration throws the signal's reason, so callers tell "aborted" from "ended".
 * Stream failures (a dropped connection) are thrown as they come from the body.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      ready.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
  });
  const cancel = () => {
    reader.cancel(signal?.reason).catch(() => undefined);
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    if (signal?.aborted) throw signal.reason;
    while (true) {
      const chunk = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
    parser.feed(decoder.decode());
    while (ready.length > 0) yield ready.shift()!;
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.cancel().catch(() => undefined);
  }
}

/**
 * The JSON object an event's `data` holds, typed as the decoder's loose view of its protocol's
 * events; undefined for data that is not JSON or not an object (decoders skip such events).
 */
export function parseEventData<T extends object>(data: string): T | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === "object" ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}
