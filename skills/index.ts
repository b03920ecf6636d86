/**
 * The builtin skills, embedded as text so the compiled binary carries them. Keys are the folder
 * names; each value is the whole SKILL.md (frontmatter included), parsed by lib/skills/skills.ts.
 */
import commit from "./commit/SKILL.md" with { type: "text" };
import debug from "./debug/SKILL.md" with { type: "text" };
import migrate from "./migrate/SKILL.md" with { type: "text" };
import perf from "./perf/SKILL.md" with { type: "text" };
import refactor from "./refactor/SKILL.md" with { type: "text" };
import review from "./review/SKILL.md" with { type: "text" };
import security from "./security/SKILL.md" with { type: "text" };
import test from "./test/SKILL.md" with { type: "text" };
import verify from "./verify/SKILL.md" with { type: "text" };

export const BUILTIN_SKILL_FILES: Readonly<Record<string, string>> = {
  commit,
  debug,
  migrate,
  perf,
  refactor,
  review,
  security,
  test,
  verify,
};
