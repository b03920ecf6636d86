/**
 * `/undo`, `/redo` and `/rewind`: the REPL's way back. `/undo` takes back the newest checkpoint of
 * this session still in force, `/redo` puts the last one taken back forward again, `/rewind` lists
 * the session's turns numbered and takes the files, the conversation or both back to before one.
 * Each shows what it will do and asks; each refuses over files changed since shiro left them
 * (named, nothing changed) unless given `force`.
 */
import type { RewindPlan } from "../../store/checkpoint-restore.ts";
import type { CheckpointRecord } from "../../store/checkpoints.ts";
import { formatHandEdits, formatPlan } from "../rewind-view.ts";
import { SLASH_DONE, type SlashCommand, type SlashContext, type SlashOutcome } from "./command.ts";

/** Asks, applies, reports; false when the user said no or hand edits stopped it. */
async function _confirmAndApply(plan: RewindPlan, force: boolean, command: string, ctx: SlashContext, question = "Go ahead? y yes | n no "): Promise<boolean> {
  const { write, style } = ctx;
  if (plan.handEdited.length > 0 && !force) {
    write(style.yellow(formatHandEdits(plan, `\`${command} force\` overwrites them`)));
    return false;
  }
  write(formatPlan(plan));
  if (!["y", "yes"].includes((await _ask(ctx, question)).trim().toLowerCase())) {
    write(style.dim("nothing was changed\n"));
    return false;
  }
  await plan.apply(force);
  write(`${plan.direction === "undo" ? "taken back" : "put back"}: ${plan.steps.length} path${plan.steps.length === 1 ? "" : "s"}\n`);
  return true;
}

function _ask(ctx: SlashContext, question: string): Promise<string> {
  return ctx.ask ? ctx.ask(question) : Promise.resolve("n");
}

/** A command that plans one step (undo or redo) and, when there is one, confirms and applies it. */
function _stepCommand(name: string, help: string, nothing: string, plan: (ctx: SlashContext) => Promise<RewindPlan | undefined>): SlashCommand {
  return {
    name,
    args: "[force]",
    help,
    async run(args, ctx) {
      const planned = await plan(ctx);
      if (!planned) ctx.write(`${nothing}\n`);
      else await _confirmAndApply(planned, args.trim() === "force", name, ctx);
      return SLASH_DONE;
    },
  };
}

const _undo = _stepCommand(
  "/undo",
  "take back the files the last turn changed (asks first)",
  "nothing to undo: no turn of this session changed files (or its changes were already taken back)",
  async (ctx) => {
    const { planUndoLast } = await import("../../agent/rewind.ts");
    return planUndoLast(ctx.cwd ?? process.cwd(), ctx.agent.session.id, ctx.agent.config.file.checkpoints?.maxFileBytes);
  },
);

const _redo = _stepCommand("/redo", "put back what the last /undo or /rewind took back", "nothing to redo", async (ctx) => {
  const { planRedoNext } = await import("../../agent/rewind.ts");
  return planRedoNext(ctx.cwd ?? process.cwd(), ctx.agent.config.file.checkpoints?.maxFileBytes);
});

interface _Turn {
  number: number;
  messageIndex: number;
  prompt: string;
  /** The oldest checkpoint in force from this turn on. */
  checkpoint?: CheckpointRecord;
  files: number;
}

async function _turns(ctx: SlashContext): Promise<_Turn[]> {
  const { listCheckpoints } = await import("../../store/checkpoints.ts");
  const session = ctx.agent.session;
  const records = listCheckpoints(ctx.cwd ?? process.cwd()).filter((record) => record.sessionId === session.id && !record.undone);
  const turns: _Turn[] = [];
  session.messages.forEach((message, index) => {
    if (message.role !== "user") return;
    const own = records.filter((record) => record.messageIndex === index);
    turns.push({
      number: turns.length + 1,
      messageIndex: index,
      prompt: message.content,
      checkpoint: records.find((record) => record.messageIndex >= index),
      files: own.reduce((sum, record) => sum + record.files.length, 0),
    });
  });
  return turns;
}

const _rewind: SlashCommand = {
  name: "/rewind",
  args: "[n] [force]",
  help: "list this session's turns; /rewind <n> takes files, conversation or both back to before turn n",
  async run(args, ctx) {
    const { write, style } = ctx;
    const turns = await _turns(ctx);
    const [which, flag] = args.trim().split(/\s+/);
    if (!which) {
      if (turns.length === 0) write("no turns in this session yet\n");
      for (const turn of turns)
        write(
          `${String(turn.number).padStart(3)}  ${turn.prompt.replace(/\s+/g, " ").slice(0, 70)}${style.dim(turn.files > 0 ? `  (${turn.files} file${turn.files === 1 ? "" : "s"} changed)` : "")}\n`,
        );
      if (turns.length > 0) write(style.dim("take files and/or the conversation back to before one with /rewind <n>\n"));
      return SLASH_DONE;
    }
    const turn = turns.find((candidate) => String(candidate.number) === which);
    if (!turn) {
      write(`no turn ${which}: /rewind lists them\n`);
      return SLASH_DONE;
    }
    return _rewindTo(turn, flag === "force", ctx);
  },
};

async function _rewindTo(turn: _Turn, force: boolean, ctx: SlashContext): Promise<SlashOutcome> {
  const { write } = ctx;
  const { cutConversation, planRewindTo } = await import("../../agent/rewind.ts");
  const plan = turn.checkpoint ? await planRewindTo(ctx.cwd ?? process.cwd(), turn.checkpoint, ctx.agent.config.file.checkpoints?.maxFileBytes) : undefined;
  if (plan) write(formatPlan(plan));
  else write("no files to take back from that turn on\n");
  const answer = (await _ask(ctx, `Before turn ${turn.number}: ${plan ? "f files | c conversation | b both" : "c conversation"} | n nothing `))
    .trim()
    .toLowerCase();
  const files = plan !== undefined && (answer === "f" || answer === "b");
  const conversation = answer === "c" || (answer === "b" && plan !== undefined);
  if (!files && !conversation) {
    write("nothing was changed\n");
    return SLASH_DONE;
  }
  if (files && plan!.handEdited.length > 0 && !force) {
    write(ctx.style.yellow(formatHandEdits(plan!, `\`/rewind ${turn.number} force\` overwrites them`)));
    return SLASH_DONE;
  }
  if (files) {
    await plan!.apply(force);
    write(`files taken back: ${plan!.steps.length} path${plan!.steps.length === 1 ? "" : "s"}\n`);
  }
  if (conversation) {
    const removed = cutConversation(ctx.agent.session, { messageIndex: turn.messageIndex, prompt: turn.prompt, runId: turn.checkpoint?.runId });
    ctx.agent.save();
    write(`conversation taken back to before turn ${turn.number}: ${removed} messages (kept in the archive, recall_discarded finds them)\n`);
  }
  return SLASH_DONE;
}

/** After the info commands in `/help`. */
export const REWIND_COMMANDS: readonly SlashCommand[] = [_undo, _redo, _rewind];
