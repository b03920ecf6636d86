import { describe, expect, test } from "bun:test";
import { callSubjects } from "../../lib/approval/rules.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDisabledPluginHost, createPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { Plugin, PluginFactory, PluginHost } from "../../lib/extension-api/plugin-api.ts";
import { BUILTIN_PLUGINS } from "../../plugins/index.ts";
import { FORMAT_TIMEOUT_MS, pickFormatter, runFormatter } from "../../plugins/format.ts";
import { currentTimeTool, describeTime } from "../../plugins/time.ts";

const quiet = { cwd: "/ws", writeStderr: () => {} };
const fake =
  (plugin: Partial<Plugin> & { name: string }): PluginFactory =>
  () => ({ description: `the ${plugin.name} plugin`, ...plugin });

describe("plugin host", () => {
  test("the default host loads guard, secrets, protect and time", () => {
    const host = createPluginHost(quiet);
    expect(host.disabled).toBe(false);
    expect(host.active().map((plugin) => [plugin.name, plugin.installed])).toEqual([
      ["guard", false],
      ["secrets", false],
      ["protect", false],
      ["time", false],
    ]);
    expect(host.failures()).toEqual([]);
    // The time plugin's autoApprove is its tool's declared decision.
    expect(host.tools().map((tool) => [tool.name, tool.decision])).toEqual([["current_time", "allow"]]);
  });

  test("builtins load in the enabled order, once each; unknown names and throwing factories are failures", () => {
    const host = createPluginHost({
      ...quiet,
      enabled: ["time", "nope", "guard", "time", "broken"],
      builtins: {
        time: fake({ name: "time" }),
        guard: fake({ name: "guard" }),
        broken: () => {
          throw new Error("needs a config file");
        },
      },
    });
    expect(host.active().map((plugin) => plugin.name)).toEqual(["time", "guard"]);
    expect(host.failures()).toEqual([
      { name: "nope", error: "no such plugin" },
      { name: "broken", error: "needs a config file" },
    ]);
  });

  test("the first guard that blocks wins, prefixed with its name; a throwing guard blocks", async () => {
    const seen: string[] = [];
    const host = createPluginHost({
      ...quiet,
      enabled: ["a", "b", "c"],
      builtins: {
        a: fake({
          name: "a",
          beforeToolCall: ({ toolName }) => {
            seen.push(`a:${toolName}`);
            return undefined;
          },
        }),
        b: fake({ name: "b", beforeToolCall: async ({ toolName }) => (toolName === "bash" ? "no shells today" : undefined) }),
        c: fake({
          name: "c",
          beforeToolCall: ({ toolName }) => {
            seen.push(`c:${toolName}`);
            if (toolName === "grep") throw new Error("index missing");
            return "too late";
          },
        }),
      },
    });
    expect(await host.checkToolCall({ toolName: "bash", input: {}, cwd: "/ws" })).toBe("Blocked by the b plugin: no shells today");
    expect(await host.checkToolCall({ toolName: "grep", input: {}, cwd: "/ws" })).toBe("Blocked by the c plugin: its check failed (index missing)");
    expect(seen).toEqual(["a:bash", "a:grep", "c:grep"]);
  });

  test("every afterTurn hook runs even when one throws; failures come back in order", async () => {
    const ran: string[] = [];
    const host = createPluginHost({
      ...quiet,
      enabled: ["one", "two", "three"],
      builtins: {
        one: fake({
          name: "one",
          afterTurn: () => {
            ran.push("one");
            throw new Error("disk full");
          },
        }),
        two: fake({
          name: "two",
          afterTurn: async () => {
            ran.push("two");
          },
        }),
        three: fake({
          name: "three",
          afterTurn: async () => {
            ran.push("three");
            throw new Error("timeout");
          },
        }),
      },
    });
    expect(await host.runAfterTurn()).toEqual([
      { name: "one", error: "disk full" },
      { name: "three", error: "timeout" },
    ]);
    expect(ran).toEqual(["one", "two", "three"]);
  });

  test("tools: the first plugin offering a name wins; appendices in order", () => {
    const tool = (name: string, description: string) => ({ ...currentTimeTool, name, description });
    const host = createPluginHost({
      ...quiet,
      enabled: ["a", "b"],
      builtins: {
        a: fake({ name: "a", tools: [tool("lint", "from a")], appendix: "Run lint after edits." }),
        b: fake({ name: "b", tools: [tool("lint", "from b"), tool("fmt", "from b")], appendix: "Prefer small diffs." }),
      },
    });
    expect(host.tools().map((t) => [t.name, t.description])).toEqual([
      ["lint", "from a"],
      ["fmt", "from b"],
    ]);
    expect(host.appendices()).toEqual(["Run lint after edits.", "Prefer small diffs."]);
  });

  test("--no-plugins: an empty host that stays empty", async () => {
    const host = createDisabledPluginHost();
    expect(host.disabled).toBe(true);
    host.loadInstalled([{ name: "x", description: "x", deny: [{ tools: ["bash"], commandPattern: ".", reason: "no" }] }]);
    expect(host.active()).toEqual([]);
    expect(host.tools()).toEqual([]);
    expect(await host.checkToolCall({ toolName: "bash", input: { command: "rm -rf /" }, cwd: "/ws" })).toBeUndefined();
  });

  test("installed manifests become guards after the builtins; bad ones are failures", async () => {
    const host = createPluginHost({ ...quiet, enabled: ["time"] });
    host.loadInstalled([
      {
        name: "no-migrations",
        description: "keeps migrations read-only",
        appendix: "Never edit migrations.",
        deny: [
          { tools: ["write_file", "apply_patch", "move_file"], pathPattern: "^migrations/", reason: "migrations are append-only" },
          { tools: ["bash"], commandPattern: "terraform\\s+apply", reason: "apply infrastructure by hand" },
        ],
      },
      { name: "broken", description: "x", deny: [{ tools: ["bash"], commandPattern: "(", reason: "x" }] },
      { name: "time", description: "impostor", deny: [] },
    ]);
    expect(host.active()).toEqual([
      { name: "time", description: "adds the current_time tool", installed: false },
      { name: "no-migrations", description: "keeps migrations read-only (installed)", installed: true },
    ]);
    expect(host.failures().map((failure) => failure.name)).toEqual(["broken", "time"]);
    expect(host.failures()[0]!.error).toStartWith('invalid pattern "(": ');
    expect(host.failures()[1]!.error).toBe('a plugin named "time" is already active');
    expect(host.appendices()).toEqual(["Never edit migrations."]);
    const tools = new Map(builtinTools({ complete: async () => "m" }).map((tool) => [tool.name, tool]));
    const check = (toolName: string, input: unknown) =>
      host.checkToolCall({ toolName, input, cwd: "/ws", paths: callSubjects(tools.get(toolName), input, "/ws").paths });
    expect(await check("write_file", { path: "Migrations/001.sql" })).toBe("Blocked by the no-migrations plugin: migrations are append-only");
    expect(await check("move_file", { from: "a.sql", to: "migrations/002.sql" })).toBe("Blocked by the no-migrations plugin: migrations are append-only");
    expect(await check("bash", { command: "cd infra && terraform  apply" })).toBe("Blocked by the no-migrations plugin: apply infrastructure by hand");
    expect(await check("edit_file", { path: "migrations/001.sql" })).toBeUndefined();
    expect(await check("bash", { command: "terraform plan" })).toBeUndefined();
  });
});

describe("time, bell and format", () => {
  test("current_time gives ISO 8601 and the local date string", async () => {
    const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6));
    expect(describeTime(at)).toBe(`2025-01-02T03:04:05.006Z (local: ${at.toString()})`);
    const text = await currentTimeTool.execute({}, { root: "/ws", signal: new AbortController().signal, emitOutput: () => {}, callId: "c" });
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(local: .+\)$/);
  });

  test("bell writes BEL to stderr after each turn", async () => {
    const written: string[] = [];
    const host = createPluginHost({ cwd: "/ws", enabled: ["bell"], writeStderr: (text) => written.push(text) });
    await host.runAfterTurn();
    await host.runAfterTurn();
    expect(written).toEqual(["\u0007", "\u0007"]);
  });

  test("the formatter is the first that applies: package.json format script, Cargo.toml, go.mod", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-format-"));
    try {
      expect(pickFormatter(dir)).toBeUndefined();
      writeFileSync(join(dir, "go.mod"), "module x\n");
      expect(pickFormatter(dir)).toEqual(["gofmt", "-w", "."]);
      writeFileSync(join(dir, "Cargo.toml"), "[package]\n");
      expect(pickFormatter(dir)).toEqual(["cargo", "fmt"]);
      writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "bun test" } }));
      expect(pickFormatter(dir)).toEqual(["cargo", "fmt"]);
      writeFileSync(join(dir, "package.json"), "{ not json");
      expect(pickFormatter(dir)).toEqual(["cargo", "fmt"]);
      writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { format: "prettier -w ." } }));
      expect(pickFormatter(dir)).toEqual(["bun", "run", "format"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("format runs the project's script after a turn; a missing or hung formatter is survived", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-format-"));
    try {
      const script = `${JSON.stringify(process.execPath)} -e "require('fs').writeFileSync('formatted.txt', 'yes')"`;
      writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { format: script } }));
      const host = createPluginHost({ cwd: dir, enabled: ["format"], writeStderr: () => {} });
      expect(await host.runAfterTurn()).toEqual([]);
      expect(readFileSync(join(dir, "formatted.txt"), "utf8")).toBe("yes");

      await runFormatter(["shiro-no-such-formatter-binary"], dir);
      // A formatter that never ends, with a child of its own: the deadline ends both (the whole
      // process group). runFormatter returning at all proves the first; /proc proves the second.
      const pids = join(dir, "pids.txt");
      const hang = `const { spawn } = require('child_process'); const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        require('fs').writeFileSync(${JSON.stringify(pids)}, process.pid + ' ' + c.pid); setInterval(() => {}, 1000);`;
      await runFormatter([process.execPath, "-e", hang], dir, 2_000);
      const [parent, child] = readFileSync(pids, "utf8").split(" ").map(Number);
      expect(await Promise.all([_ended(parent!), _ended(child!)])).toEqual([true, true]);
      expect(FORMAT_TIMEOUT_MS).toBe(60_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);
});

/** Whether `pid` ends within 5 s (a SIGKILLed process may take a moment to be gone). */
async function _ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!_alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Whether `pid` is a live process; a killed one that is not reaped yet (a zombie) is not. */
function _alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe("/plugins", () => {
  test("lists the session's plugins, then those that failed; --no-plugins says the guard is off", async () => {
    const { EXTENSION_COMMANDS } = await import("../../lib/ui/slash/extensions.ts");
    const { createStyle } = await import("../../lib/ui/style.ts");
    const command = EXTENSION_COMMANDS.find((candidate) => candidate.name === "/plugins")!;
    const shown = async (plugins: PluginHost) => {
      let out = "";
      await command.run("", { agent: { plugins } as never, write: (text) => (out += text), style: createStyle(false) });
      return out.split("\n").filter(Boolean);
    };
    const host = createPluginHost({
      cwd: "/ws",
      writeStderr: () => {},
      enabled: ["guard", "time", "boom"],
      builtins: {
        ...BUILTIN_PLUGINS,
        boom: () => {
          throw new Error("no");
        },
      },
    });
    const lines = await shown(host);
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(["guard", "time", "boom"]);
    expect(lines.at(-1)).toContain("failed to load: ");
    expect(await shown(createDisabledPluginHost())).toEqual(["plugins: none (--no-plugins), so the guard is off"]);
  });
});
