/**
 * What a request the fake provider recorded carried, read the same way whatever its protocol
 * (OpenAI chat, OpenAI responses, Anthropic messages): tool results, the system prompt, user texts,
 * and whether it asked for a summary.
 * Shared by the e2e harness and the in-process agent tests.
 */
export interface WireToolResult {
  callId: string;
  output: string;
}

/** The tool results a recorded request carried, whatever its protocol. */
export function toolResultsOf(request: { protocol: string; body: any }): WireToolResult[] {
  const body = request.body;
  if (request.protocol === "openai-chat") {
    return (body.messages as any[]).filter((m) => m.role === "tool").map((m) => ({ callId: m.tool_call_id, output: String(m.content) }));
  }
  if (request.protocol === "openai-responses") {
    return (body.input as any[]).filter((item) => item.type === "function_call_output").map((item) => ({ callId: item.call_id, output: String(item.output) }));
  }
  const results: WireToolResult[] = [];
  for (const message of body.messages as any[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "tool_result") continue;
      const text = typeof block.content === "string" ? block.content : (block.content as any[]).map((part) => part.text ?? "").join("");
      results.push({ callId: block.tool_use_id, output: text });
    }
  }
  return results;
}

/** The system prompt a recorded request carried. */
export function systemOf(request: { protocol: string; body: any }): string {
  const body = request.body;
  if (request.protocol === "anthropic") return typeof body.system === "string" ? body.system : (body.system ?? []).map((b: any) => b.text).join("");
  if (request.protocol === "openai-responses") {
    if (typeof body.instructions === "string") return body.instructions;
  }
  const list = (body.messages ?? body.input ?? []) as any[];
  const first = list.find((m) => m.role === "system" || m.role === "developer");
  if (!first) return "";
  return typeof first.content === "string" ? first.content : (first.content as any[]).map((p) => p.text ?? "").join("");
}

/** Every user text a recorded request carried, in order. */
export function userTextsOf(request: { protocol: string; body: any }): string[] {
  const list = (request.body.messages ?? request.body.input ?? []) as any[];
  const texts: string[] = [];
  for (const message of list) {
    if (message.role !== "user") continue;
    if (typeof message.content === "string") texts.push(message.content);
    else for (const part of message.content as any[]) if (part.type === "text" || part.type === "input_text") texts.push(part.text);
  }
  return texts;
}

/** A request that offers no tools: the one compaction sends for a summary, whatever its protocol. */
export const isSummaryRequest = (request: { body: any }): boolean => !request.body.tools || request.body.tools.length === 0;
