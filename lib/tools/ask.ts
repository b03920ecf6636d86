/**
 * ask: the model puts a question to the user, optionally with numbered options, and reads the
 * answer. Offered only where someone can answer (the REPL passes an `AskUser`); a headless run
 * has none, so the tool is withheld there, not offered and refused. The result is the answer
 * as the user gave it, an option's text when they answered with its number.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import description from "./ask.md" with { type: "text" };
import { fieldSummary } from "./call-summary.ts";
import type { ToolDefinition } from "./types.ts";

const AskInput = lazySchema(() =>
  v.object({
    question: v.pipe(v.string(), v.trim(), v.minLength(1, "question is empty")),
    options: v.optional(v.pipe(v.array(v.pipe(v.string(), v.trim(), v.minLength(1, "an option is empty"))), v.maxLength(9, "at most 9 options"))),
  }),
);
type AskInput = v.InferOutput<typeof AskInput>;

/** Puts the question in front of the user; resolves with what they typed (undefined when the turn was interrupted). */
export type AskUser = (question: string, options: readonly string[], signal: AbortSignal) => Promise<string | undefined>;

export function createAskTool(askUser: AskUser): ToolDefinition<AskInput> {
  return {
    name: "ask",
    resultText: "own",
    description,
    schema: AskInput,
    effect: "read",
    decision: "allow",
    deferral: "eager",
    guidance: "ask the user a question (numbered options for a choice) when only they can decide",
    summary: fieldSummary("question"),
    async execute({ question, options = [] }, ctx) {
      const typed = await askUser(question, options, ctx.signal);
      if (typed === undefined) throw new Error("The user interrupted the question without answering.");
      return `The user answered: ${resolveAnswer(typed, options)}`;
    },
  };
}

/** `2` is the second option's text; anything else is the answer as typed (an empty answer says so). */
export function resolveAnswer(typed: string, options: readonly string[]): string {
  const text = typed.trim();
  if (/^\d+$/.test(text) && options[Number(text) - 1] !== undefined) return options[Number(text) - 1]!;
  return text === "" ? "(no answer: the user pressed Enter)" : text;
}
