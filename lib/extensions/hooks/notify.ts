/**
 * Notification hooks on approval questions: whenever someone is about to be asked whether a call
 * may run (the REPL prompt, a headless `--approvals block` request), Notification hooks hear
 * `shiro needs your permission to use <tool>` with `notification_type: "permission_prompt"`,
 * as Claude Code's do. They start with the question and the answer waits for them too, so a
 * blocked headless run does not exit before its notification ran.
 */
import type { DecisionSource } from "../../approval/request.ts";
import type { SessionHooks } from "./session-hooks.ts";

export function notifyingDecision(decide: DecisionSource, hooks: Pick<SessionHooks, "notification">): DecisionSource {
  return async (request) => {
    const notified = hooks.notification(`shiro needs your permission to use ${request.tool}`, "permission_prompt");
    try {
      return await decide(request);
    } finally {
      await notified;
    }
  };
}
