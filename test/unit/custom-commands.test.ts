/** Custom commands as Claude Code writes them: namespaced subfolders, allowed-tools, `` !`cmd` `` replaced by what the runner returns. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { commandPreApproval, expandCustomCommand, loadCustomCommands, trustCommandFile } from "../../lib/ui/slash/custom-commands.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-commands-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
const load = () => loadCustomCommands({ cwd: join(dir, "work"), stateDir: join(dir, "state"), home: join(dir, "home"), reserved: ["/help"] });

test("subfolders namespace commands with ':' (up to three levels); allowed-tools keeps each rule as written, in every spelling", () => {
  const commands = join(dir, "work", ".claude", "commands");
  write(join(commands, "frontend", "component.md"), "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\n---\nMake $ARGUMENTS.\n");
  write(join(commands, "a", "b", "c", "deep.md"), "deep\n");
  write(join(commands, "a", "b", "c", "d", "too-deep.md"), "never\n");
  write(join(commands, "top.md"), "---\nallowed-tools: [Edit, Write]\n---\ntop\n");
  write(join(commands, "README"), "not markdown\n");
  const { commands: found, skipped } = load();
  expect(skipped).toEqual([]);
  expect(found.map((command) => [command.name, command.allowedTools])).toEqual([
    ["/a:b:c:deep", undefined],
    ["/frontend:component", ["Bash(git add:*)", "Bash(git status:*)", "Read"]],
    ["/top", ["Edit", "Write"]],
  ]);
});

test("allowed-tools spellings: a comma list, spaces, a quoted YAML list on one line or on lines of their own", () => {
  const commands = join(dir, "work", ".claude", "commands");
  const expected = ["Bash(git add:*)", "Bash(git status:*)", "Read"];
  const spellings = [
    "allowed-tools: Bash(git add:*), Bash(git status:*), Read",
    "allowed-tools: Bash(git add:*) Bash(git status:*) Read",
    'allowed-tools: ["Bash(git add:*)", "Bash(git status:*)", Read]',
    'allowed-tools:\n  - "Bash(git add:*)"\n  - Bash(git status:*)\n  - Read\ndescription: after the list',
  ];
  spellings.forEach((frontmatter, index) => write(join(commands, `c${index}.md`), `---\n${frontmatter}\n---\nbody\n`));
  const found = load().commands;
  expect(found.map((command) => command.allowedTools)).toEqual(spellings.map(() => expected));
  expect(found[3]!.description).toBe("after the list");
});

test("pre-approval: a user-level command's always; a project command's once its exact content is trusted", () => {
  const before = process.env.SHIRO_HOME;
  process.env.SHIRO_HOME = join(dir, "shiro-home");
  try {
    write(join(dir, "home", ".claude", "commands", "mine.md"), "---\nallowed-tools: Bash(git add:*)\n---\nmine\n");
    const projectFile = join(dir, "work", ".claude", "commands", "commit.md");
    write(projectFile, "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\ndescription: Create a git commit\n---\nbody\n");
    const root = join(dir, "work");
    const byName = () => new Map(load().commands.map((command) => [command.name, command]));
    expect(commandPreApproval(byName().get("/mine")!, root)).toBe("yes");
    expect(commandPreApproval(byName().get("/commit")!, root)).toBe("ask");
    trustCommandFile(byName().get("/commit")!, root);
    expect(commandPreApproval(byName().get("/commit")!, root)).toBe("yes");
    writeFileSync(projectFile, "---\nallowed-tools: Bash\n---\nbody\n");
    expect(commandPreApproval(byName().get("/commit")!, root)).toBe("ask");
  } finally {
    if (before === undefined) delete process.env.SHIRO_HOME;
    else process.env.SHIRO_HOME = before;
  }
});

test("each !`cmd` is replaced, in order, by what the runner returns; arguments are filled first; without a runner the text stays", async () => {
  write(
    join(dir, "work", ".claude", "commands", "commit.md"),
    "## Context\n- Status: !`git status --short`\n- Branch: !`git branch --show-current` and `plain code`\nDo $ARGUMENTS\n",
  );
  const [command] = load().commands;
  const ran: string[] = [];
  const text = await expandCustomCommand(command!, "it now", async (line) => {
    ran.push(line);
    return `<${line}>`;
  });
  expect(ran).toEqual(["git status --short", "git branch --show-current"]);
  expect(text).toBe("## Context\n- Status: <git status --short>\n- Branch: <git branch --show-current> and `plain code`\nDo it now");
  expect(await expandCustomCommand(command!, "x")).toContain("!`git status --short`");
});

test("@server:scheme://… attaches the server's resource; an unknown server leaves the token as typed", async () => {
  const { attachMentions } = await import("../../lib/ui/attachments.ts");
  mkdirSync(join(dir, "ws"), { recursive: true });
  const asked: string[] = [];
  const result = await attachMentions("see @docs:file:///guide.md and @nope:db://x", {
    root: join(dir, "ws"),
    ask: async () => "n",
    readResource: async (server, uri) => {
      asked.push(`${server} ${uri}`);
      return server === "docs" ? "GUIDE TEXT" : undefined;
    },
  });
  expect(asked).toEqual(["docs file:///guide.md", "nope db://x"]);
  expect(result.prompt).toBe('see @docs:file:///guide.md and @nope:db://x\n\n<attached resource="docs:file:///guide.md">\nGUIDE TEXT\n</attached>');
  expect(result.report).toEqual(["attached @docs:file:///guide.md (MCP resource)", "@nope:db://x names no file or folder in the workspace; sent as typed"]);
});
