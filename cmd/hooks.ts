/**
 * `shiro hooks [--json]`: every hook configured for this folder — config.json `hooks` and the
 * project's `.claude/settings.json` / `.claude/settings.local.json` — with its event, matcher,
 * command, timeout and the file it came from; project hooks say whether the folder is trusted.
 */
import { defineCommand } from "citty";
import { UserError } from "../lib/platform/errors.ts";
import { writeOut } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "hooks", description: "list the hooks of this folder: event, matcher, command, source file" },
  args: {
    json: { type: "boolean", description: "print one JSON object: {hooks, project?, error?}" },
  },
  async run({ args }) {
    const { loadConfigFile } = await import("../lib/config/config.ts");
    const { listConfiguredHooks } = await import("../lib/agent/session-settings.ts");
    const listing = listConfiguredHooks(loadConfigFile().hooks, process.cwd());
    if (args.json)
      writeOut(
        `${JSON.stringify({ hooks: listing.entries, ...(listing.project ? { project: listing.project } : {}), ...(listing.error ? { error: listing.error } : {}) })}\n`,
      );
    else {
      const { renderHookList } = await import("../lib/ui/hooks-list.ts");
      writeOut(`${renderHookList(listing)}\n`);
    }
    if (listing.error) throw new UserError(listing.error);
  },
});
