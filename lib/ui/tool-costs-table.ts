/** `shiro tools` as text: one row per built-in tool, one per set, and the bytes offered per request. */
import type { ToolCosts } from "../tools/index.ts";

export function renderToolCosts(costs: ToolCosts): string {
  const toolRows = costs.tools.map((t) => [t.name, t.set ?? "-", t.offered ? "offered" : "withheld", String(t.bytes)]);
  const setRows = costs.sets.map((s) => [s.set, String(s.tools), s.active ? "on" : "off", String(s.bytes)]);
  const offeredCount = costs.tools.filter((t) => t.offered).length;
  return [
    ..._table(["tool", "set", "this session", "bytes"], toolRows),
    "",
    ..._table(["set", "tools", "this session", "bytes"], setRows),
    "",
    `${offeredCount} of ${costs.tools.length} tools offered: ${costs.offeredBytes} bytes of schema in all`,
    costs.request.deferred.length > 0
      ? `a request sends ${costs.request.bytes} bytes of them: ${costs.request.full.filter((name) => name !== "load_tools").length} in full, ${costs.request.deferred.length} deferred behind load_tools`
      : `a request sends ${costs.request.bytes} bytes of them, every schema in full`,
    "",
  ].join("\n");
}

/** Left-aligned columns, the last one right-aligned (numbers). */
function _table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}
