/**
 * The GitHub Action's steps (.ci/action/run.sh, which action.yml runs) against a release laid out
 * by build.ts around dist/shiro (the action's logic is under test, not the release build) and the
 * fake provider: it installs the release (checksum verified), runs one headless turn, and leaves
 * the job summary, the outputs and the files the artifact upload names. A tampered release (of
 * the installer's stand-in) installs nothing and fails in one line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { BINARY, ROOT, ensureBinary, fakeEnv } from "./_harness.ts";
import { buildStandInRelease, nativeTarget, packRelease, runProcess } from "./_release.ts";

const RUN_SH = join(ROOT, ".ci", "action", "run.sh");
let work: string;
let fake: FakeProvider;
const release = () => join(work, "release");

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "shiro-action-test-"));
  ensureBinary();
  packRelease(release(), nativeTarget(), BINARY);
  fake = await startFakeProvider();
}, 600_000);

afterAll(async () => {
  await fake?.stop();
  rmSync(work, { recursive: true, force: true });
});

interface ActionRun {
  code: number | null;
  stderr: string;
  out: string;
  summary: string;
  outputs: string;
  workspace: string;
}

async function runAction(inputs: Record<string, string>): Promise<ActionRun> {
  const root = mkdtempSync(join(work, "job-"));
  const [home, temp, workspace] = ["home", "runner-temp", "workspace"].map((name) => join(root, name));
  for (const path of [home!, temp!, workspace!]) mkdirSync(path);
  writeFileSync(join(workspace!, "README.md"), "# demo\n");
  const summary = join(root, "summary.md");
  const outputs = join(root, "outputs.txt");
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home!,
    SHIRO_HOME: home!,
    TMPDIR: temp!,
    NO_COLOR: "1",
    RUNNER_TEMP: temp!,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: outputs,
    INPUT_RELEASE_BASE: release(),
    INPUT_WORKING_DIRECTORY: workspace!,
    ...fakeEnv(fake.baseURL, "chat"),
    ...inputs,
  };
  const script = inputs.FANOUT ? join(ROOT, ".ci", "action", "fanout.sh") : RUN_SH;
  const result = await runProcess("sh", [script], { env, cwd: workspace, timeoutMs: 120_000 });
  const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");
  return { code: result.code, stderr: result.stderr, out: join(temp!, "shiro"), summary: read(summary), outputs: read(outputs), workspace: workspace! };
}

/** The first tool result of a chat request body. */
function toolOutput(body: any): string {
  return String(body.messages.find((message: any) => message.role === "tool").content);
}

describe("the action's script", () => {
  test("installs the release, runs the turn, and leaves the summary, the outputs and the artifact files", async () => {
    fake.reset();
    fake.script({ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "The README is a one-line title." });
    const run = await runAction({ INPUT_PROMPT: "summarise the README", INPUT_ARGS: "--max-steps 5 --no-memory" });
    expect(run.code).toBe(0);
    expect(fake.requests.length).toBe(2);
    expect(fake.violations).toEqual([]);
    expect(readdirSync(run.out).sort()).toEqual(["answer.md", "bin", "install.log", "result.json", "shiro.log", "transcript.html", "transcript.md"]);
    expect(readFileSync(join(run.out, "answer.md"), "utf8")).toBe("The README is a one-line title.\n");
    const result = JSON.parse(readFileSync(join(run.out, "result.json"), "utf8"));
    expect(result).toMatchObject({ result: "The README is a one-line title.", is_error: false, stop: "completed", num_steps: 2 });
    expect(run.summary).toBe(`## shiro\n\nThe README is a one-line title.\n\n\n<sub>stop: completed · exit 0 · session ${result.session_id}</sub>\n`);
    expect(run.outputs.split("\n").filter(Boolean)).toEqual([
      "exit-code=0",
      `session-id=${result.session_id}`,
      "stop=completed",
      `answer-file=${run.out}/answer.md`,
      `result-file=${run.out}/result.json`,
      `out-dir=${run.out}`,
    ]);
    const transcript = readFileSync(join(run.out, "transcript.md"), "utf8");
    expect(transcript).toContain("summarise the README");
    expect(transcript).toContain("The README is a one-line title.");
    expect(readFileSync(join(run.out, "transcript.html"), "utf8")).toStartWith("<!doctype html>");
    expect(readFileSync(join(run.out, "install.log"), "utf8")).toContain("installed shiro-neko");
  }, 180_000);

  test("shiro's exit code is the step's: a cost limit is exit 4, and the summary says so", async () => {
    fake.reset();
    fake.respond(() => ({
      toolCalls: [{ name: "glob", input: { pattern: `*.${Math.random().toString(36).slice(2, 6)}` } }],
      usage: { input: 1_000_000, output: 0 },
    }));
    const run = await runAction({ INPUT_PROMPT: "long job", INPUT_ARGS: "--model gpt-4o-mini --max-cost 0.20" });
    expect(run.code).toBe(4);
    expect(run.outputs).toContain("exit-code=4\n");
    expect(run.summary).toContain("<sub>stop: max-cost · exit 4 · session ");
    expect(run.stderr).toContain("[stopped] the cost limit of $0.20 (--max-cost)");
  }, 180_000);

  test("a tampered release installs nothing and fails in one line", async () => {
    const tampered = join(work, "tampered");
    buildStandInRelease(tampered, nativeTarget());
    const archive = join(tampered, `shiro-${nativeTarget()}.tar.gz`);
    const bytes = readFileSync(archive);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    writeFileSync(archive, bytes);
    fake.reset();
    const run = await runAction({ INPUT_PROMPT: "hi", INPUT_RELEASE_BASE: tampered });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(/^shiro action: install failed: shiro install: checksum mismatch for shiro-[\w-]+\.tar\.gz/);
    expect(existsSync(join(run.out, "bin", "shiro"))).toBe(false);
    expect(fake.requests.length).toBe(0);
  }, 180_000);

  test("the Kubernetes fan-out: each index clones its repository and runs the turn there, results apart", async () => {
    const repos = join(work, "repos");
    for (const name of ["alpha", "beta"]) {
      const dir = join(repos, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "NAME.txt"), `${name}\n`);
      for (const args of [
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
      ]) {
        expect((await runProcess("git", args, { env: { PATH: process.env.PATH!, HOME: work }, cwd: dir })).code).toBe(0);
      }
    }
    const list = join(work, "repos.txt");
    writeFileSync(list, `# one per line\n${join(repos, "alpha")}\n\n${join(repos, "beta")}\n`);
    const results = join(work, "results");
    fake.reset();
    fake.script({ toolCalls: [{ name: "read_file", input: { path: "NAME.txt" } }] }, { text: "This is beta." });
    const run = await runAction({
      INPUT_PROMPT: "which repository is this?",
      JOB_COMPLETION_INDEX: "1",
      SHIRO_REPOS_FILE: list,
      SHIRO_CI_OUT: results,
      INPUT_WORKING_DIRECTORY: "",
      FANOUT: "1",
    });
    expect(run.code).toBe(0);
    expect(toolOutput(fake.requests[1]!.body)).toBe("1: beta");
    expect(readFileSync(join(results, "1", "answer.md"), "utf8")).toBe("This is beta.\n");
    expect(readFileSync(join(results, "1", "repository.txt"), "utf8")).toBe(`${join(repos, "beta")}\n`);
    expect(readdirSync(results)).toEqual(["1"]);
  }, 180_000);

  test("the GitLab template and the Kubernetes Job run the same script with the same inputs and keep its files", () => {
    const gitlab = readFileSync(join(ROOT, ".ci", "gitlab", "shiro.gitlab-ci.yml"), "utf8");
    expect(gitlab).toContain(
      'INPUT_PROMPT="$SHIRO_PROMPT" INPUT_VERSION="$SHIRO_VERSION" INPUT_ARGS="$SHIRO_ARGS" SHIRO_CI_OUT="$CI_PROJECT_DIR/shiro-out" sh /tmp/shiro-run.sh',
    );
    for (const file of ["answer.md", "result.json", "transcript.md", "transcript.html"]) expect(gitlab).toContain(`- shiro-out/${file}`);
    const job = readFileSync(join(ROOT, ".ci", "kubernetes", "shiro-fanout.yaml"), "utf8");
    const repos = /repos\.txt: \|\n((?: {4}.+\n)+)/.exec(job)![1]!.trim().split("\n");
    expect(job).toContain(`completions: ${repos.length}\n`);
    expect(job).toContain("completionMode: Indexed");
    expect(job).toContain("exec sh /opt/shiro/fanout.sh");
  });

  test("action.yml runs this script and uploads the files it leaves", () => {
    const action = readFileSync(join(ROOT, "action.yml"), "utf8");
    expect(action).toContain('run: sh "$GITHUB_ACTION_PATH/.ci/action/run.sh"');
    expect(action).toContain("using: composite");
    for (const file of ["transcript.md", "transcript.html", "result.json", "answer.md"]) expect(action).toContain(`\${{ runner.temp }}/shiro/${file}`);
    for (const input of ["prompt", "version", "release-base", "args", "working-directory"]) {
      expect(action).toContain(`INPUT_${input.toUpperCase().replace("-", "_")}: \${{ inputs.${input} }}`);
    }
  });
});
