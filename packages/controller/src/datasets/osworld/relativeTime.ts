import { InvalidArgumentError } from "@pincer/shared";
import { z } from "zod";
import type { OsworldContext } from "./context.js";
import { defineGetter } from "./getter.js";

/**
 * A wall-clock moment where the task is judged: the local date and time, and the offset from UTC
 * (minutes east). Only the date decides what `rule_relativeTime` gives.
 */
export interface LocalNow {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offsetMinutes: number;
}

const formatValue = z.union([z.string(), z.array(z.string())]);

/** The `rules` of a `rule_relativeTime` getter, as tasks write them. */
export const relativeTimeRules = z.looseObject({
  relativeTime: z.looseObject({ from: z.string(), to: z.string().optional() }),
  /** An IANA zone: "now" is then the controller's clock in that zone, instead of the machine's local time. */
  timezone: z.string().nullish(),
  /** What the metric compares against; the time keys (`time`, or `from`/`to`, or `pu*`/`do*` for `split`) are formats. */
  expected: z.record(z.string(), z.unknown()),
});

/** `rule_relativeTime`'s rules. */
export type RelativeTimeRules = z.infer<typeof relativeTimeRules>;

/** A calendar day, as a Date at UTC midnight (only its UTC fields are read). */
type Day = Date;

const DAY_MS = 86_400_000;
const dayOf = (year: number, month: number, day: number): Day => new Date(Date.UTC(year, month - 1, day));
const addDays = (d: Day, n: number): Day => new Date(d.getTime() + n * DAY_MS);
/** Python's `weekday()`: Monday is 0, Sunday 6. */
const weekday = (d: Day): number => (d.getUTCDay() + 6) % 7;

/** The `n`th of next month (December rolls over to January of next year). */
function nthNextMonth(now: Day, n: number): Day {
  const m = now.getUTCMonth() + 1;
  return m === 12 ? dayOf(now.getUTCFullYear() + 1, 1, n) : dayOf(now.getUTCFullYear(), m + 1, n);
}

/**
 * The first Monday (on or after the 1st) of the month `k` months from now. OSWorld computes the month
 * as `(month + k) % 12`, which is 0 (and raises) when it should be December; this gives December.
 */
function firstMondayMonthsLater(now: Day, k: number): Day {
  const m = now.getUTCMonth() + 1 + k;
  const first = m > 12 ? dayOf(now.getUTCFullYear() + 1, m - 12, 1) : dayOf(now.getUTCFullYear(), m, 1);
  return addDays(first, (7 - weekday(first)) % 7);
}

/** `next Monday`: Monday of next week (a Monday gives the one 7 days on). */
const nextMonday = (now: Day): Day => addDays(now, 7 - weekday(now));
/** `next week <day>`: next week's Monday plus `k` days. */
const nextWeek = (now: Day, k: number): Day => addDays(now, 7 - weekday(now) + k);
/** Sunday of the week of `d`. */
const sundayOf = (d: Day): Day => addDays(d, 6 - weekday(d));

/** OSWorld's `relativeTime_to_IntDay`: relative times that are a number of days. The others are "special". */
const INT_DAYS: Record<string, number> = { tomorrow: 1 };

/** The special relative times OSWorld computes when the rule has only `from`. */
const SINGLE: Record<string, (now: Day) => Day> = {
  "5th next month": (now) => nthNextMonth(now, 5),
  "10th next month": (now) => nthNextMonth(now, 10),
  "this month": (now) => now,
  "next Monday": nextMonday,
  "first monday four months later": (now) => firstMondayMonthsLater(now, 4),
  "first monday eight months later": (now) => firstMondayMonthsLater(now, 8),
};

/** The special relative times OSWorld computes as the `from` of a range. */
const FROM: Record<string, (now: Day) => Day> = {
  // On a Sunday this is yesterday, as in OSWorld.
  "this Saturday": (now) => addDays(now, 5 - weekday(now)),
  "10th next month": (now) => nthNextMonth(now, 10),
  "next Monday": nextMonday,
  "next Monday split": nextMonday,
  // Monday–Thursday: this week's Friday; Friday–Sunday: the next one.
  "next Friday": (now) => addDays(now, weekday(now) < 4 ? 4 - weekday(now) : 11 - weekday(now)),
  // Monday–Friday: this week's Saturday; Saturday–Sunday: the next one.
  "next Saturday": (now) => addDays(now, weekday(now) < 5 ? 5 - weekday(now) : weekday(now) === 5 ? 7 : 6),
  "next week Friday": (now) => nextWeek(now, 4),
  "next week Saturday": (now) => nextWeek(now, 5),
  "next week Sunday": (now) => nextWeek(now, 6),
};

/** The special relative times OSWorld computes as the `to` of a range, given the `from` (its name and day). */
const TO: Record<string, (now: Day, fromName: string, from: Day) => Day> = {
  "this Sunday": (now) => addDays(now, 6 - weekday(now)),
  "11th next month": (now) => nthNextMonth(now, 11),
  "next Friday": nextFridayTo,
  "next Friday split": nextFridayTo,
  "next Sunday": (now, fromName, from) =>
    fromName === "next Friday" || fromName === "next Saturday" ? sundayOf(from) : addDays(now, weekday(now) < 6 ? 6 - weekday(now) : 7),
  "next week Sunday": (now, fromName, from) => (fromName === "next week Friday" || fromName === "next week Saturday" ? sundayOf(from) : nextWeek(now, 6)),
};

/** `next Friday` as a `to`: 4 days after a `next Monday` from, else the coming Friday (a Friday gives the next one). */
function nextFridayTo(now: Day, fromName: string, from: Day): Day {
  if (fromName === "next Monday" || fromName === "next Monday split") return addDays(from, 4);
  return addDays(now, weekday(now) < 4 ? 4 - weekday(now) : 11 - weekday(now));
}

/** Every relative time OSWorld knows (`relativeTime_to_IntDay`'s keys). */
const KNOWN = [...new Set([...Object.keys(INT_DAYS), ...Object.keys(SINGLE), ...Object.keys(FROM), ...Object.keys(TO)])];

/** Where a relative time is used: alone, or as a range's `from` or `to`. */
type Position = "single" | "from" | "to";

/** Which positions OSWorld computes `name` in (for error messages). */
function positionsOf(name: string): Position[] {
  if (name in INT_DAYS) return ["single", "from", "to"];
  return (
    [
      ["single", SINGLE],
      ["from", FROM],
      ["to", TO],
    ] as const
  )
    .filter(([, table]) => name in table)
    .map(([p]) => p);
}

/** The day `name` stands for in `position`; a name OSWorld does not compute there is an error naming it. */
function dayFor(name: string, position: Position, now: Day, from?: { name: string; day: Day }): Day {
  if (Object.hasOwn(INT_DAYS, name)) return addDays(now, INT_DAYS[name]!);
  const where = { single: 'as a lone "from"', from: 'as the "from" of a range', to: 'as the "to" of a range' }[position];
  if (!KNOWN.includes(name)) {
    throw new InvalidArgumentError(
      `rule_relativeTime: unknown relative time ${JSON.stringify(name)} (known: ${KNOWN.map((k) => JSON.stringify(k)).join(", ")})`,
    );
  }
  if (position === "single" && Object.hasOwn(SINGLE, name)) return SINGLE[name]!(now);
  if (position === "from" && Object.hasOwn(FROM, name)) return FROM[name]!(now);
  if (position === "to" && Object.hasOwn(TO, name) && from) return TO[name]!(now, from.name, from.day);
  const ok = positionsOf(name).map((p) => ({ single: "alone", from: "as a from", to: "as a to" })[p]);
  throw new InvalidArgumentError(`rule_relativeTime: OSWorld does not compute ${JSON.stringify(name)} ${where} (only ${ok.join(", ")})`);
}

const DOW = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const MONTHS_FULL = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * OSWorld's `apply_rules_to_timeFormat`: fills the first `{DoW}` (Mon), `{Month}` (Jan), `{DayD}` (5),
 * `{Year}`, `{Month0D}` (01), `{month}` (january), `{MonthFull}` (January), `{Day0D}` (05) and `{MonthD}` (1).
 * A `{Name}` left after that (an unknown placeholder, or a second use of one, which OSWorld leaves as
 * written so the comparison can never match) is an error naming it.
 */
export function applyTimeFormat(format: string, day: Day): string {
  const m = day.getUTCMonth();
  const d = day.getUTCDate();
  const fills: Array<[string, string]> = [
    ["{DoW}", DOW[weekday(day)]!],
    ["{Month}", MONTHS_FULL[m]!.slice(0, 3)],
    ["{DayD}", String(d)],
    ["{Year}", String(day.getUTCFullYear())],
    ["{Month0D}", pad2(m + 1)],
    ["{month}", MONTHS_FULL[m]!.toLowerCase()],
    ["{MonthFull}", MONTHS_FULL[m]!],
    ["{Day0D}", pad2(d)],
    ["{MonthD}", String(m + 1)],
  ];
  let out = format;
  // A replacer function, so that `$` in a value is never read as a pattern; a string pattern replaces the first match only.
  for (const [key, value] of fills) out = out.replace(key, () => value);
  const left = /\{[A-Za-z][A-Za-z0-9]*\}/.exec(out);
  if (left) {
    throw new InvalidArgumentError(
      `rule_relativeTime: format ${JSON.stringify(format)}: ${left[0]} is not filled (placeholders: ${fills.map(([k]) => k).join(" ")}, each filled once)`,
    );
  }
  return out;
}

/** Fills `expected[key]` (a format, or a list of formats) for `day`; a missing key is an error. */
function fill(expected: Record<string, unknown>, key: string, day: Day): void {
  const parsed = formatValue.safeParse(expected[key]);
  if (!parsed.success) throw new InvalidArgumentError(`rule_relativeTime: rules.expected.${key} must be a format string (or a list of them)`);
  const v = parsed.data;
  expected[key] = typeof v === "string" ? applyTimeFormat(v, day) : v.map((f) => applyTimeFormat(f, day));
}

/**
 * OSWorld's `get_rule_relativeTime`, on a fixed "now": the rules with their expected time formats
 * filled for the day the relative time stands for. With `relativeTime.from` only, `expected.time` is
 * filled; with `from` and `to`, `expected.from` and `expected.to` (or, for `next Monday split` /
 * `next Friday split`, `expected.puDay`/`puMonth`/`puYear` and `doDay`/`doMonth`/`doYear`).
 * The input is not changed.
 */
export function resolveRelativeTime(rules: RelativeTimeRules, now: Pick<LocalNow, "year" | "month" | "day">): RelativeTimeRules {
  const out = structuredClone(rules);
  const today = dayOf(now.year, now.month, now.day);
  const { from, to } = rules.relativeTime;
  if (to === undefined) {
    fill(out.expected, "time", dayFor(from, "single", today));
    return out;
  }
  const fromDay = dayFor(from, "from", today);
  for (const key of from === "next Monday split" ? ["puDay", "puMonth", "puYear"] : ["from"]) fill(out.expected, key, fromDay);
  const toDay = dayFor(to, "to", today, { name: from, day: fromDay });
  for (const key of to === "next Friday split" ? ["doDay", "doMonth", "doYear"] : ["to"]) fill(out.expected, key, toDay);
  return out;
}

/** Reads `date --iso-8601=seconds` output (`2024-05-10T14:03:02+02:00`); null when it is not that. */
export function parseIsoNow(text: string): LocalNow | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:(Z)|([+-])(\d{2}):?(\d{2}))$/.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetMinutes = m[7] ? 0 : (m[8] === "-" ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return { year, month, day, hour, minute, second, offsetMinutes };
}

/** The wall clock in IANA zone `timeZone` at `at` (throws a RangeError for an unknown zone). */
export function nowInZone(timeZone: string, at: Date = new Date()): LocalNow {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    timeZoneName: "longOffset",
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const off = /^GMT([+-])(\d{2}):(\d{2})$/.exec(get("timeZoneName"));
  const offsetMinutes = off ? (off[1] === "-" ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) : 0;
  const n = (type: string) => Number(get(type));
  return { year: n("year"), month: n("month"), day: n("day"), hour: n("hour"), minute: n("minute"), second: n("second"), offsetMinutes };
}

/** `nowInZone`, or UTC (logged) when OSWorld's pytz would not know the zone. */
function zonedOrUtc(zone: string, ctx: OsworldContext): LocalNow {
  try {
    return nowInZone(zone);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    ctx.log(`rule_relativeTime: unknown time zone ${JSON.stringify(zone)}, using UTC`);
    return nowInZone("UTC");
  }
}

/**
 * "Now" as OSWorld takes it: with `rules.timezone`, the controller's clock in that zone; else the
 * machine's local time (`date`); if that fails, a `timezone` key that is present but empty gives UTC
 * (as pytz does), and an absent one the controller's own zone (OSWorld looks the grader's zone up
 * by its IP address).
 */
async function nowFor(rules: RelativeTimeRules, ctx: OsworldContext): Promise<LocalNow> {
  if (rules.timezone) return zonedOrUtc(rules.timezone, ctx);
  try {
    const r = await ctx.env.process.run(["date", "--iso-8601=seconds"], { signal: ctx.signal });
    const now = r.exitCode === 0 ? parseIsoNow(r.stdout) : null;
    if (now) return now;
    ctx.log(`rule_relativeTime: cannot read the machine's date (exit ${r.exitCode}: ${JSON.stringify((r.stdout + r.stderr).trim().slice(0, 200))})`);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log(`rule_relativeTime: cannot read the machine's date: ${(err as Error).message}`);
  }
  const zone = "timezone" in rules ? "UTC" : Intl.DateTimeFormat().resolvedOptions().timeZone;
  ctx.log(`rule_relativeTime: using the controller's clock in ${zone}`);
  return zonedOrUtc(zone, ctx);
}

/** OSWorld's `rule_relativeTime` getter: the task's `rules` with their expected dates filled for "now". */
export const relativeTimeGetter = defineGetter({
  name: "rule_relativeTime",
  config: z.looseObject({ rules: relativeTimeRules }),
  get: async (c, ctx) => resolveRelativeTime(c.rules, await nowFor(c.rules, ctx)),
});
