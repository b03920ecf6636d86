/**
 * The session notebook: the task list. It lives in the session record (`notebook.todos`),
 * survives pruning and /compact, and is re-rendered into the system prompt on every step.
 * This module only shapes the list and its lines; the session store persists it, the prompt
 * (lib/agent/prompt.ts) and the terminal (lib/ui/todo-progress.ts) present it.
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

export const NotebookSchema = v.object({ todos: v.array(TodoSchema) });
export type Notebook = v.InferOutput<typeof NotebookSchema>;

const _MARKS: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]", blocked: "[!]" };

export interface TodoCounts {
  total: number;
  done: number;
  inProgress: number;
  blocked: number;
  pending: number;
}

export function countTodos(todos: readonly Todo[]): TodoCounts {
  const counts: TodoCounts = { total: todos.length, done: 0, inProgress: 0, blocked: 0, pending: 0 };
  for (const todo of todos) {
    if (todo.status === "done") counts.done++;
    else if (todo.status === "in_progress") counts.inProgress++;
    else if (todo.status === "blocked") counts.blocked++;
    else counts.pending++;
  }
  return counts;
}

/** One line per task: `[x] content`, with a note as `  (<note>)`. */
export function renderTodoLines(todos: readonly Todo[]): string[] {
  return todos.map((todo) => `${_MARKS[todo.status]} ${todo.content}${todo.note ? `  (${todo.note})` : ""}`);
}

/**
 * What a list that is being worked on should not look like, one sentence each (without the
 * `Warning: ` prefix): several tasks in progress, nothing in progress while pending work remains,
 * a blocked task with no note saying why.
 */
export function findTodoProblems(todos: readonly Todo[]): string[] {
  const counts = countTodos(todos);
  const problems: string[] = [];
  if (counts.inProgress > 1) problems.push(`${counts.inProgress} tasks are in_progress; keep it to one.`);
  if (counts.inProgress === 0 && counts.pending > 0) problems.push("nothing is in_progress; mark what you are working on.");
  for (const todo of todos) {
    if (todo.status === "blocked" && !todo.note?.trim()) problems.push(`"${todo.content}" is blocked with no note saying why.`);
  }
  return problems;
}
