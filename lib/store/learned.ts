/**
 * What an earlier run already learned about this machine and its providers, so later runs do
 * not learn it again before their first request: whether the sandbox runner works here, the
 * context window a provider reported for a model.
 *
 * File: `learned.json` in the state folder (lib/platform/paths.ts), written through
 * lib/state-file/json-file.ts (atomic, locked, 0600):
 *   { "version": 1, "facts": { "<key>": { "basis": "<fingerprint>", "value": <any JSON>, "at": "<ISO time>" } } }
 * A fact holds only while its `basis` (a fingerprint of everything it depends on, built by the
 * caller) is unchanged and it is younger than the caller's `maxAgeMs`. A missing, corrupt or
 * unreadable file is an empty cache: nothing here may stop a run, so reads and writes never throw.
 */
import * as v from "valibot";
import { paths } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";

const _VERSION = 1;
/** Facts kept at most; the oldest go first. */
const _MAX_FACTS = 200;

const _fileSchema = () =>
  v.object({ version: v.literal(_VERSION), facts: v.record(v.string(), v.object({ basis: v.string(), value: v.unknown(), at: v.string() })) });
type LearnedFile = v.InferOutput<ReturnType<typeof _fileSchema>>;
let _file: ReturnType<typeof _fileSchema> | undefined;
// The schema is built at the first read of a file that exists.
const _options = {
  get schema() {
    return (_file ??= _fileSchema());
  },
  version: _VERSION,
};

export interface RecallLearnedOptions<T> {
  /** The fingerprint the fact was kept with must equal this one. */
  basis: string;
  schema: v.GenericSchema<unknown, T>;
  /** Older facts count as unknown. */
  maxAgeMs?: number;
  now?: number;
}

/** The fact kept under `key`, when its basis still holds; undefined otherwise. */
export function recallLearned<T>(key: string, options: RecallLearnedOptions<T>): T | undefined {
  const read = readJson(paths.learned(), _options);
  if (read.status !== "ok") return undefined;
  const fact = read.value.facts[key];
  if (!fact || fact.basis !== options.basis) return undefined;
  if (options.maxAgeMs !== undefined) {
    const age = (options.now ?? Date.now()) - Date.parse(fact.at);
    if (!(age >= 0 && age <= options.maxAgeMs)) return undefined;
  }
  const parsed = v.safeParse(options.schema, fact.value);
  return parsed.success ? parsed.output : undefined;
}

/** Keeps `value` under `key` with its basis. Best effort: a state folder that cannot be written loses the fact, never the run. */
export function keepLearned(key: string, basis: string, value: unknown, now: number = Date.now()): void {
  try {
    updateJsonSync<LearnedFile>(paths.learned(), _options, (current) => {
      const facts = { ...(current?.facts ?? {}), [key]: { basis, value, at: new Date(now).toISOString() } };
      const keys = Object.keys(facts);
      if (keys.length > _MAX_FACTS) {
        keys.sort((a, b) => Date.parse(facts[a]!.at) - Date.parse(facts[b]!.at));
        for (const old of keys.slice(0, keys.length - _MAX_FACTS)) delete facts[old];
      }
      return { version: _VERSION, facts };
    });
  } catch {
    // A cache that cannot be written is a cache miss next time.
  }
}
