/**
 * Deny wins across sources, through the built binary: Claude Code's documented settings example
 * as a trusted `.claude/settings.json`, a `.claude/settings.local.json` that allows what it and
 * config deny, `--allowed-tools` allowing the same and `--yolo` on top. The model calls the tools
 * (fake provider); what it reads back as each tool result is the refusal, and nothing ran.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

/** The example of Claude Code's settings page (code.claude.com/docs/en/settings), unchanged. */
const CLAUDE_DOCS_SETTINGS = `{
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Bash(curl:*)",
      "Read(./.env)",
      "Read(./.env.*)",
      "Read(./secrets/**)"
    ]
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
    "OTEL_METRICS_EXPORTER": "otlp"
  }
}
`;

/** The user's own local settings, allowing what the project settings and config deny. */
const LOCAL_SETTINGS = `${JSON.stringify({ permissions: { allow: ["Bash(curl:*)", "Read(./secrets/**)", "Bash(rm -rf:*)", "Bash(echo:*)"] } }, null, 2)}\n`;

/** Both files, trusted as the REPL's trust question records them (lib/store/project-settings.ts: one hash over both). */
function writeTrustedSettings(): void {
  mkdirSync(join(e2e.dirs.cwd, ".claude"), { recursive: true });
  writeFileSync(join(e2e.dirs.cwd, ".claude", "settings.json"), CLAUDE_DOCS_SETTINGS);
  writeFileSync(join(e2e.dirs.cwd, ".claude", "settings.local.json"), LOCAL_SETTINGS);
  const sha256 = createHash("sha256").update(`.claude/settings.json\0${CLAUDE_DOCS_SETTINGS}\0.claude/settings.local.json\0${LOCAL_SETTINGS}\0`).digest("hex");
  mkdirSync(join(e2e.dirs.home, ".shiro-neko"), { recursive: true });
  writeFileSync(
    join(e2e.dirs.home, ".shiro-neko", "trusted-projects.json"),
    JSON.stringify({ version: 1, entries: [{ root: e2e.dirs.cwd, file: ".claude/settings.json", sha256, at: new Date().toISOString() }] }),
  );
}

const bash = (command: string) => ({ name: "bash", input: { command } });

describe("deny wins across config, settings files, --allowed-tools and --yolo", () => {
  test("each call some source denies is refused, whatever allows it elsewhere; the model reads the rule", async () => {
    writeTrustedSettings();
    mkdirSync(join(e2e.dirs.cwd, "secrets"));
    writeFileSync(join(e2e.dirs.cwd, "secrets", "key.txt"), "the launch code is 0000\n");
    mkdirSync(join(e2e.dirs.cwd, "build"));
    writeFileSync(join(e2e.dirs.cwd, "build", "keep.txt"), "kept\n");
    e2e.writeConfig({ permission: { bash: { "rm *": "deny" } } });
    e2e.fake.script(
      {
        toolCalls: [
          bash("curl -s http://127.0.0.1:9/x"),
          bash("rm -rf build"),
          { name: "read_file", input: { path: "./secrets/key.txt" } },
          bash("echo allowed > allowed.txt"),
        ],
      },
      { text: "done" },
    );
    const result = await e2e.shiro(["-p", "go", "--yolo", "--allowed-tools", "Bash(rm:*) Bash(curl:*) Read"]);
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((tool) => tool.output);
    expect(outputs.slice(0, 3)).toEqual([
      'Error: Refused by the permission rule bash: "curl *" = deny in .claude/settings.json.',
      'Error: Refused by the permission rule bash: "rm *" = deny.',
      'Error: Refused by the permission rule read_file: "secrets/**" = deny in .claude/settings.json.',
    ]);
    expect(outputs[3]!.split("\n")[0]).toBe("exit: 0");
    expect(readFileSync(join(e2e.dirs.cwd, "build", "keep.txt"), "utf8")).toBe("kept\n");
    expect(existsSync(join(e2e.dirs.cwd, "allowed.txt"))).toBe(true);
    expect(JSON.stringify(e2e.fake.requests[1])).not.toContain("launch code");
  }, 60_000);

  test("a settings deny refuses what config allows and --allowed-tools allows, without --yolo; ~/.claude/settings.json allows nothing", async () => {
    writeTrustedSettings();
    e2e.writeConfig({ permission: { bash: { "*": "allow", "touch *": "ask" } } });
    // The user's own ~/.claude/settings.json is not read: its allow does not answer config's ask.
    mkdirSync(join(e2e.dirs.home, ".claude"), { recursive: true });
    writeFileSync(join(e2e.dirs.home, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(touch:*)"] } }));
    e2e.fake.script({ toolCalls: [bash("env X=1 curl -s http://127.0.0.1:9/x"), bash("echo ok"), bash("touch user.txt")] }, { text: "done" });
    const result = await e2e.shiro(["-p", "go", "--allowed-tools", "Bash(curl:*)"]);
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((tool) => tool.output);
    expect([outputs[0], outputs[1]!.split("\n")[0], outputs[2]]).toEqual([
      'Error: Refused by the permission rule bash: "curl *" = deny in .claude/settings.json.',
      "exit: 0",
      "Error: Denied: this call needs approval, and a headless run without --yolo has nobody to give it.",
    ]);
    expect(existsSync(join(e2e.dirs.cwd, "user.txt"))).toBe(false);
  }, 60_000);
});
