/**
 * parseTimeQuery's precheck (a query with no digit and none of the words a time expression or a
 * when-question needs skips the rules) gives exactly what every rule gives: recall-rank.test.ts's
 * spellings and their neighbours, each rule's words in other cases and scripts, and seeded random
 * queries built from those words, digits and others.
 */
import { describe, expect, test } from "bun:test";
import { parseTimeQuery, parseTimeQueryByRules } from "../../lib/search/time-query.ts";

const NOW = new Date("2026-12-01T10:00:00.000Z");

const QUERIES = [
  "hi",
  "use recall for the login redirect",
  "what did we do today",
  "Yesterday's deploy",
  "the cache decision last week",
  "THIS WEEK's flaky tests",
  "3 days ago the build broke",
  "two weeks ago",
  "a month ago we paused it",
  "errors in the last 10 days",
  "in March we fixed the deploy",
  "the December outage",
  "in may",
  "March 2025 budget",
  "in mar 2025",
  "in 2025 the team",
  "on 2026-03-14 what happened",
  "May I ask about the parser",
  "the mar file",
  "when did we migrate",
  "How long AGO was that",
  "what day did it break",
  "no time here",
  "résumé of the Октябрь plan, ſince forever",
  "",
];

const WORDS = [
  "today",
  "Yesterday",
  "ago",
  "last",
  "past",
  "previous",
  "week",
  "month",
  "year",
  "this",
  "in",
  "during",
  "on",
  "of",
  "since",
  "Jan",
  "feb",
  "MAR",
  "may",
  "June",
  "jul",
  "aug",
  "Sept",
  "oct",
  "nov",
  "December",
  "when",
  "did",
  "what",
  "day",
  "how",
  "long",
  "two",
  "a",
  "the",
  "login",
  "redirect",
  "2026-03-14",
  "2025",
  "10",
  "ſ",
  "é",
];

function _randomQueries(seed: number, count: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 6) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(next() < 0.8 ? " " : ""),
  );
}

describe("the precheck and every rule give the same answer", () => {
  test.each(QUERIES)("%p", (query) => {
    expect(parseTimeQuery(query, NOW)).toEqual(parseTimeQueryByRules(query, NOW));
  });

  test("the table has queries the precheck passes over and queries it hands to the rules", () => {
    expect(parseTimeQuery("use recall for the login redirect", NOW)).toEqual({ words: "use recall for the login redirect", asksWhen: false });
    expect(QUERIES.filter((query) => parseTimeQueryByRules(query, NOW).window).length).toBeGreaterThan(10);
  });

  test("3,000 seeded random queries", () => {
    const queries = _randomQueries(0x71e, 3_000);
    expect(queries.filter((query) => JSON.stringify(parseTimeQuery(query, NOW)) !== JSON.stringify(parseTimeQueryByRules(query, NOW)))).toEqual([]);
    expect(queries.filter((query) => parseTimeQueryByRules(query, NOW).window).length).toBeGreaterThan(300);
  });
});
