/**
 * `shiro rewind [id]`: lists this folder's checkpoints (newest first, `--json` for an array), or
 * takes the workspace back to before checkpoint `id` (and every later one), refusing over files
 * changed since by anyone but shiro unless `--force`; `--conversation` takes the session back too.
 */
import { defineCommand } from "citty";

export default defineCommand({
  meta: { name: "rewind", description: "list checkpoints, or take the workspace back to before one" },
  args: {
    id: { type: "positional", required: false, description: "checkpoint id or unique prefix (none: list them)" },
    yes: { type: "boolean", description: "rewind without asking" },
    force: { type: "boolean", description: "overwrite files changed since the checkpoint" },
    conversation: { type: "boolean", description: "also take the session back to before that prompt" },
    json: { type: "boolean", description: "list as a JSON array" },
  },
  async run({ args }) {
    const { runRewindCli } = await import("../lib/ui/rewind-view.ts");
    process.exitCode = await runRewindCli({
      root: process.cwd(),
      id: typeof args.id === "string" && args.id !== "" ? args.id : undefined,
      yes: Boolean(args.yes),
      force: Boolean(args.force),
      conversation: Boolean(args.conversation),
      json: Boolean(args.json),
    });
  },
});
