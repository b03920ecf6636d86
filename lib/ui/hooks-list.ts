/**
 * How hooks read on a terminal: the table `shiro hooks` and `/hooks` print (every hook with its
 * event, matcher, command and the file it came from, and whether that file is trusted). The one
 * line a `hook` event that decided something or failed gets in a run's output is lib/ui/print.ts's
 * formatHookLine.
 */
import type { HookListing } from "../agent/session-settings.ts";

export function renderHookList(listing: HookListing): string {
  const lines: string[] = [];
  if (listing.entries.length === 0) lines.push("no hooks configured (config.json `hooks`, or .claude/settings.json in this project)");
  const projectFiles = new Set(listing.project?.paths ?? []);
  for (const hook of listing.entries) {
    const off = projectFiles.has(hook.source) && !listing.project!.trusted ? "  (not trusted: off)" : "";
    lines.push(`${hook.event}  ${hook.matcher === "" ? "*" : hook.matcher}  ${hook.command}  (${hook.timeoutSec}s)${off}`, `  from ${hook.source}`);
  }
  if (listing.project && !listing.project.trusted)
    lines.push(`${listing.project.paths.join(" and ")}: not trusted; start shiro here and answer y to use their hooks and permissions`);
  if (listing.error) lines.push(listing.error);
  return lines.join("\n");
}
