import { afterEach, describe, expect, test, vi } from "vitest";
import type { OsworldContext } from "../../../packages/controller/src/datasets/osworld/context.js";
import {
  applyTimeFormat,
  nowInZone,
  parseIsoNow,
  type RelativeTimeRules,
  relativeTimeGetter,
  resolveRelativeTime,
} from "../../../packages/controller/src/datasets/osworld/relativeTime.js";

/** A "now" on a fixed date (the time of day does not matter). */
const on = (iso: string) => {
  const [year, month, day] = iso.split("-").map(Number) as [number, number, number];
  return { year, month, day };
};

/** `expected.time` for a lone relative time on `date`. */
const single = (from: string, date: string, time: unknown = "{Year}-{Month0D}-{Day0D}") =>
  resolveRelativeTime({ relativeTime: { from }, expected: { time } }, on(date)).expected.time;

/** `expected.from`/`to` for a range on `date`. */
function range(from: string, to: string, date: string, format = "{DoW} {Year}-{Month0D}-{Day0D}") {
  const { expected } = resolveRelativeTime({ relativeTime: { from, to }, expected: { from: format, to: format } }, on(date));
  return [expected.from, expected.to];
}

// Dates used: 2024-05-10 is a Friday, 2024-05-12 a Sunday, 2024-05-31 the last day of a month (a Friday).
describe("a lone relative time (expected.time)", () => {
  test("tomorrow rolls over months and years, and reaches Feb 29 in a leap year", () => {
    expect(single("tomorrow", "2024-12-31", "{DoW}, {Month} {Day0D}, {Year}")).toBe("Wed, Jan 01, 2025");
    expect(single("tomorrow", "2024-05-31")).toBe("2024-06-01");
    expect(single("tomorrow", "2024-02-28")).toBe("2024-02-29");
  });

  test("5th and 10th next month, from the last day of a month and from December", () => {
    expect(single("5th next month", "2024-12-31", "{DoW}, {Month} {Day0D}, {Year}")).toBe("Sun, Jan 05, 2025");
    expect(single("5th next month", "2024-05-31")).toBe("2024-06-05");
    expect(single("10th next month", "2024-05-31", "{Year}-{Month0D}-{DayD}")).toBe("2024-06-10");
    expect(single("10th next month", "2024-12-01")).toBe("2025-01-10");
  });

  test("this month is today", () => {
    expect(single("this month", "2024-05-31", "{month}-weather")).toBe("may-weather");
  });

  test("next Monday is next week's Monday, also from a Monday or a Sunday; a list of formats is filled item by item", () => {
    expect(single("next Monday", "2024-05-10")).toBe("2024-05-13");
    expect(single("next Monday", "2024-05-13")).toBe("2024-05-20");
    expect(single("next Monday", "2024-05-12")).toBe("2024-05-13");
    expect(single("next Monday", "2024-12-31", ["{Year}-{Month0D}-{Day0D}", "{DayD}/{MonthD}"])).toEqual(["2025-01-06", "6/1"]);
  });

  test("first monday four / eight months later, across the year, and where the 1st is a Monday", () => {
    expect(single("first monday four months later", "2024-05-10")).toBe("2024-09-02");
    expect(single("first monday four months later", "2024-09-30")).toBe("2025-01-06");
    expect(single("first monday eight months later", "2024-05-10", "{MonthFull} {Day0D}, 10:15 AM")).toBe("January 06, 10:15 AM");
    expect(single("first monday eight months later", "2023-05-20")).toBe("2024-01-01");
    // OSWorld computes month 0 here and raises; December is what the rule means.
    expect(single("first monday four months later", "2024-08-15")).toBe("2024-12-02");
    expect(single("first monday eight months later", "2024-04-15")).toBe("2024-12-02");
  });

  test("other keys of the rules are kept, and the input is not changed", () => {
    const rules: RelativeTimeRules = { relativeTime: { from: "tomorrow" }, expected: { time: ["{Year}"], fromStation: ["BOM"] }, expect_in_result: true };
    const out = resolveRelativeTime(rules, on("2024-12-31"));
    expect(out).toEqual({ relativeTime: { from: "tomorrow" }, expected: { time: ["2025"], fromStation: ["BOM"] }, expect_in_result: true });
    expect(rules.expected.time).toEqual(["{Year}"]);
  });
});

describe("a range (expected.from and expected.to)", () => {
  test("this Saturday to this Sunday: this week's weekend (on a Sunday, Saturday is yesterday, as in OSWorld)", () => {
    expect(range("this Saturday", "this Sunday", "2024-05-10")).toEqual(["Sat 2024-05-11", "Sun 2024-05-12"]);
    expect(range("this Saturday", "this Sunday", "2024-05-12")).toEqual(["Sat 2024-05-11", "Sun 2024-05-12"]);
  });

  test("10th to 11th next month, from December", () => {
    expect(range("10th next month", "11th next month", "2024-12-15", "{DoW}, {Month} {Day0D}, 12:00 PM")).toEqual([
      "Fri, Jan 10, 12:00 PM",
      "Sat, Jan 11, 12:00 PM",
    ]);
  });

  test("next Friday to next Sunday: this weekend before Friday, the next one from Friday on", () => {
    expect(range("next Friday", "next Sunday", "2024-05-08")).toEqual(["Fri 2024-05-10", "Sun 2024-05-12"]);
    expect(range("next Friday", "next Sunday", "2024-05-10")).toEqual(["Fri 2024-05-17", "Sun 2024-05-19"]);
    expect(range("next Friday", "next Sunday", "2024-05-12")).toEqual(["Fri 2024-05-17", "Sun 2024-05-19"]);
  });

  test("next Saturday to next Sunday", () => {
    expect(range("next Saturday", "next Sunday", "2024-05-10")).toEqual(["Sat 2024-05-11", "Sun 2024-05-12"]);
    expect(range("next Saturday", "next Sunday", "2024-05-11")).toEqual(["Sat 2024-05-18", "Sun 2024-05-19"]);
    expect(range("next Saturday", "next Sunday", "2024-05-12")).toEqual(["Sat 2024-05-18", "Sun 2024-05-19"]);
  });

  test("next week Friday / Saturday / Sunday are days of next week (a Sunday's next week starts the day after)", () => {
    expect(range("next week Friday", "next week Sunday", "2024-05-10")).toEqual(["Fri 2024-05-17", "Sun 2024-05-19"]);
    expect(range("next week Saturday", "next week Sunday", "2024-05-12")).toEqual(["Sat 2024-05-18", "Sun 2024-05-19"]);
    expect(range("next week Sunday", "next week Sunday", "2024-05-31")).toEqual(["Sun 2024-06-09", "Sun 2024-06-09"]);
  });

  test("next Monday to next Friday is one working week; a standalone next Friday / next Sunday counts from today", () => {
    expect(range("next Monday", "next Friday", "2024-05-31")).toEqual(["Mon 2024-06-03", "Fri 2024-06-07"]);
    expect(range("tomorrow", "next Friday", "2024-05-09")).toEqual(["Fri 2024-05-10", "Fri 2024-05-10"]);
    expect(range("tomorrow", "next Friday", "2024-05-10")).toEqual(["Sat 2024-05-11", "Fri 2024-05-17"]);
    expect(range("tomorrow", "next Sunday", "2024-05-12")).toEqual(["Mon 2024-05-13", "Sun 2024-05-19"]);
    expect(range("next Monday", "next week Sunday", "2024-05-10")).toEqual(["Mon 2024-05-13", "Sun 2024-05-19"]);
    expect(range("tomorrow", "tomorrow", "2024-12-31")).toEqual(["Wed 2025-01-01", "Wed 2025-01-01"]);
  });

  test("next Monday split / next Friday split fill puDay, puMonth, puYear and doDay, doMonth, doYear", () => {
    const expected = { puDay: "{DayD}", puMonth: "{MonthD}", puYear: "{Year}", doDay: "{DayD}", doMonth: "{MonthD}", doYear: "{Year}", city: "Zürich" };
    const out = resolveRelativeTime(
      { relativeTime: { from: "next Monday split", to: "next Friday split" }, timezone: "Europe/Zurich", expected },
      on("2024-12-27"),
    );
    expect(out.expected).toEqual({ puDay: "30", puMonth: "12", puYear: "2024", doDay: "3", doMonth: "1", doYear: "2025", city: "Zürich" });
  });
});

describe("formats", () => {
  test("every placeholder, with and without padding", () => {
    const all = "{DoW}|{Month}|{DayD}|{Year}|{Month0D}|{month}|{MonthFull}|{Day0D}|{MonthD}";
    expect(applyTimeFormat(all, new Date(Date.UTC(2024, 2, 5)))).toBe("Tue|Mar|5|2024|03|march|March|05|3");
    expect(applyTimeFormat(all, new Date(Date.UTC(2024, 10, 23)))).toBe("Sat|Nov|23|2024|11|november|November|23|11");
    expect(applyTimeFormat("Check In{DoW} $& costs $1", new Date(Date.UTC(2024, 10, 23)))).toBe("Check InSat $& costs $1");
  });

  test("a placeholder OSWorld does not fill is an error naming it, as is a second use of one", () => {
    expect(() => single("tomorrow", "2024-05-10", "{Weekday}, {Day0D}")).toThrow(/\{Weekday\} is not filled/);
    expect(() => single("tomorrow", "2024-05-10", "{Year}/{Year}")).toThrow(/format "\{Year\}\/\{Year\}": \{Year\} is not filled/);
  });
});

describe("what OSWorld cannot compute", () => {
  test("an unknown relative time is an error naming it", () => {
    expect(() => single("next Tuesday", "2024-05-10")).toThrow(/unknown relative time "next Tuesday"/);
    expect(() => range("next Monday", "in two weeks", "2024-05-10")).toThrow(/unknown relative time "in two weeks"/);
  });

  test("a relative time used where OSWorld does not compute it, or a missing expected key, is an error", () => {
    expect(() => single("this Saturday", "2024-05-10")).toThrow(/does not compute "this Saturday" as a lone "from" \(only as a from\)/);
    expect(() => range("next Sunday", "next Sunday", "2024-05-10")).toThrow(/"next Sunday" as the "from" of a range/);
    expect(() => range("tomorrow", "10th next month", "2024-05-10")).toThrow(/"10th next month" as the "to" of a range \(only alone, as a from\)/);
    expect(() => resolveRelativeTime({ relativeTime: { from: "tomorrow" }, expected: { date: "{Year}" } }, on("2024-05-10"))).toThrow(
      /rules.expected.time must be a format string/,
    );
  });
});

describe("now", () => {
  test("the machine's `date --iso-8601=seconds` is read as its local wall clock", () => {
    expect(parseIsoNow("2024-05-10T23:59:59+02:00\n")).toEqual({ year: 2024, month: 5, day: 10, hour: 23, minute: 59, second: 59, offsetMinutes: 120 });
    expect(parseIsoNow("2024-05-10T01:02:03-0530")).toMatchObject({ day: 10, offsetMinutes: -330 });
    expect(parseIsoNow("2024-05-10T01:02:03Z")).toMatchObject({ hour: 1, offsetMinutes: 0 });
    expect(parseIsoNow("date: unrecognized option")).toBeNull();
  });

  test("a zone's wall clock comes from Intl, across the new year", () => {
    const at = new Date("2024-12-31T23:30:00Z");
    expect(nowInZone("Europe/Zurich", at)).toEqual({ year: 2025, month: 1, day: 1, hour: 0, minute: 30, second: 0, offsetMinutes: 60 });
    expect(nowInZone("America/New_York", at)).toMatchObject({ year: 2024, month: 12, day: 31, hour: 18, offsetMinutes: -300 });
    expect(nowInZone("UTC", at)).toMatchObject({ day: 31, hour: 23, offsetMinutes: 0 });
    expect(() => nowInZone("Mars/Olympus", at)).toThrow(RangeError);
  });
});

describe("the rule_relativeTime getter", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A context whose machine answers `date` with `stdout` (or fails). */
  function ctxWith(stdout: string, exitCode = 0) {
    const run = vi.fn(async () => ({ stdout, stderr: exitCode ? "date: bad option" : "", exitCode }));
    const lines: string[] = [];
    const ctx = { env: { process: { run } }, signal: new AbortController().signal, cacheDir: "", password: "password", log: (l: string) => lines.push(l) };
    return { ctx: ctx as unknown as OsworldContext, run, lines };
  }
  const get = (rules: unknown, ctx: OsworldContext) => relativeTimeGetter.get(relativeTimeGetter.config.parse({ type: "rule_relativeTime", rules }), ctx);

  test("without a timezone, the date is the machine's local date", async () => {
    const { ctx, run } = ctxWith("2024-05-10T23:59:59+02:00\n");
    const rules = { relativeTime: { from: "tomorrow" }, expected: { start: "JFK", time: "{DoW}, {Month} {Day0D}, {Year}" } };
    expect(await get(rules, ctx)).toEqual({ relativeTime: { from: "tomorrow" }, expected: { start: "JFK", time: "Sat, May 11, 2024" } });
    expect(run).toHaveBeenCalledWith(["date", "--iso-8601=seconds"], { signal: ctx.signal });
  });

  test("with a timezone, the controller's clock in that zone (the machine is not asked); an unknown zone is UTC", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2024-12-31T23:30:00Z"));
    const { ctx, run, lines } = ctxWith("2020-01-01T00:00:00+00:00");
    const rules = (timezone: string) => ({ relativeTime: { from: "tomorrow" }, timezone, expected: { time: "{Year}-{Month0D}-{Day0D}" } });
    expect(await get(rules("Europe/Zurich"), ctx)).toMatchObject({ expected: { time: "2025-01-02" } });
    expect(await get(rules("America/New_York"), ctx)).toMatchObject({ expected: { time: "2025-01-01" } });
    expect(run).not.toHaveBeenCalled();
    expect(await get(rules("Mars/Olympus"), ctx)).toMatchObject({ expected: { time: "2025-01-01" } });
    expect(lines.join("\n")).toMatch(/unknown time zone "Mars\/Olympus", using UTC/);
  });

  test("when the machine's date cannot be read, the controller's clock is used (UTC for an empty timezone) and that is logged", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2024-12-31T23:30:00Z"));
    const { ctx, lines } = ctxWith("", 1);
    const out = await get({ relativeTime: { from: "tomorrow" }, timezone: "", expected: { time: "{Year}-{Month0D}-{Day0D}" } }, ctx);
    expect(out).toMatchObject({ expected: { time: "2025-01-01" } });
    expect(lines.join("\n")).toMatch(/cannot read the machine's date \(exit 1[\s\S]*using the controller's clock in UTC/);
    const { ctx: ctx2, lines: lines2 } = ctxWith("not a date");
    await get({ relativeTime: { from: "tomorrow" }, expected: { time: "{Year}" } }, ctx2);
    expect(lines2.join("\n")).toContain(`using the controller's clock in ${Intl.DateTimeFormat().resolvedOptions().timeZone}`);
  });

  test("a rule without relativeTime.from is rejected when the config is read", () => {
    expect(() => relativeTimeGetter.config.parse({ rules: { relativeTime: { to: "next Sunday" }, expected: {} } })).toThrow();
  });
});
