/**
 * `--since` values: a duration back from now (`30m`, `12h`, `7d`, `2w`) or a date or time
 * (`2026-11-01`, `2026-11-01T09:00`). Anything else is a UsageError naming both forms.
 */
import { UsageError } from "../platform/errors.ts";

const _UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

export function parseSince(text: string, now: Date = new Date()): Date {
  const value = text.trim().toLowerCase();
  const duration = /^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$/.exec(value);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * _UNITS[duration[2]!.charAt(0)]!);
  if (/^\d{4}-\d{2}-\d{2}(?:[t ][\d:.]+z?)?$/.test(value)) {
    const date = new Date(value.length === 10 ? `${value}T00:00` : value.replace(" ", "T").toUpperCase());
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new UsageError(`--since takes a duration back from now (30m, 12h, 7d, 2w) or a date (2026-11-01); got "${text}"`);
}
