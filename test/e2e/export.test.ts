/**
 * `shiro export` through the built binary: a session and a run as Markdown, JSON and HTML, with a
 * fake secret that was read during the session (and one planted in the stored files, past the
 * store's own redaction) absent from all three. The HTML opens in headless Chromium with the
 * network off, loads nothing, and its search box filters the messages as it is typed into.
 * SHIRO_EXPORT_SCREENSHOT=<file.png> also saves a light-theme screenshot (docs/export-screenshot.png).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { shortestUniquePrefix } from "../../lib/platform/ids.ts";
import { buildFakeSecrets } from "../fixtures/fake-secrets.ts";
import { chromiumAvailable, openInChromium } from "./_chromium.ts";
import { useE2E } from "./_harness.ts";

const e2e = useE2E();
const SECRETS = buildFakeSecrets(0xe4);
const READ_SECRET = SECRETS.find((secret) => secret.kind === "github-token")!.value;
const PLANTED = SECRETS.find((secret) => secret.kind === "stripe-key")!.value;
const state = (...parts: string[]) => join(e2e.dirs.home, ".shiro-neko", ...parts);
const shiro = (args: string[]) => e2e.shiro(args, { protocol: "chat" });

/** A session that plans, reads a file holding a token, edits a file, runs a command and answers; then a planted secret and a compaction span on disk. */
async function recordSession(): Promise<{ sessionId: string; runId: string }> {
  writeFileSync(join(e2e.dirs.cwd, "deploy-notes.txt"), `GITHUB_TOKEN=${READ_SECRET}\nREGION=eu-west\n`);
  writeFileSync(join(e2e.dirs.cwd, "parser.ts"), "export const limit = 4096;\nexport const lock = 'quokka';\n");
  e2e.fake.script(
    {
      toolCalls: [
        {
          name: "todo_write",
          input: {
            todos: [
              { content: "read the deploy config", status: "done" },
              { content: "raise the zebra limit", status: "in_progress" },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ name: "read_file", input: { path: "deploy-notes.txt" } }] },
    { toolCalls: [{ name: "edit_file", input: { path: "parser.ts", oldString: "export const limit = 4096;", newString: "export const limit = 8192;" } }] },
    { toolCalls: [{ name: "bash", input: { command: "echo flamingo-probe done" } }] },
    { text: "Raised the zebra limit to 8192; the deploy token lives in deploy-notes.txt." },
  );
  expect((await shiro(["-p", "raise the zebra parser limit and check the deploy config", "--yolo"])).code).toBe(0);
  const [sessionFile] = readdirSync(state("sessions")).filter((name) => name.endsWith(".json"));
  const [runFile] = readdirSync(state("runs"));
  const sessionId = sessionFile!.slice(0, -5);
  const session = JSON.parse(readFileSync(state("sessions", sessionFile!), "utf8"));
  // Hand-edited record: a secret the store never saw, and the first exchange compacted.
  session.messages[session.messages.length - 1].parts[0].text += ` (old key ${PLANTED})`;
  session.compaction = { spans: [{ from: 1, to: 3, summary: "Planned two tasks and wrote the todo list.", createdAt: "2026-11-30T10:00:00.000Z" }] };
  writeFileSync(state("sessions", sessionFile!), JSON.stringify(session));
  const events = readFileSync(state("events", `${runFile!.slice(0, -5)}.jsonl`), "utf8");
  writeFileSync(
    state("events", `${runFile!.slice(0, -5)}.jsonl`),
    `${events}${JSON.stringify({ seq: 999, at: "2026-11-30T10:00:00.000Z", type: "notice", text: `leaked ${PLANTED}` })}\n`,
  );
  return { sessionId, runId: runFile!.slice(0, -5) };
}

function expectNoSecret(label: string, text: string): void {
  expect({ label, read: text.includes(READ_SECRET), planted: text.includes(PLANTED) }).toEqual({ label, read: false, planted: false });
}

describe("shiro export", () => {
  test("a session and a run in three formats: complete, redacted, and the HTML self-contained and searchable in Chromium", async () => {
    const { sessionId, runId } = await recordSession();
    // As shiro prints it: unique among sessions and runs (a session and its run share the millisecond).
    const short = shortestUniquePrefix(sessionId, [sessionId, runId]);
    expect((await shiro(["export", sessionId.slice(0, 8)])).stderr).toBe(
      `shiro: "${sessionId.slice(0, 8)}" matches a session and a run; give more characters\n`,
    );

    const markdown = await shiro(["export", short]);
    expect({ code: markdown.code, stderr: markdown.stderr }).toEqual({ code: 0, stderr: "" });
    expectNoSecret("markdown", markdown.stdout);
    expect(markdown.stdout).toStartWith("# raise the zebra parser limit and check the deploy config\n");
    for (const part of [
      "| session | " + sessionId + " |",
      "## Tasks",
      "- [x] read the deploy config",
      "- [ ] raise the zebra limit *(in progress)*",
      "### User",
      "### Assistant",
      "Raised the zebra limit to 8192",
      "<redacted:stripe-key>",
      "<redacted:github-token>",
      "```diff\n--- a/parser.ts\n+++ b/parser.ts\n@@\n-export const limit = 4096;\n+export const limit = 8192;\n```",
      "> **Summary:** Planned two tasks and wrote the todo list.",
      "<details><summary>bash: <code>$ echo flamingo-probe done</code></summary>",
      // An edit's header names the file, not the diff's first line.
      "<details><summary>edit_file: <code>parser.ts</code></summary>",
    ])
      expect({ part, found: markdown.stdout.includes(part) }).toEqual({ part, found: true });

    const json = await shiro(["export", sessionId, "--format", "json"]);
    expectNoSecret("json", json.stdout);
    const record = JSON.parse(json.stdout);
    expect([record.id, record.messages.length, record.compaction.spans.length]).toEqual([sessionId, 10, 1]);

    const runMarkdown = await shiro(["export", runId, "-f", "markdown"]);
    expectNoSecret("run markdown", runMarkdown.stdout);
    expect(runMarkdown.stdout).toContain(`| run | ${runId} |`);
    expect(runMarkdown.stdout).toContain("> leaked <redacted:stripe-key>");
    const runJson = JSON.parse((await shiro(["export", runId, "--format=JSON"])).stdout);
    expect([runJson.run.id, runJson.events.at(-1).text]).toEqual([runId, "leaked <redacted:stripe-key>"]);

    const htmlFile = join(e2e.dirs.cwd, "session.html");
    const html = await shiro(["export", short, "-o", "session.html"]);
    expect({ code: html.code, stdout: html.stdout, stderr: html.stderr }).toEqual({
      code: 0,
      stdout: "",
      stderr: `wrote session ${sessionId} as html to session.html\n`,
    });
    const page = readFileSync(htmlFile, "utf8");
    expectNoSecret("html", page);
    expect(page).toContain("Content-Security-Policy");
    expect(page).toContain(`<summary><span class="tool-name">edit_file</span> <code>parser.ts</code></summary>`);
    // Nothing to fetch: no src, href, url() or @import anywhere.
    expect(page.match(/\b(?:src|href)\s*=|url\(|@import/gi)).toBeNull();
    const runHtml = await shiro(["export", runId, "--format", "html"]);
    expectNoSecret("run html", runHtml.stdout);

    for (const bad of [
      ["export", short, "--format", "pdf"],
      ["export", "zzzz"],
      ["export", "0"],
    ]) {
      const result = await shiro(bad);
      expect({ bad, code: result.code === 0, lines: result.stderr.trimEnd().split("\n").length }).toEqual({ bad, code: false, lines: 1 });
    }

    if (!chromiumAvailable()) return;
    const browser = await openInChromium(`file://${resolve(htmlFile)}`);
    try {
      // A message is left visible when neither it nor a block around it is filtered out.
      const visible = () => browser.evaluate<number>(`[...document.querySelectorAll(".msg:not(.compaction)")].filter((el) => !el.closest(".hidden")).length`);
      const total = await visible();
      // prompt, answer, 4 tool calls (todo_write, read_file, edit_file, bash): 2 of them inside the compaction span
      expect(total).toBe(6);
      expect(await browser.evaluate<string>(`document.getElementById("count").textContent`)).toBe("6 messages");
      await browser.send("Runtime.evaluate", { expression: `document.getElementById("search").focus()` });
      await browser.send("Input.insertText", { text: "flamingo" });
      expect(await visible()).toBe(1);
      expect(await browser.evaluate<string>(`document.getElementById("count").textContent`)).toBe("1 of 6 messages");
      await browser.send("Input.insertText", { text: " nothing-of-that-kind" });
      expect(await visible()).toBe(0);
      expect(await browser.evaluate<boolean>(`!document.getElementById("empty").classList.contains("hidden")`)).toBe(true);
      await browser.evaluate(`(() => { const box = document.getElementById("search"); box.value = "todo"; box.dispatchEvent(new Event("input")); })()`);
      // The todo_write call, inside the compacted span: its block stays and opens.
      expect(await visible()).toBe(1);
      expect(await browser.evaluate<boolean>(`document.querySelector(".msg.compaction details").open`)).toBe(true);
      expect(browser.requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
      const screenshot = process.env.SHIRO_EXPORT_SCREENSHOT;
      if (screenshot) {
        await browser.evaluate(
          `(() => { const box = document.getElementById("search"); box.value = ""; box.dispatchEvent(new Event("input")); document.querySelectorAll("details").forEach((d) => { d.open = false; }); document.querySelectorAll(".msg.tool details")[2].open = true; box.blur(); window.scrollTo(0, 0); })()`,
        );
        await browser.send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "light" }] });
        await browser.send("Emulation.setDeviceMetricsOverride", { width: 1000, height: 1400, deviceScaleFactor: 1, mobile: false });
        const shot = await browser.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: false });
        writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
      }
    } finally {
      await browser.close();
    }
  }, 120_000);
});
