/** Read-only command lines as the shell parser reads them (lib/shell/read-only.ts): a table of spellings either way. */
import { beforeAll, expect, test } from "bun:test";
import { loadShellParser } from "../../lib/shell/parser.ts";
import { isReadOnlyCommand } from "../../lib/shell/read-only.ts";

const ROOT = "/work/project";

beforeAll(async () => {
  await loadShellParser();
});

const readOnly = [
  "ls",
  "ls -la src",
  "git status",
  "git status --short",
  "git diff",
  "git diff HEAD~1 -- lib/a.ts",
  "git log --oneline -5",
  "git show HEAD",
  "git branch",
  "git branch -a",
  "cat README.md",
  "cat src/a.ts src/b.ts",
  "head -n 20 package.json",
  "wc -l lib/a.ts",
  "pwd",
  "grep -rn TODO lib",
  "rg parser lib/shell",
  "find . -name '*.ts'",
  "ls && git status",
  "git diff | head -50",
  "cat a.txt 2>/dev/null",
  "ls 2>&1",
];
const notReadOnly = [
  "rm -rf build",
  "touch a",
  "cat README.md > copy.md",
  "cat README.md >> log",
  "cat /etc/passwd",
  "cat ../outside.txt",
  "cat ~/.ssh/id_rsa",
  "ls $HOME",
  "cat $(echo a)",
  "X=1 ls",
  "sudo ls",
  "env ls",
  "bash -c 'ls'",
  "git push",
  "git commit -m x",
  "git branch -D main",
  "git diff --output=patch.txt",
  "git checkout .",
  "find . -delete",
  "find . -exec rm {} ;",
  "rg --pre sh x",
  "ls; rm a",
  "ls || rm a",
  "npm test",
  "echo hi > a.txt",
  "cat a.txt | tee b.txt",
  "ls /",
  "",
];

for (const command of readOnly) test(`read-only: ${command}`, () => expect(isReadOnlyCommand(command, ROOT)).toBe(true));
for (const command of notReadOnly) test(`not read-only: ${JSON.stringify(command)}`, () => expect(isReadOnlyCommand(command, ROOT)).toBe(false));
