/** The task list's progress bar, as the banner, `/todos` and `shiro sessions show` print it. */
import { countTodos, type Todo } from "../notebook.ts";

const _BAR_WIDTH = 10;

/** `tasks ###.......  1/4  1 blocked`: ten cells, `#` for the done share; "" when there is no list. */
export function renderProgressBar(todos: readonly Todo[]): string {
  if (todos.length === 0) return "";
  const counts = countTodos(todos);
  const filled = Math.round((counts.done / counts.total) * _BAR_WIDTH);
  const bar = "#".repeat(filled) + ".".repeat(_BAR_WIDTH - filled);
  const blocked = counts.blocked > 0 ? `  ${counts.blocked} blocked` : "";
  return `tasks ${bar}  ${counts.done}/${counts.total}${blocked}`;
}
