/** The time plugin: a `current_time` tool, auto-approved, so the model need not guess the date. */
import * as v from "valibot";
import type { Plugin } from "../lib/extension-api/plugin-api.ts";
import type { ToolDefinition } from "../lib/tools/types.ts";

/** `<ISO 8601 in UTC> (local: <the local date string, zone included>)`. */
export function describeTime(now: Date): string {
  return `${now.toISOString()} (local: ${now.toString()})`;
}

export const currentTimeTool: ToolDefinition<Record<string, never>> = {
  name: "current_time",
  description: "Returns the current date and time: ISO 8601 in UTC, then the user's local time with its time zone.",
  schema: v.object({}) as v.GenericSchema<unknown, Record<string, never>>,
  effect: "read",
  decision: "allow",
  guidance: "the current date and time",
  async execute() {
    return describeTime(new Date());
  },
};

export function createTimePlugin(): Plugin {
  return {
    name: "time",
    description: "adds the current_time tool",
    tools: [currentTimeTool],
    autoApprove: [currentTimeTool.name],
  };
}
