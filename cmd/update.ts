/**
 * `shiro update [--check]`: compares this binary with the release index at the release base
 * (SHIRO_INSTALL_BASE, config `update.base`, or the project's releases) and, without `--check`,
 * replaces it with the newer build (lib/release/update.ts). Config `update.enabled: false` turns
 * the command off for installs something else manages. docs/release.md describes it.
 */
import { defineCommand } from "citty";
import { UserError } from "../lib/platform/errors.ts";
import { writeOut } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "update", description: "replace this binary with the latest release, or only say whether one exists" },
  args: {
    check: { type: "boolean", description: "only say whether a newer release exists; change nothing" },
  },
  async run({ args }) {
    const { loadConfigFile } = await import("../lib/config/config.ts");
    const { paths } = await import("../lib/platform/paths.ts");
    const { applyUpdate, checkForUpdate, resolveReleaseBase } = await import("../lib/release/update.ts");
    const { BUILD } = await import("../lib/platform/version.ts");
    const { isCompiledBinary } = await import("../lib/platform/runtime.ts");
    const config = loadConfigFile();
    if (config.update?.enabled === false) {
      throw new UserError(`updates are turned off (update.enabled is false in ${paths.config()}); update this install the way it was installed`);
    }
    if (!args.check && (!isCompiledBinary() || !BUILD?.target)) {
      throw new UserError(
        `this shiro is ${isCompiledBinary() ? "a local build" : "run from source"}, not an installed release; update it with git pull, or install the release with install.sh (docs/release.md)`,
      );
    }
    const check = await checkForUpdate(resolveReleaseBase(process.env, config.update?.base));
    const released = check.index.date.slice(0, 10);
    if (!check.newer) {
      writeOut(`shiro ${check.current} is up to date (latest release ${check.latest}, ${released})\n`);
      return;
    }
    if (args.check) {
      writeOut(`update available: shiro ${check.current} -> ${check.latest} (${released}); run shiro update\n`);
      return;
    }
    const result = await applyUpdate(check, { execPath: process.execPath, target: BUILD!.target });
    writeOut(`updated shiro ${result.from} -> ${result.to} at ${result.path}\n`);
  },
});
