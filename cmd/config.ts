/** `shiro config`: where config.json is, what it holds, and merging one setting into it. */
import { defineCommand } from "citty";
import { UsageError } from "../lib/platform/errors.ts";
import { writeOut } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "config", description: "show or change config.json" },
  subCommands: {
    path: defineCommand({
      meta: { description: "print the path of config.json" },
      async run() {
        const { paths } = await import("../lib/platform/paths.ts");
        writeOut(`${paths.config()}\n`);
      },
    }),
    show: defineCommand({
      meta: { description: "print the validated config.json (apiKey masked)" },
      async run() {
        const { loadConfigFile } = await import("../lib/config/config.ts");
        const file = loadConfigFile();
        const shown = file.apiKey ? { ...file, apiKey: `${file.apiKey.slice(0, 4)}…` } : file;
        writeOut(`${JSON.stringify(shown, null, 2)}\n`);
      },
    }),
    set: defineCommand({
      meta: { description: "merge one setting into config.json: shiro config set toolSets '[\"git\"]'" },
      args: {
        key: { type: "positional", description: "top-level setting name" },
        value: { type: "positional", description: "JSON value (a bare word is taken as a string); omit to remove the key", required: false },
      },
      async run({ args }) {
        const { writeConfigPatch } = await import("../lib/config/config.ts");
        const { paths } = await import("../lib/platform/paths.ts");
        const key = String(args.key);
        let value: unknown;
        if (args.value !== undefined) {
          try {
            value = JSON.parse(String(args.value));
          } catch {
            if (/^[\w./:@-]+$/.test(String(args.value))) value = String(args.value);
            else throw new UsageError(`value for "${key}" is not valid JSON`);
          }
        }
        writeConfigPatch({ [key]: value });
        writeOut(`${value === undefined ? "removed" : "set"} ${key} in ${paths.config()}\n`);
      },
    }),
  },
});
