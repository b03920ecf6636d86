/**
 * The generated history of `bun run bench:memory`: several hundred sessions of one project, each
 * as the binary records it (a session file, and an episode when a tool ran), and the questions
 * asked of it, each with the one session that answers it.
 *
 * - Pasted conversations: one prompt holding 40-70 turns of named speakers on one topic; a fact is
 *   stated once, in a turn past the first twenty. Distractor conversations reuse the speakers, the
 *   topic and the fact's entity in other sentences.
 * - Coding sessions: a request, a file read, a command whose output may carry an error, an edit and
 *   an answer. Distractors share folders, command prefixes and error codes.
 * - Rollout talks: the same project discussed in several weeks; "when" questions name the week or
 *   month ("last week", "in <month>"), resolved against the time the benchmark runs.
 * - Earlier recall sessions: a user asking to look something up, a `recall` call and its result
 *   (marked `bookkeeping`, as the binary marks it) quoting the words of a later question.
 * Questions are paraphrases: other inflections, synonyms, other word order; classes are `fact`,
 * `file`, `command`, `error`, `when`. A fixed seed makes the same history every run (dates move
 * with the clock, so relative questions stay relative).
 */
import type { Message } from "../../lib/messages.ts";

export interface BenchSession {
  id: string;
  at: Date;
  messages: Message[];
  /** What the binary's event log would hold for the episode: tool calls and results, the answer. */
  tools: { name: string; input: Record<string, unknown>; output: string; bookkeeping?: boolean }[];
  answer: string;
}

export interface BenchQuestion {
  cls: "fact" | "file" | "command" | "error" | "when";
  question: string;
  answer: string;
}

const SPEAKERS = ["Alice", "Bob", "Carmen", "Dev", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lena"];
const TOPICS: Record<string, string[]> = {
  travel: "trip flight hotel booking ferry island train luggage passport beach museum tickets itinerary airport visa rental".split(" "),
  cooking: "recipe dinner oven garlic pasta sauce spices bakery dough soup grill kitchen dessert salad noodles".split(" "),
  fitness: "running marathon gym training knee stretching coach swimming cycling weights routine injury pace race".split(" "),
  money: "budget savings rent mortgage invoice taxes salary loan account expenses insurance pension bank transfer".split(" "),
  home: "roof plumber leak boiler garden paint renovation kitchen tiles window heating contractor landlord floor".split(" "),
  pets: "dog puppy cat vet walk leash food shelter kitten training collar grooming vaccine parrot hamster".split(" "),
  music: "guitar concert band piano lessons album rehearsal drums singer tickets festival chords song tour".split(" "),
  work: "meeting deadline manager project review promotion team offsite report interview hiring budget roadmap".split(" "),
};
const COMMON =
  "really think maybe probably actually pretty great nice sure week weekend yesterday tomorrow morning evening plan idea little bit lot kind thing time".split(
    " ",
  );
const PLACES = ["Lisbon", "Porto", "Kyoto", "Oslo", "Naxos", "Crete", "Bergen", "Sevilla", "Tallinn", "Gdansk"];
const PETS = ["Biscuit", "Pepper", "Mochi", "Ziggy", "Luna", "Tofu", "Waffles", "Nori"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** One fact: the sentence said deep inside, the question that asks for it (a paraphrase), and a distractor sentence sharing its words. */
const FACTS: ((r: _Rand) => { topic: string; said: string; ask: string; distract: string })[] = [
  (r) => {
    const [a, p, n] = [r.pick(SPEAKERS), r.pick(PLACES), r.int(2, 28)];
    return {
      topic: "travel",
      said: `${a}: I finally booked the ferry to ${p}, it leaves on the ${n}th and the cabin number is ${r.int(100, 999)}.`,
      ask: `Which cabin did ${a} get on the boat booking to ${p}?`,
      distract: `${a}: the ferry schedules to ${p} keep changing, I have not booked anything yet.`,
    };
  },
  (r) => {
    const [a, pet] = [r.pick(SPEAKERS), r.pick(PETS)];
    const vet = r.pick(["Dr. Okafor", "Dr. Lindqvist", "Dr. Haddad", "Dr. Moreau"]);
    return {
      topic: "pets",
      said: `${a}: ${pet} has an allergy to chicken, ${vet} told us to switch to a salmon diet.`,
      ask: `what is ${a}'s pet ${pet} allergic to according to the veterinarian?`,
      distract: `${a}: ${pet} loved the chicken treats from the shelter, then we went for a long walk.`,
    };
  },
  (r) => {
    const [a, km] = [r.pick(SPEAKERS), r.int(12, 42)];
    return {
      topic: "fitness",
      said: `${a}: my knee started hurting after the ${km} km run, the physio said I should rest for ${r.int(2, 6)} weeks.`,
      ask: `How long was ${a} told to stop running after the ${km} km run hurt the knee?`,
      distract: `${a}: my knee feels fine now, I ran ${km} km on Sunday with the club.`,
    };
  },
  (r) => {
    const [a, amount] = [r.pick(SPEAKERS), r.int(2, 9) * 100];
    const bank = r.pick(["Northbank", "Credimax", "Sparfuchs", "Bluewater"]);
    return {
      topic: "money",
      said: `${a}: we moved the savings to ${bank} because they pay ${r.int(2, 5)}.${r.int(1, 9)} percent, and we put ${amount} euros in every month.`,
      ask: `how much does ${a} deposit monthly into the ${bank} savings account?`,
      distract: `${a}: ${bank} called about the savings account again, I ignored it.`,
    };
  },
  (r) => {
    const [a, color, room] = [
      r.pick(SPEAKERS),
      r.pick(["sage green", "terracotta", "navy blue", "warm grey", "ochre"]),
      r.pick(["hallway", "bedroom", "attic", "study"]),
    ];
    return {
      topic: "home",
      said: `${a}: we decided to paint the ${room} ${color}, the contractor starts on a ${r.pick(["Monday", "Tuesday", "Thursday"])}.`,
      ask: `What colour did ${a} choose for painting the ${room}?`,
      distract: `${a}: the ${room} needs paint but the contractor is busy until spring.`,
    };
  },
  (r) => {
    const venue = r.pick(["Paradiso", "Roundhouse", "Olympia", "Fillmore", "Melkweg"]);
    const [a, song] = [r.pick(SPEAKERS), r.pick(["Blue Harbour", "Night Train", "Paper Moon", "Salt and Iron", "Glasshouse", "Copper Sky", "Low Tide"])];
    return {
      topic: "music",
      said: `${a}: the band will open the ${venue} concert with "${song}", and I play the piano part in ${r.pick(["D minor", "E flat", "G major"])}.`,
      ask: `which song is ${a}'s band opening the ${venue} show with?`,
      distract: `${a}: we rehearsed "${song}" twice but the ${venue} setlist is not decided.`,
    };
  },
  (r) => {
    const [a, b] = [r.pick(SPEAKERS), r.pick(SPEAKERS)];
    const code = r.pick([
      "Falcon",
      "Juniper",
      "Quasar",
      "Marigold",
      "Tundra",
      "Osprey",
      "Cinder",
      "Halcyon",
      "Nimbus",
      "Sorrel",
      "Vireo",
      "Basalt",
      "Larch",
      "Meridian",
      "Pylon",
      "Rook",
      "Zephyr",
    ]);
    return {
      topic: "work",
      said: `${a}: ${b} will lead project ${code} after the offsite, the first deadline is in ${r.pick(MONTHS)}.`,
      ask: `who is going to be leading the ${code} project?`,
      distract: `${a}: project ${code} came up in the meeting but nobody wanted to lead it.`,
    };
  },
  (r) => {
    const [a, dish] = [r.pick(SPEAKERS), r.pick(["saffron risotto", "lamb tagine", "miso ramen", "mushroom lasagna"])];
    return {
      topic: "cooking",
      said: `${a}: the secret in my ${dish} is a spoon of ${r.pick(["anchovy paste", "brown butter", "smoked paprika", "fish sauce"])} at the end.`,
      ask: `what secret ingredient does ${a} add to the ${dish}?`,
      distract: `${a}: I cooked ${dish} for the dinner party, everyone liked it.`,
    };
  },
];

const COMPONENTS = ["billing", "auth", "search", "upload", "queue", "reports", "checkout", "profile"];
const FILES = ["exporter", "session", "indexer", "worker", "validator", "router", "scheduler", "mapper"];
const ERRORS = [
  (r: _Rand) => `Error: connect ECONNREFUSED 10.0.${r.int(0, 9)}.${r.int(2, 30)}:${r.pick(["5432", "6379", "9200", "5672", "27017"])}`,
  (r: _Rand) =>
    `TypeError: Cannot read properties of undefined (reading '${r.pick(["userId", "total", "items", "token", "rows", "cursor", "locale", "draft"])}') in ${r.pick(FILES)}.ts:${r.int(10, 99)}`,
  (r: _Rand) => `FATAL: password authentication failed for user "${r.pick(["app", "report_ro", "billing_rw", "admin", "etl", "grafana"])}_${r.int(1, 9)}"`,
  (r: _Rand) =>
    `RangeError: Maximum call stack size exceeded at ${r.pick(["walkTree", "mergeDeep", "resolveRefs", "flatten", "cloneNode", "visit"])}:${r.int(10, 400)}`,
];

class _Rand {
  private state: number;
  constructor(seed: number) {
    this.state = seed;
  }
  /** mulberry32: 32-bit integer steps, so no precision is lost. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
}

const _DAY = 86_400_000;

/** The history and its questions; `now` anchors the dates (sessions fall in the 150 days before it). */
export function generateHistory(now: Date, seed = 7): { sessions: BenchSession[]; questions: BenchQuestion[] } {
  const r = new _Rand(seed);
  const sessions: BenchSession[] = [];
  const questions: BenchQuestion[] = [];
  let counter = 0;
  const newId = (at: Date) => {
    counter += 1;
    const ms = at.getTime().toString(16).padStart(12, "0");
    return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${counter.toString(16).padStart(3, "0")}-8000-${counter.toString(16).padStart(12, "0")}`;
  };
  const when = (daysAgo: number) => new Date(now.getTime() - daysAgo * _DAY - r.int(0, 36_000) * 1000);
  const turn = (topic: string) => {
    const words = TOPICS[topic]!;
    const n = r.int(10, 24);
    const out = Array.from({ length: n }, () => (r.next() < 0.45 ? r.pick(words) : r.pick(COMMON)));
    return `${r.pick(SPEAKERS)}: ${out.join(" ")}.`;
  };
  const conversation = (topic: string, turns: number, inserts: { at: number; text: string }[]) => {
    const lines = Array.from({ length: turns }, () => turn(topic));
    for (const insert of inserts) lines.splice(insert.at, 0, insert.text);
    return lines.join("\n\n");
  };
  const pasted = (at: Date, topic: string, body: string): BenchSession => {
    const prompt = `Here is a chat I had about ${topic}, keep it in mind for later:\n\n${body}`;
    const answer = `Noted: a conversation about ${topic} with ${r.pick(SPEAKERS)} and others.`;
    return {
      id: newId(at),
      at,
      messages: [
        { role: "user", content: prompt },
        { role: "assistant", parts: [{ type: "text", text: answer }] },
      ],
      tools: [],
      answer,
    };
  };

  // Facts: 8 templates × 16, each with two distractor conversations.
  const asked = new Set<string>();
  const unique = <T>(make: () => T, key: (value: T) => string): T => {
    for (let tries = 0; ; tries++) {
      const value = make();
      if (tries > 1000) throw new Error(`bench corpus: no unique value after 1000 tries (${key(value)})`);
      if (!asked.has(key(value))) {
        asked.add(key(value));
        return value;
      }
    }
  };
  for (let i = 0; i < 128; i++) {
    const fact = unique(
      () => FACTS[i % FACTS.length]!(r),
      (made) => made.ask,
    );
    const turns = r.int(40, 70);
    const at = when(r.int(1, 150));
    const session = pasted(at, fact.topic, conversation(fact.topic, turns, [{ at: r.int(22, turns - 2), text: fact.said }]));
    sessions.push(session);
    questions.push({ cls: i % 4 === 3 ? "when" : "fact", question: i % 4 === 3 ? `when did we talk about this: ${fact.ask}` : fact.ask, answer: session.id });
    for (let d = 0; d < 2; d++) {
      const short = r.next() < 0.5;
      const dTurns = short ? r.int(4, 10) : r.int(40, 70);
      sessions.push(pasted(when(r.int(1, 150)), fact.topic, conversation(fact.topic, dTurns, [{ at: r.int(0, dTurns), text: fact.distract }])));
    }
  }

  // Coding sessions: 96, with questions by file, command and error text.
  for (let i = 0; i < 96; i++) {
    const component = COMPONENTS[i % COMPONENTS.length]!;
    const file = unique(
      () => `src/${component}/${r.pick(FILES)}${r.pick(["", "Core", "Utils"])}.ts`,
      (path) => path,
    );
    const read = `src/${component}/${r.pick(FILES)}.ts`;
    const command = unique(
      () => `bun test test/${component}/${r.pick(FILES)}${r.pick(["", "-unit", "-db"])}.test.ts --timeout ${r.int(2, 9) * 1000}`,
      (text) => text.split(" --")[0]!,
    );
    const error = unique(
      () => ERRORS[i % ERRORS.length]!(r),
      (text) => text,
    );
    const at = when(r.int(1, 150));
    const ask = `the ${component} ${r.pick(["page", "job", "endpoint", "export"])} is ${r.pick(["broken", "slow", "failing", "flaky"])} again, please look`;
    const output = `exit: 1\n${Array.from({ length: r.int(10, 40) }, () => `    at ${r.pick(FILES)} (${read}:${r.int(1, 400)}:${r.int(1, 80)})`).join("\n")}\n${error}\n`;
    const answer = `Fixed it: the ${component} code in ${file} now guards the case; the tests pass.`;
    const tools = [
      { name: "read_file", input: { path: read }, output: `1\timport { ${component} } from "./${component}.ts";\n2\texport function run() {}` },
      { name: "bash", input: { command }, output },
      { name: "edit_file", input: { path: file, old_text: "return rows", new_text: "return rows ?? []" }, output: `Edited ${file}` },
    ];
    const session: BenchSession = { id: newId(at), at, messages: _codingMessages(ask, tools, answer), tools, answer };
    sessions.push(session);
    const cls = (["file", "command", "error"] as const)[i % 3]!;
    const question =
      cls === "file"
        ? `in which session did we modify ${file}?`
        : cls === "command"
          ? `what happened when we ran ${command.split(" --")[0]}`
          : `how did we fix "${error}"`;
    questions.push({ cls, question, answer: session.id });
  }

  // Rollout talks: 12 projects discussed in four different weeks; the question names one by time.
  const projects = ["Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Fjord", "Garnet", "Harbor", "Iris", "Jade", "Kestrel", "Lumen"];
  for (const name of projects) {
    const weeks = [5, 33, 61, 96];
    const ids: string[] = [];
    for (const daysAgo of weeks) {
      const base = new Date(now.getTime() - daysAgo * _DAY);
      const at = new Date(base.getTime() - (base.getUTCDay() === 0 ? 2 : 0) * _DAY);
      const decision = r.pick(["pause it", "ship it to 10 percent", "roll back", "wait for the audit"]);
      const body = conversation("work", r.int(8, 14), [{ at: 3, text: `${r.pick(SPEAKERS)}: for the ${name} rollout we decided to ${decision}.` }]);
      const session = pasted(at, "work", body);
      sessions.push(session);
      ids.push(session.id);
    }
    const lastWeek = sessions.find((s) => s.id === ids[0])!;
    const inMonth = sessions.find((s) => s.id === ids[3])!;
    if (_inLastWeek(lastWeek.at, now))
      questions.push({ cls: "when", question: `what did we decide about the ${name} rollout last week?`, answer: lastWeek.id });
    else questions.push({ cls: "when", question: `what did we decide about the ${name} rollout in the past 7 days?`, answer: lastWeek.id });
    if (!sessions.some((s) => s.id !== inMonth.id && ids.includes(s.id) && s.at.getUTCMonth() === inMonth.at.getUTCMonth()))
      questions.push({ cls: "when", question: `the ${name} rollout decision in ${MONTHS[inMonth.at.getUTCMonth()]}`, answer: inMonth.id });
  }

  // Earlier recall sessions: the recall call and result quote later questions' words.
  for (let i = 0; i < 24; i++) {
    const q = questions[r.int(0, questions.length - 1)]!;
    const at = when(r.int(0, 30));
    const tools = [{ name: "recall", input: { query: q.question }, output: `transcript session ${q.answer.slice(0, 8)}: ${q.question}`, bookkeeping: true }];
    const answer = "I could not find that.";
    sessions.push({ id: newId(at), at, messages: _codingMessages("look that up in your memory", tools, answer), tools, answer });
  }
  sessions.sort((a, b) => a.at.getTime() - b.at.getTime());
  return { sessions, questions };
}

function _codingMessages(ask: string, tools: BenchSession["tools"], answer: string): Message[] {
  return [
    { role: "user", content: ask },
    { role: "assistant", parts: tools.map((tool, i) => ({ type: "tool-call" as const, id: `call_${i}`, name: tool.name, input: tool.input })) },
    {
      role: "tool",
      results: tools.map((tool, i) => ({
        type: "tool-result" as const,
        callId: `call_${i}`,
        name: tool.name,
        output: tool.output,
        ...(tool.bookkeeping ? { bookkeeping: true } : {}),
      })),
    },
    { role: "assistant", parts: [{ type: "text", text: answer }] },
  ];
}

function _inLastWeek(at: Date, now: Date): boolean {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * _DAY;
  return at.getTime() >= monday - 7 * _DAY && at.getTime() < monday;
}
