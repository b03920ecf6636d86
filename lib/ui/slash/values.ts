/** What the argument of a slash command may be, for Tab: agents, thinking levels, modes, models, this folder's sessions. */
import type { Agent } from "../../agent/agent.ts";
import { shortSessionId } from "../../store/short-ids.ts";
import { AGENT_NAMES, THINKING_LEVELS } from "../../vocabulary.ts";
import { SESSION_MODES } from "../session-mode.ts";
import { listFolderSessions } from "./session-list.ts";

/** The values `command` takes; undefined for a command whose argument is free text. */
export function slashValues(command: string, agent: Agent, cwd: string): readonly string[] | undefined {
  if (command === "/agent") return AGENT_NAMES;
  if (command === "/think") return THINKING_LEVELS;
  if (command === "/mode") return SESSION_MODES;
  if (command === "/model" || command === "/models") return [agent.model, ...agent.config.preset.fallbackModels];
  if (command === "/resume") {
    try {
      return listFolderSessions(cwd)
        .sessions.filter((session) => session.id !== agent.session.id)
        .map((session) => shortSessionId(session.id));
    } catch {
      return [];
    }
  }
  return undefined;
}
