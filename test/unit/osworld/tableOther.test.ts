import { describe, expect, test } from "vitest";
import { run, sheet, text, workDir, xlsx } from "./tableFixtures.js";

// compare_csv (line by line, against one or several expected files) and
// compare_conference_city_in_order (C2:C22 of the active sheet), on real files.

const dir = workDir();

describe("compare_csv", () => {
  test("matches when the lines equal one of the expected files (a BOM and CRLF aside)", async () => {
    const res = text(dir, "out.csv", "\ufeffa,b\r\n1,2\r\n");
    const gold1 = text(dir, "gold1.csv", "a,b\n1,3\n");
    const gold2 = text(dir, "gold2.csv", "a,b\n1,2\n");
    expect(await run("compare_csv", res, [gold1, gold2], {})).toEqual({ score: 1, reason: "passed" });
    expect((await run("compare_csv", text(dir, "sp.csv", " A,B \n1,2"), gold2, { strict: false, ignore_case: true })).score).toBe(1);
  });

  test("a different line, or whitespace under strict, fails", async () => {
    const gold = text(dir, "gold3.csv", "a,b\n1,2\n");
    const r1 = await run("compare_csv", text(dir, "o1.csv", "a,b\n1,5\n"), gold, {});
    expect(r1.reason).toContain('line 2: expected "1,2", got "1,5"');
    expect((await run("compare_csv", text(dir, "o2.csv", "a,b \n1,2\n"), gold, {})).score).toBe(0);
  });

  test("a missing result scores 0", async () => {
    const gold = text(dir, "gold4.csv", "a\n");
    expect((await run("compare_csv", null, gold, {})).score).toBe(0);
    expect((await run("compare_csv", `${dir}/nope.csv`, gold, {})).reason).toContain("cannot be read");
  });
});

describe("compare_conference_city_in_order", () => {
  const cities = ["Scottsdale", "Atlanta", ["Lake Tahoe", "Stateline"], "Montréal"];
  const expected = { expected: [...cities, ...Array.from({ length: 17 }, (_, i) => `City ${i}`)] };
  const book = (name: string, got: string[]) =>
    xlsx(dir, name, (wb) => {
      const rows: unknown[][] = [["Year", "Conf", "City"]];
      const all = [...got, ...Array.from({ length: 17 }, (_, i) => `City ${i}`)];
      for (const c of all) rows.push([2020, "X", c]);
      sheet(wb, "Sheet1", rows);
    });

  test("cities in order, accents and extra words aside, pass", async () => {
    const res = await book("cc1.xlsx", ["Scottsdale, AZ", "atlanta", "South Lake Tahoe", "Montreal"]);
    expect(await run("compare_conference_city_in_order", res, expected, {})).toEqual({ score: 1, reason: "passed" });
  });

  test("a wrong or missing city fails", async () => {
    const res = await book("cc2.xlsx", ["Scottsdale", "Boston", "Stateline", "Montreal"]);
    expect((await run("compare_conference_city_in_order", res, expected, {})).reason).toContain("C3:");
    const res2 = await book("cc3.xlsx", ["Scottsdale", "Atlanta", "Stateline", ""]);
    expect((await run("compare_conference_city_in_order", res2, expected, {})).reason).toContain("C5:");
    expect((await run("compare_conference_city_in_order", null, expected, {})).score).toBe(0);
  });
});
