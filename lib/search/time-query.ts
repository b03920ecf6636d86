/**
 * Time in a question: "last week", "in March", "3 days ago", "yesterday", "on 2026-03-14".
 * The expression is resolved against `now` into a window of dates (UTC days), and taken out of
 * the words searched (a passage that says "week" is no better for it).
 *
 * Contract:
 * - `today`, `yesterday`; `this|last|past|previous week|month|year` (a week starts on Monday;
 *   `past` means the trailing 7/31/365 days); `N days|weeks|months ago` (N in digits or one to
 *   twelve in words; the window is that day, that week, that month); `last|past N days|weeks`;
 *   `[in|during] <month> [year]` (the most recent such month that has begun; a year given names
 *   it; a month alone must be capitalised, and `may` and abbreviations such as `mar` need `in` or a
 *   year); `in <year>`; `on <YYYY-MM-DD>` or a bare ISO date (that day; the date also stays a
 *   searched term).
 * - The first expression found wins; a query with none has no window.
 * - `asksWhen`: the question asks for a time ("when did…", "what day", "what date", "how long ago").
 * - Pure: the same query and `now` always give the same answer.
 */

export interface TimeWindow {
  /** Inclusive start and exclusive end, ISO strings (compared with stored ISO times). */
  from: string;
  to: string;
}

export interface TimeQuery {
  /** The query with the time expression removed. */
  words: string;
  window?: TimeWindow;
  asksWhen: boolean;
}

const _DAY = 86_400_000;
const _MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const _MONTH_ABBR = _MONTHS.map((month) => month.slice(0, 3));
const _NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const _N = `(\\d{1,3}|${_NUMBERS.join("|")}|a|an)`;
const _MONTH = `(${_MONTHS.join("|")}|${_MONTH_ABBR.filter((abbr) => abbr !== "may").join("|")})`;

type _Rule = [RegExp, (match: RegExpMatchArray, now: Date) => TimeWindow | undefined, boolean?];

const _RULES: _Rule[] = [
  [/\btoday\b/i, (_m, now) => _days(_startOfDay(now), 1)],
  [/\byesterday\b/i, (_m, now) => _days(_startOfDay(now) - _DAY, 1)],
  [new RegExp(`\\b${_N}\\s+(day|week|month)s?\\s+ago\\b`, "i"), (m, now) => _ago(_count(m[1]!), m[2]!.toLowerCase(), now)],
  [
    new RegExp(`\\b(?:last|past|previous)\\s+${_N}\\s+(day|week)s?\\b`, "i"),
    (m, now) => _trailing(_count(m[1]!) * (m[2]!.toLowerCase() === "week" ? 7 : 1), now),
  ],
  [/\b(this|last|past|previous)\s+(week|month|year)\b/i, (m, now) => _named(m[1]!.toLowerCase(), m[2]!.toLowerCase(), now)],
  [new RegExp(`\\b(?:(in|during|of|since)\\s+)?${_MONTH}(?:\\s+(\\d{4}))?\\b`, "i"), (m, now) => _month(m[1], m[2]!, m[3], now)],
  [/\b(?:in|during)\s+((?:19|20)\d{2})\b/i, (m) => ({ from: `${m[1]}-01-01T00:00:00.000Z`, to: `${Number(m[1]) + 1}-01-01T00:00:00.000Z` })],
  [/\b(?:on\s+)?((?:19|20)\d{2})-(\d{2})-(\d{2})\b/i, (m) => _days(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])), 1), true],
];

const _WHEN = /\b(when\s+(?:did|was|were|do|have|had)|what\s+(?:day|date|time|month|year)|how\s+long\s+ago)\b/i;

/**
 * What every rule and `_WHEN` needs, one of them at least: a digit or one of these words (or a
 * month's first three letters). A query without any (most prompts) is answered without compiling
 * the rules' patterns, which a process's first call otherwise pays (~0.5 ms before a first request).
 */
const _MAY_HOLD_TIME = /\d|today|yesterday|ago|last|past|previous|week|month|year|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|when|what/i;

export function parseTimeQuery(query: string, now: Date): TimeQuery {
  return _MAY_HOLD_TIME.test(query) ? parseTimeQueryByRules(query, now) : { words: query, asksWhen: false };
}

/** `parseTimeQuery` by every rule whatever the query: the reference its precheck is tested against. */
export function parseTimeQueryByRules(query: string, now: Date): TimeQuery {
  const asksWhen = _WHEN.test(query);
  for (const [pattern, resolve, keep] of _RULES) {
    // exec, not match (the same for these patterns, none global): a first request would be match's first call.
    const match = pattern.exec(query);
    if (!match) continue;
    const window = resolve(match, now);
    if (!window) continue;
    const words = keep ? query : `${query.slice(0, match.index)} ${query.slice(match.index! + match[0].length)}`.replace(/\s+/g, " ").trim();
    return { words, window, asksWhen };
  }
  return { words: query, asksWhen };
}

function _count(word: string): number {
  const lower = word.toLowerCase();
  if (lower === "a" || lower === "an") return 1;
  const at = _NUMBERS.indexOf(lower);
  return at >= 0 ? at + 1 : Number(word);
}

function _startOfDay(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

function _days(start: number, count: number): TimeWindow {
  return { from: new Date(start).toISOString(), to: new Date(start + count * _DAY).toISOString() };
}

function _trailing(days: number, now: Date): TimeWindow {
  return _days(_startOfDay(now) - (days - 1) * _DAY, days);
}

function _startOfWeek(now: Date): number {
  const day = _startOfDay(now);
  return day - ((new Date(day).getUTCDay() + 6) % 7) * _DAY;
}

function _ago(n: number, unit: string, now: Date): TimeWindow {
  if (unit === "day") return _days(_startOfDay(now) - n * _DAY, 1);
  if (unit === "week") return _days(_startOfWeek(now) - n * 7 * _DAY, 7);
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1));
  return _monthWindow(month.getUTCFullYear(), month.getUTCMonth());
}

function _named(which: string, unit: string, now: Date): TimeWindow {
  const back = which === "this" ? 0 : 1;
  if (which === "past") return _trailing(unit === "week" ? 7 : unit === "month" ? 31 : 365, now);
  if (unit === "week") return _days(_startOfWeek(now) - back * 7 * _DAY, 7);
  if (unit === "month") {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    return _monthWindow(month.getUTCFullYear(), month.getUTCMonth());
  }
  const year = now.getUTCFullYear() - back;
  return { from: `${year}-01-01T00:00:00.000Z`, to: `${year + 1}-01-01T00:00:00.000Z` };
}

/** A month named alone, or `may` and the abbreviations without `in`/a year, are too often other words. */
function _month(prefix: string | undefined, spelled: string, year: string | undefined, now: Date): TimeWindow | undefined {
  const name = spelled.toLowerCase();
  const full = _MONTHS.indexOf(name);
  if ((full < 0 || name === "may" || !/^\p{Lu}/u.test(spelled)) && !prefix && !year) return undefined;
  const month = full >= 0 ? full : _MONTH_ABBR.indexOf(name);
  if (year) return _monthWindow(Number(year), month);
  const thisYear = now.getUTCFullYear();
  return _monthWindow(month <= now.getUTCMonth() ? thisYear : thisYear - 1, month);
}

function _monthWindow(year: number, month: number): TimeWindow {
  return { from: new Date(Date.UTC(year, month, 1)).toISOString(), to: new Date(Date.UTC(year, month + 1, 1)).toISOString() };
}
