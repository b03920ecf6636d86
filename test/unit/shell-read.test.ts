import { beforeAll, describe, expect, test } from "bun:test";
import { expandLongOptions, startsOption } from "../../lib/shell/options.ts";
import { loadShellParser } from "../../lib/shell/parser.ts";
import { peelCommand } from "../../lib/shell/peel.ts";
import { listRuleSubjects, readCommand, readShellInvocation } from "../../lib/shell/read.ts";
import { readSimpleCommands } from "../../lib/shell/simple-commands.ts";
import { decodeAnsiC, expandBraces } from "../../lib/shell/words.ts";

beforeAll(() => loadShellParser());

// [command line, the lines rules see]
const SUBJECTS: [string, string[]][] = [
  ["git push", ["git push"]],
  ["/usr/bin/git push", ["git push"]],
  ["./node_modules/.bin/tsc --noEmit", ["tsc --noEmit"]],
  ["env X=1 git  push", ["git push"]],
  ["X=1 Y='a b' git push", ["git push"]],
  ["timeout 5 git push", ["git push"]],
  ["timeout -s KILL -k 2 5 git push", ["git push"]],
  ["true && git push", ["true", "git push"]],
  ["false || git push; echo done", ["false", "git push", "echo done"]],
  ["echo $(git push)", ["echo $(git push)", "git push"]],
  ["echo `git push`", ["echo `git push`", "git push"]],
  ["x=$(git push)", ["x=$(git push)", "git push"]],
  ["(cd a && git push)", ["cd a", "git push"]],
  ["{ git push; }", ["git push"]],
  ["diff <(git show HEAD:a) a", ["diff <(git show HEAD:a) a", "git show HEAD:a"]],
  ["for r in a b; do git push $r; done", ["git push $r"]],
  ["git push | tee log", ["git push", "tee log"]],
  ["nohup git push &", ["git push"]],
  ["command git push", ["git push"]],
  ["builtin cd /tmp", ["cd /tmp"]],
  ["echo a | xargs -I{} -n 1 git push {}", ["echo a", "git push {}"]],
  ["nice -n 5 stdbuf -oL git push", ["git push"]],
  ["env -i -- PATH=/bin git push", ["git push"]],
  ["env -S 'git push --force'", ["git push --force"]],
  ["sudo -u deploy git push", ["sudo -u deploy git push", "git push"]],
  ["git -C repo -c user.name=x --no-pager push", ["git push"]],
  ["git push --forc", ["git push --forc"]],
  ["git push --force-w=main", ["git push --force-with-lease=main"]],
  ["git reset --har", ["git reset --hard"]],
  ["rm --recur --forc x", ["rm --recursive --force x"]],
  ["rm -- --recur", ["rm -- --recur"]],
  ["r''m -r\"f\" x", ["rm -rf x"]],
  ["\\rm -rf x", ["rm -rf x"]],
  ["$'\\x72\\155' -rf x", ["rm -rf x"]],
  ["{rm,-rf,x}", ["rm -rf x"]],
  ["git  commit  -m  'two  spaces'", ["git commit -m two spaces"]],
  ["npm test 2>&1 > out.log", ["npm test 2>&1 > out.log"]],
  ["bash -c 'git push'", ["bash -c git push", "git push"]],
  ['sh -ec "cd x; git push"', ["sh -ec cd x; git push", "cd x", "git push"]],
  ["eval git push", ["eval git push", "git push"]],
  ["bash <<'EOF'\ngit push\nEOF", ["bash <<'EOF'", "git push"]],
  ["find . -name x -exec git push \\;", ["find . -name x -exec git push ;", "git push"]],
  ["command -v git", ["command -v git"]],
  ["$CMD push", ["$CMD push"]],
  ["FOO=1", ["FOO=1"]],
  ["echo 'unclosed", ["echo unclosed"]],
];

describe("the lines bash rules see", () => {
  for (const [command, expected] of SUBJECTS) {
    test(JSON.stringify(command), () => expect(listRuleSubjects(command)).toEqual(expected));
  }
});

describe("simple commands", () => {
  test("words, expansions, globs, assignments, redirections and pipes", () => {
    const { commands, parsed } = readSimpleCommands("A=1 ls -l \"$HOME\" *.ts >out | grep -v x <<< 'hi'");
    expect(parsed).toBe(true);
    expect(commands).toEqual([
      {
        words: ["ls", "-l", '"$HOME"', "*.ts"],
        known: [true, true, false, true],
        glob: [false, false, false, true],
        assigns: ["A=1"],
        redirects: [">out"],
        piped: false,
      },
      {
        words: ["grep", "-v", "x"],
        known: [true, true, true],
        glob: [false, false, false],
        assigns: [],
        redirects: ["<<< 'hi'"],
        piped: true,
        stdinText: "hi",
      },
    ]);
  });

  test("quoted glob characters and braces stay literal", () => {
    expect(readSimpleCommands("ls '*.ts' \"{a,b}\"").commands[0]).toMatchObject({ words: ["ls", "*.ts", "{a,b}"], glob: [false, false, false] });
  });

  test("the fallback split drops quotes and backslashes and keeps pipes", () => {
    const { commands, parsed } = readSimpleCommands("r'm' -rf x | sh 'unclosed");
    expect(parsed).toBe(false);
    expect(commands.map((command) => [command.words, command.piped])).toEqual([
      [["rm", "-rf", "x"], false],
      [["sh", "unclosed"], true],
    ]);
  });

  test("nested scripts are read three levels deep", () => {
    const depths = readCommand('bash -c "sh -c \'eval \\"rm x\\"\'"').commands.map((command) => [command.peeled.program, command.depth]);
    expect(depths).toEqual([
      ["bash", 0],
      ["sh", 1],
      ["eval", 2],
      ["rm", 3],
    ]);
  });
});

describe("peeling", () => {
  const peel = (command: string) => {
    const { peeled } = readCommand(command).commands[0]!;
    return { program: peeled.program, args: peeled.args, wrappers: peeled.wrappers };
  };
  // [command line, program, args, wrappers]
  const TABLE: [string, string, string[], string[]][] = [
    ["sudo -E env -u HOME timeout --signal=9 10 nohup /bin/rm -rf x", "rm", ["-rf", "x"], ["sudo", "env", "timeout", "nohup"]],
    ["xargs -0 -P4 -n1 -- chmod 777", "chmod", ["777"], ["xargs"]],
    ["doas -u root busybox rm x", "rm", ["x"], ["doas", "busybox"]],
    ["exec -a name git status", "git", ["status"], ["exec"]],
    ["time -p setsid git gc", "git", ["gc"], ["setsid"]],
    ["watch -x -n 1 ionice -c2 -n7 taskset -c 0 flock -w 5 /tmp/l git gc", "git", ["gc"], ["watch", "ionice", "taskset", "flock"]],
    ["watch -n 1 git gc", "sh", ["-c", "git gc"], ["watch"]],
    ["flock -w 5 /tmp/l -c 'rm -rf x'", "sh", ["-c", "rm -rf x"], ["flock"]],
    ["script -qc 'rm -rf x' /dev/null", "sh", ["-c", "rm -rf x"], ["script"]],
    ["su root -c 'rm -rf x'", "sh", ["-c", "rm -rf x"], ["su"]],
    ["su -", "sh", [], ["su"]],
    ["runuser -u nobody -- rm -rf x", "rm", ["-rf", "x"], ["runuser"]],
    ["strace -f -e trace=file -o log chroot / unshare -r chrt 1 rm -rf x", "rm", ["-rf", "x"], ["strace", "chroot", "unshare", "chrt"]],
    ["parallel -j2 'rm -rf {}' ::: x y", "sh", ["-c", "rm -rf {}"], ["parallel"]],
    ["sudo -s rm -rf x", "sh", ["-c", "rm -rf x"], ["sudo"]],
    ["sudo -i", "sh", [], ["sudo"]],
    ["command -V rm", "command", ["-V", "rm"], []],
    ["timeout 5", "timeout", ["5"], []],
    ["git --git-dir .git --work-tree=. push -f", "git", ["push", "-f"], []],
  ];
  for (const [command, program, args, wrappers] of TABLE) {
    test(JSON.stringify(command), () => expect(peel(command)).toEqual({ program, args, wrappers }));
  }

  test("a program glob is kept as a pattern and flagged", () => {
    expect(peelCommand(readSimpleCommands("/bin/r? -rf x").commands[0]!)).toMatchObject({ program: "r?", programGlob: true });
  });
});

describe("words and options", () => {
  test("$'…' escapes", () => {
    expect(decodeAnsiC("\\x72\\155\\u0020\\t\\'\\cA")).toBe("rm \t'\x01");
  });

  test("brace expansion: lists, nesting, ranges, capped", () => {
    expect(expandBraces("a{b,c}d")).toEqual(["abd", "acd"]);
    expect(expandBraces("{x,y{1,2}}")).toEqual(["x", "y1", "y2"]);
    expect(expandBraces("f{1..3}")).toEqual(["f1", "f2", "f3"]);
    expect(expandBraces("{a..c}")).toEqual(["a", "b", "c"]);
    expect(expandBraces("{solo}")).toEqual(["{solo}"]);
    expect(expandBraces("{1..1000}")).toHaveLength(64);
  });

  test("long options: exact, unique prefix, ambiguous, after --, unknown command", () => {
    expect(expandLongOptions("git push", ["--force-w", "--forc", "--tags", "--del", "--", "--forc"])).toEqual([
      "--force-with-lease",
      "--forc",
      "--tags",
      "--delete",
      "--",
      "--forc",
    ]);
    expect(expandLongOptions("rm", ["--r", "--f", "--no-p"])).toEqual(["--recursive", "--force", "--no-preserve-root"]);
    expect(expandLongOptions("git clean", ["--forc", "--no-f"])).toEqual(["--force", "--no-force"]);
    expect(expandLongOptions("ls", ["--al"])).toEqual(["--al"]);
    expect([
      startsOption("--forc", "--force-with-lease"),
      startsOption("--f=x", "--force"),
      startsOption("--no-force", "--force"),
      startsOption("-f", "--force"),
    ]).toEqual([true, true, false, false]);
  });

  test("where a shell's script comes from", () => {
    expect(readShellInvocation([])).toEqual({ readsStdin: true });
    expect(readShellInvocation(["-s", "--", "--yes"])).toEqual({ readsStdin: true });
    expect(readShellInvocation(["-e", "-o", "pipefail"])).toEqual({ readsStdin: true });
    expect(readShellInvocation(["-eo", "pipefail", "-x"])).toEqual({ readsStdin: true });
    expect(readShellInvocation(["-lc", "make"])).toEqual({ command: "make", commandIndex: 1, readsStdin: false });
    expect(readShellInvocation(["run.sh"])).toEqual({ readsStdin: false });
  });
});
