/**
 * The fake provider's OpenAI embeddings route, `POST /v1/embeddings`: the key check of the other
 * OpenAI routes, the request body checked against the OpenAPI `CreateEmbeddingRequest` schema,
 * and a `CreateEmbeddingResponse` whose vectors come from the test's embedder, or by default
 * from a hashed bag of words (64 dimensions, unit length: texts sharing words point the same way).
 */
import { tokenize } from "../../lib/search/tokenize.ts";
import { authorizeOpenAI } from "./provider-openai-errors.ts";
import { checkSchema } from "./provider-schema.ts";
import type { CheckContext, Refusal } from "./provider-wire.ts";

/** Maps one input text to its vector. */
export type FakeEmbedder = (text: string) => number[];

export type EmbeddingAnswer = { status: 200; body: unknown } | { status: number; refusal: Refusal };

export function answerEmbeddings(body: any, context: CheckContext, embed: FakeEmbedder, schemaCheck: boolean): EmbeddingAnswer {
  const denied = authorizeOpenAI(context);
  if (denied) return { status: denied.status, refusal: denied };
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { status: 400, refusal: { status: 400, message: "We could not parse the JSON body of your request." } };
  const issue = schemaCheck ? checkSchema("CreateEmbeddingRequest", body) : undefined;
  if (issue)
    return { status: 400, refusal: { status: 400, param: issue.param || null, code: "invalid_value", message: `Invalid request body: ${issue.message}.` } };
  const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
  if (inputs.some((input) => typeof input !== "string" || input === "")) {
    return { status: 400, refusal: { status: 400, param: "input", message: "'$.input' is invalid: the fake embeds non-empty strings only." } };
  }
  const data = (inputs as string[]).map((text, index) => ({ object: "embedding", index, embedding: embed(text) }));
  const tokens = (inputs as string[]).reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return { status: 200, body: { object: "list", model: body.model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}

/** The default embedder: each word adds 1 to one of 64 dimensions (by a string hash); unit length. */
export function embedBagOfWords(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const term of tokenize(text)) {
    let hash = 2166136261;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 16777619);
    vector[(hash >>> 0) % 64]! += 1;
  }
  const length = Math.hypot(...vector) || 1;
  return vector.map((value) => value / length);
}
