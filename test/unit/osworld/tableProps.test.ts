import type ExcelJS from "exceljs";
import { describe, expect, test } from "vitest";
import { run, sheet, workDir, xlsx } from "./tableFixtures.js";

// compare_table's sheet-property rules (freeze, zoom, data_validation, row_props, style) on real
// xlsx files written with exceljs.

const dir = workDir();
const rules = (...r: unknown[]) => ({ rules: r });
const rows = [
  ["Id", "Name", "Result"],
  [1, "a", 5],
  [2, "b", -3],
  [3, "c", 7],
];

describe("compare_table freeze and zoom", () => {
  const frozen =
    (x: number, y: number, zoom = 100) =>
    (wb: ExcelJS.Workbook) => {
      const ws = sheet(wb, "Sheet1", rows);
      ws.views = [{ state: "frozen", xSplit: x, ySplit: y, zoomScale: zoom }];
    };
  const opts = rules({ type: "freeze", sheet_idx0: 0, sheet_idx1: "EI0" }, { type: "sheet_data", sheet_idx0: 0, sheet_idx1: "EI0" });

  test("the same frozen rows and columns pass", async () => {
    const exp = await xlsx(dir, "fr-e.xlsx", frozen(1, 1));
    expect((await run("compare_table", await xlsx(dir, "fr-r.xlsx", frozen(1, 1)), exp, opts)).score).toBe(1);
  });

  test("other frozen panes, or none, fail", async () => {
    const exp = await xlsx(dir, "fr-e2.xlsx", frozen(1, 1));
    expect((await run("compare_table", await xlsx(dir, "fr-r2.xlsx", frozen(0, 2)), exp, opts)).reason).toContain("frozen 0 column(s) and 2 row(s)");
    const none = await xlsx(dir, "fr-r3.xlsx", (wb) => sheet(wb, "Sheet1", rows));
    expect((await run("compare_table", none, exp, opts)).reason).toContain("no frozen panes");
  });

  test("zoom below 260% passes, above it fails", async () => {
    const opts2 = rules({ type: "zoom", sheet_idx: 0, method: "lt", ref: 260 });
    expect((await run("compare_table", await xlsx(dir, "z1.xlsx", frozen(0, 1, 90)), undefined, opts2)).score).toBe(1);
    expect((await run("compare_table", await xlsx(dir, "z2.xlsx", frozen(0, 1, 300)), undefined, opts2)).reason).toContain("zoom is 300%");
    const opts3 = rules({ type: "zoom", sheet_idx: "RNNope", method: "lt", ref: 260 });
    expect((await run("compare_table", await xlsx(dir, "z3.xlsx", frozen(0, 1, 90)), undefined, opts3)).reason).toContain("is not there");
  });
});

describe("compare_table data_validation", () => {
  const withList = (range: string, formula: string) => (wb: ExcelJS.Workbook) => {
    const ws = sheet(wb, "Sheet1", rows);
    (ws as unknown as { dataValidations: { add(r: string, v: unknown): void } }).dataValidations.add(range, {
      type: "list",
      allowBlank: true,
      formulae: [formula],
    });
  };
  const opts = rules({
    type: "data_validation",
    sheet_idx: 0,
    dv_props: [
      {
        ranges: { method: "spreadsheet_range", ref: ["D2:D29", "D1:D1048576"] },
        type: { method: "eq", ref: "list" },
        formula1: { method: "str_set_eq", ref: ["Pass", "Fail", "Held"] },
      },
    ],
  });

  test("a list validation over the wanted range with the wanted items passes", async () => {
    expect((await run("compare_table", await xlsx(dir, "dv1.xlsx", withList("D2:D40", '"Held,Pass,Fail"')), undefined, opts)).score).toBe(1);
  });

  test("other items, a too small range, or no validation fail", async () => {
    const r1 = await run("compare_table", await xlsx(dir, "dv2.xlsx", withList("D2:D40", '"Pass,Fail"')), undefined, opts);
    expect(r1.reason).toContain("matches none of the wanted ones");
    const r2 = await run("compare_table", await xlsx(dir, "dv3.xlsx", withList("D2:D10", '"Pass,Fail,Held"')), undefined, opts);
    expect(r2.score).toBe(0);
    const r3 = await run("compare_table", await xlsx(dir, "dv4.xlsx", (wb) => sheet(wb, "Sheet1", rows)), undefined, opts);
    expect(r3.reason).toContain("has 0 data validation(s)");
  });
});

describe("compare_table row_props and style", () => {
  const hiding = (hidden: number[]) => (wb: ExcelJS.Workbook) => {
    const ws = sheet(wb, "Sheet1", rows);
    for (const r of hidden) ws.getRow(r).hidden = true;
  };
  const rowOpts = rules({ type: "row_props", sheet_idx0: 0, sheet_idx1: "EI0", props: ["hidden"] });

  test("the same hidden rows pass; other hidden rows fail", async () => {
    const exp = await xlsx(dir, "rp-e.xlsx", hiding([3]));
    expect((await run("compare_table", await xlsx(dir, "rp-r.xlsx", hiding([3])), exp, rowOpts)).score).toBe(1);
    expect((await run("compare_table", await xlsx(dir, "rp-r2.xlsx", hiding([2])), exp, rowOpts)).reason).toContain("row 2 has properties");
    expect((await run("compare_table", await xlsx(dir, "rp-r3.xlsx", hiding([])), exp, rowOpts)).score).toBe(0);
  });

  const colored =
    (red: string[], extra = false) =>
    (wb: ExcelJS.Workbook) => {
      const ws = sheet(wb, "Sheet1", rows);
      for (let r = 1; r <= 4; r++) {
        for (const c of ["A", "B", "C"]) ws.getCell(`${c}${r}`).font = { color: { argb: red.includes(`${c}${r}`) ? "FFFF0000" : "FF000000" } };
      }
      if (extra) ws.getCell("E6").value = "x";
    };
  const styleOpts = rules({ type: "style", sheet_idx0: 0, sheet_idx1: "EI0", props: ["font_color"] });

  test("the same font colours pass", async () => {
    const exp = await xlsx(dir, "st-e.xlsx", colored(["C3"]));
    expect((await run("compare_table", await xlsx(dir, "st-r.xlsx", colored(["C3"])), exp, styleOpts)).score).toBe(1);
  });

  test("a different font colour, or cells beyond the expected ones, fail", async () => {
    const exp = await xlsx(dir, "st-e2.xlsx", colored(["C3"]));
    expect((await run("compare_table", await xlsx(dir, "st-r2.xlsx", colored(["C2"])), exp, styleOpts)).reason).toContain("C2 font_color");
    expect((await run("compare_table", await xlsx(dir, "st-r3.xlsx", colored(["C3"], true)), exp, styleOpts)).score).toBe(0);
  });
});
