/** The shape of one REPL slash command, and what the REPL must do after it. */
import type { Agent } from "../../agent/agent.ts";
import type { TurnTools } from "../../agent/turn-tools.ts";
import type { Style } from "../style.ts";
import type { SessionMode } from "../session-mode.ts";

/** What the interactive REPL lends its own commands (/mode, /expand). */
export interface ReplControls {
  mode(): SessionMode;
  setMode(mode: SessionMode): void;
  /** Writes fold `n` (the last one when undefined) whole; false when there is none. */
  expand(n?: number): boolean;
  foldCount(): number;
  /** The last prompt, as typed, when its turn failed with an error (a provider error); undefined otherwise. */
  failedPrompt(): string | undefined;
}

export interface SlashContext {
  agent: Agent;
  write: (text: string) => void;
  style: Style;
  /** Where custom commands are looked up (`.shiro/commands`, `.claude/commands`); default process.cwd(). */
  cwd?: string;
  /** Stops a custom command's `` !`cmd` `` runs. */
  signal?: AbortSignal;
  /** Present in the interactive REPL. */
  repl?: ReplControls;
  /** Puts a question in the terminal and resolves with the line typed (absent: every question is answered no). */
  ask?: (question: string) => Promise<string>;
  /** The session runs with --yolo: nothing asks, so a project command's allowed-tools narrow its turn without the trust question. */
  yolo?: boolean;
}

/** What the REPL must do after a command. */
export type SlashOutcome =
  | { kind: "done" }
  | { kind: "exit" }
  | { kind: "switch-session"; sessionId?: string }
  | { kind: "provider-setup" }
  /** `change` runs with the terminal free for questions; true when extensions changed, so the session reopens with them. */
  | { kind: "reload"; change: () => Promise<boolean> }
  /** `turnTools`: a custom command's `allowed-tools`, which narrow (and may pre-approve) its turn (lib/agent/turn-tools.ts). */
  | { kind: "prompt"; text: string; turnTools?: TurnTools };

export interface SlashCommand {
  name: string;
  /** The arguments' shape in `/help`: `[name]`, `<id>`. */
  args?: string;
  help: string;
  aliases?: readonly string[];
  run(args: string, ctx: SlashContext): SlashOutcome | Promise<SlashOutcome>;
}

export const SLASH_DONE: SlashOutcome = { kind: "done" };
