/**
 * `shiro sandbox [--json]`: the sandbox shell commands get in this folder, as a
 * session would set it up (config `sandbox`, the runner found here), then a live check inside
 * it. Exits 1 when the sandbox config asks for cannot be had, or the check sees the wrong thing.
 */
import { defineCommand } from "citty";
import { UserError } from "../lib/platform/errors.ts";
import { writeOut } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "sandbox", description: "show the shell sandbox of this folder and check it works" },
  args: {
    json: { type: "boolean", description: "print one JSON object" },
  },
  async run({ args }) {
    const { loadConfigFile } = await import("../lib/config/config.ts");
    const { detectSandbox, describeSandbox } = await import("../lib/sandbox/detect.ts");
    const { createCommandSandbox } = await import("../lib/sandbox/session.ts");
    const { checkSandbox } = await import("../lib/sandbox/check.ts");
    const root = process.cwd();
    const status = detectSandbox({ config: loadConfigFile().sandbox, noSandbox: false, fresh: true });
    const check = checkSandbox(createCommandSandbox(status), root);
    if (args.json) writeOut(`${JSON.stringify({ ...status, root, check })}\n`);
    else {
      const lines = [describeSandbox(status)];
      if (status.notice) lines.push(status.notice);
      if (status.mode !== "off") {
        lines.push(`writable: ${status.mode === "workspace-write" ? `${root} and ` : ""}a private /tmp`);
        if (check.ok) {
          const net = check.interfaces ? `, network interfaces: ${check.interfaces.join(", ") || "none"}` : "";
          lines.push(`check: passed (/usr read-only, workspace ${check.workspaceWritable ? "writable" : "read-only"}${net})`);
        }
      }
      writeOut(`${lines.join("\n")}\n`);
    }
    if (status.refusal) throw new UserError(status.refusal);
    if (!check.ok) throw new UserError(`sandbox check failed: ${check.problem}`);
  },
});
