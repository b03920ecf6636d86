/**
 * The context window a provider reports for a model the family table does not know, asked once
 * per machine rather than once per session: the answer is kept in lib/store/learned.ts under the
 * protocol, base URL and model, for 30 days. A kept answer is reported to the window at once, so
 * no `GET /models` goes out before (or beside) the first request; otherwise the provider is asked
 * in the background, and the first request never waits for it.
 */
import * as v from "valibot";
import type { ProviderConnection } from "../../providers/types.ts";
import { queryModelWindow } from "../../providers/window-query.ts";
import { keepLearned, recallLearned } from "../../store/learned.ts";
import type { ContextWindow } from "./window.ts";

const _MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
const _Window = v.pipe(v.number(), v.integer(), v.minValue(256));

export function learnModelWindow(window: Pick<ContextWindow, "report">, connection: ProviderConnection, model: string, ollama: boolean): void {
  const key = `model-window:${connection.protocol}:${connection.baseURL}:${model}`;
  const basis = ollama ? "ollama" : "models";
  const kept = recallLearned(key, { basis, schema: _Window, maxAgeMs: _MAX_AGE_MS });
  if (kept !== undefined) {
    window.report(model, kept);
    return;
  }
  void queryModelWindow(connection, model, { ollama }).then((reported) => {
    if (reported === undefined) return;
    window.report(model, reported);
    keepLearned(key, basis, reported);
  });
}
