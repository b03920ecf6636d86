/** Slash commands about the REPL itself: the approval mode (/mode), folded output (/expand), a failed prompt sent again (/retry). */
import { SESSION_MODES, describeMode, parseMode } from "../session-mode.ts";
import { SLASH_DONE, type SlashCommand } from "./command.ts";

const _mode: SlashCommand = {
  name: "/mode",
  args: "[ask|accept-edits|plan]",
  help: "show or switch the approval mode (Shift+Tab cycles it)",
  run(args, { write, repl }) {
    if (!repl) {
      write("/mode works in the interactive REPL only\n");
      return SLASH_DONE;
    }
    if (!args) {
      write(`mode: ${describeMode(repl.mode())}\nmodes: ${SESSION_MODES.join(", ")}\n`);
      return SLASH_DONE;
    }
    const mode = parseMode(args);
    if (!mode) write(`Unknown mode "${args}". Available: ${SESSION_MODES.join(", ")}\n`);
    else repl.setMode(mode);
    return SLASH_DONE;
  },
};

const _expand: SlashCommand = {
  name: "/expand",
  args: "[n]",
  help: "show folded output whole: the last fold, or fold n (the number in its +N lines hint)",
  run(args, { write, repl }) {
    if (!repl) {
      write("/expand works in the interactive REPL only\n");
      return SLASH_DONE;
    }
    const n = args ? Number(args) : undefined;
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) {
      write(`"${args}" is no fold number: give the n of a "/expand n" hint\n`);
      return SLASH_DONE;
    }
    if (!repl.expand(n)) write(n === undefined ? "nothing folded yet\n" : `no fold ${n} (${repl.foldCount()} so far, the last 200 kept)\n`);
    return SLASH_DONE;
  },
};

const _retry: SlashCommand = {
  name: "/retry",
  help: "send the last prompt again when its turn failed with an error",
  run(_args, { write, repl }) {
    const prompt = repl?.failedPrompt();
    if (prompt === undefined) {
      write("nothing to retry: the last prompt did not fail\n");
      return SLASH_DONE;
    }
    return { kind: "prompt", text: prompt };
  },
};

export const VIEW_COMMANDS: readonly SlashCommand[] = [_mode, _expand, _retry];
