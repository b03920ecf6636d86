/**
 * `shiro acp`: shiro as an Agent Client Protocol agent on stdin/stdout, for editors (Zed,
 * JetBrains IDEs, Neovim). It takes the session flags a run snapshot keeps (provider, model,
 * agent, sandbox, …); what the editor starts is described in docs/editors.md.
 */
import { defineCommand, type ArgsDef } from "citty";
import { agentFlagsFrom, SAVED_FLAGS } from "../lib/config/flags.ts";
import { writeErr } from "../lib/ui/output.ts";

/** Every saved session flag but the headless-only approvals mode: an editor answers every question. */
const _ARGS: ArgsDef = Object.fromEntries(
  SAVED_FLAGS.filter((flag) => flag.name !== "approvals").map((flag) => [
    flag.name,
    flag.kind === "boolean"
      ? { type: "boolean", description: flag.description }
      : flag.choices
        ? { type: "enum", options: [...flag.choices], description: flag.description }
        : { type: "string", description: flag.description },
  ]),
);

export default defineCommand({
  meta: { name: "acp", description: "speak the Agent Client Protocol on stdin/stdout (for editors: docs/editors.md)" },
  args: _ARGS,
  async run({ args }) {
    const { serveAcp, stdioStreams } = await import("../lib/ui/acp/server.ts");
    const streams = stdioStreams();
    try {
      await serveAcp({ flags: agentFlagsFrom(args), input: streams.input, output: streams.output, diagnose: (line) => writeErr(`shiro acp: ${line}\n`) });
    } finally {
      streams.restore();
    }
  },
});
