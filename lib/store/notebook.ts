/**
 * The session notebook: the task list. It lives in the session record (`notebook.todos`),
 * survives pruning and /compact, and is re-rendered into the system prompt on every step.
 */
import * as v from "valibot";

export const TODO_STATUSES = ["pending", "in_progress", "done", "blocked"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export const TodoSchema = v.object({
  content: v.pipe(v.string(), v.minLength(1)),
  status: v.picklist(TODO_STATUSES),
  note: v.optional(v.string()),
});

export type Todo = v.InferOutput<typeof TodoSchema>;
