/**
 * todo_write: the model replaces its whole task list in one call. The list lives in the session's
 * notebook (see lib/notebook.ts); this tool only validates, stores and reports it.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import { TodoSchema, countTodos, findTodoProblems, renderTodoLines, type Todo } from "../notebook.ts";
import description from "./todo.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";
import { takeFields } from "./claude-code.ts";

const TodoWriteInput = lazySchema(() => v.object({ todos: v.array(TodoSchema) }));

/** Where the list lives: the session's notebook. */
export interface TodoHolder {
  get(): Todo[];
  set(todos: Todo[]): void;
}

export function createTodoTool(notebook: TodoHolder): ToolDefinition<v.InferOutput<typeof TodoWriteInput>> {
  return {
    name: "todo_write",
    resultText: "own",
    description,
    schema: TodoWriteInput,
    effect: "read",
    bookkeeping: true,
    action: "think",
    decision: "allow",
    deferral: "eager",
    guidance: "keep a task list for multi-step work; it survives compaction",
    claudeCode: {
      name: "TodoWrite",
      // Claude Code's statuses are pending, in_progress and completed; shiro's `done` is its `completed`.
      input: (args) => ({
        todos: args.todos.map((todo) => ({ content: todo.content, status: todo.status === "done" ? "completed" : todo.status, activeForm: todo.content })),
      }),
      args: (input) =>
        Array.isArray(input.todos)
          ? {
              todos: input.todos.map((todo: Record<string, unknown>) => {
                const { status, ...rest } = takeFields(todo ?? {}, [
                  ["content", "content", "string"],
                  ["status", "status", "string"],
                  ["note", "note", "string"],
                ]);
                return { ...rest, ...(status !== undefined ? { status: status === "completed" ? "done" : status } : {}) };
              }),
            }
          : {},
    },
    execute: async ({ todos }) => {
      const clean = todos.map(_cleanTodo);
      const blank = clean.findIndex((todo) => todo.content === "");
      if (blank >= 0) throw new Error(`todos[${blank}].content is empty: give every task a short description`);
      notebook.set(clean);
      return renderTodoWriteResult(clean);
    },
  };
}

/** `Task list updated: d/t done.`, the task lines, then one `Warning: …` line per problem. */
export function renderTodoWriteResult(todos: readonly Todo[]): string {
  const counts = countTodos(todos);
  return [
    `Task list updated: ${counts.done}/${counts.total} done.`,
    ...renderTodoLines(todos),
    ...findTodoProblems(todos).map((problem) => `Warning: ${problem}`),
  ].join("\n");
}

function _cleanTodo(todo: Todo): Todo {
  const note = todo.note?.trim();
  return { content: todo.content.trim(), status: todo.status, ...(note ? { note } : {}) };
}
