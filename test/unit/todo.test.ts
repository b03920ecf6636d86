/** The task list: todo_write's result and warnings, the prompt block and the progress bar. */
import { expect, test } from "bun:test";
import type { Todo } from "../../lib/notebook.ts";
import { renderTodosForPrompt } from "../../lib/agent/prompt.ts";
import { renderProgressBar } from "../../lib/ui/todo-progress.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import type { ToolContext } from "../../lib/tools/types.ts";

const ctx: ToolContext = { root: "/tmp", signal: new AbortController().signal, emitOutput: () => {}, callId: "call_1" };

function notebook() {
  let todos: Todo[] = [{ content: "old task", status: "pending" }];
  return {
    get: () => todos,
    set: (next: Todo[]) => {
      todos = next;
    },
  };
}

test("todo_write replaces the whole list and reports it with marks and notes", async () => {
  const book = notebook();
  const tool = createTodoTool(book);
  const result = await tool.execute(
    {
      todos: [
        { content: "read the pagination code", status: "done" },
        { content: " fix the boundary ", status: "in_progress" },
        { content: "add a test", status: "pending", note: "  " },
        { content: "update the docs", status: "blocked", note: "no write access to the wiki" },
      ],
    },
    ctx,
  );
  expect(result).toBe(
    [
      "Task list updated: 1/4 done.",
      "[x] read the pagination code",
      "[~] fix the boundary",
      "[ ] add a test",
      "[!] update the docs  (no write access to the wiki)",
    ].join("\n"),
  );
  expect(book.get()).toEqual([
    { content: "read the pagination code", status: "done" },
    { content: "fix the boundary", status: "in_progress" },
    { content: "add a test", status: "pending" },
    { content: "update the docs", status: "blocked", note: "no write access to the wiki" },
  ]);
  expect([tool.effect, tool.decision]).toEqual(["read", "allow"]);
});

test("warnings: several in progress, nothing in progress while work remains, blocked without a reason", async () => {
  const tool = createTodoTool(notebook());
  expect(
    await tool.execute(
      {
        todos: [
          { content: "a", status: "in_progress" },
          { content: "b", status: "in_progress" },
          { content: "c", status: "blocked" },
        ],
      },
      ctx,
    ),
  ).toBe(
    [
      "Task list updated: 0/3 done.",
      "[~] a",
      "[~] b",
      "[!] c",
      "Warning: 2 tasks are in_progress; keep it to one.",
      'Warning: "c" is blocked with no note saying why.',
    ].join("\n"),
  );
  expect(
    await tool.execute(
      {
        todos: [
          { content: "a", status: "done" },
          { content: "b", status: "pending" },
        ],
      },
      ctx,
    ),
  ).toBe("Task list updated: 1/2 done.\n[x] a\n[ ] b\nWarning: nothing is in_progress; mark what you are working on.");
  expect(
    await tool.execute(
      {
        todos: [
          { content: "a", status: "done" },
          { content: "b", status: "blocked", note: "waiting on CI" },
        ],
      },
      ctx,
    ),
  ).toBe("Task list updated: 1/2 done.\n[x] a\n[!] b  (waiting on CI)");
  expect(await tool.execute({ todos: [] }, ctx)).toBe("Task list updated: 0/0 done.");
});

test("a task with blank content is refused and the list is left as it was", async () => {
  const book = notebook();
  await expect(
    createTodoTool(book).execute(
      {
        todos: [
          { content: "ok", status: "pending" },
          { content: "  ", status: "pending" },
        ],
      },
      ctx,
    ),
  ).rejects.toThrow("todos[1].content is empty");
  expect(book.get()).toEqual([{ content: "old task", status: "pending" }]);
});

test("the prompt block carries the counts and the lines; no list, no block", () => {
  expect(renderTodosForPrompt([])).toBe("");
  expect(
    renderTodosForPrompt([
      { content: "a", status: "done" },
      { content: "b", status: "in_progress" },
    ]),
  ).toBe("Your task list (1/2 done). Keep it current with todo_write:\n[x] a\n[~] b");
  expect(
    renderTodosForPrompt([
      { content: "a", status: "done" },
      { content: "b", status: "blocked", note: "why" },
      { content: "c", status: "pending" },
    ]),
  ).toBe("Your task list (1/3 done, 1 blocked). Keep it current with todo_write:\n[x] a\n[!] b  (why)\n[ ] c");
});

test("the progress bar: ten cells, # for the done share, blocked count only when there is one", () => {
  const list = (done: number, blocked: number, pending: number): Todo[] => [
    ...Array.from({ length: done }, () => ({ content: "d", status: "done" as const })),
    ...Array.from({ length: blocked }, () => ({ content: "b", status: "blocked" as const, note: "n" })),
    ...Array.from({ length: pending }, () => ({ content: "p", status: "pending" as const })),
  ];
  expect(renderProgressBar(list(1, 1, 2))).toBe("tasks ###.......  1/4  1 blocked");
  expect(renderProgressBar(list(0, 0, 3))).toBe("tasks ..........  0/3");
  expect(renderProgressBar(list(3, 0, 0))).toBe("tasks ##########  3/3");
  expect(renderProgressBar(list(1, 0, 2))).toBe("tasks ###.......  1/3");
  expect(renderProgressBar([])).toBe("");
});
