import { describe, expect, test } from "vitest";
import { readCsvLikePandas } from "../../../packages/controller/src/datasets/pycompat/pandasCsv.js";

// The expected frames are what pandas 2.2.3's pd.read_csv gives for the same text (columns,
// str(dtype) of each, and the rows with NaN as null).

describe("pandas' read_csv", () => {
  test("a type per column: int64, float64 (whole numbers with a blank, exponents), bool, object; NA strings are NaN", () => {
    const frame = readCsvLikePandas("i,f,mixed,b,s,na\n1,1.5,1,True,x,\n2,2,2.5,false,NA,\n-3,3e2,,TRUE,nan,\n");
    expect(frame).toEqual({
      columns: ["i", "f", "mixed", "b", "s", "na"],
      dtypes: ["int64", "float64", "float64", "bool", "object", "float64"],
      rows: [
        [1, 1.5, 1, true, "x", null],
        [2, 2, 2.5, false, null, null],
        [-3, 300, null, true, null, null],
      ],
    });
  });

  test("unnamed and repeated headers are named as pandas names them", () => {
    expect(readCsvLikePandas("a,,a,b,a\n1,2,3,4,5\n").columns).toEqual(["a", "Unnamed: 1", "a.1", "b", "a.2"]);
  });

  test("spaces around numbers and signs are read; a header's spaces are kept", () => {
    expect(readCsvLikePandas("n, m\n 7 , 8\n+9,-inf\n")).toEqual({
      columns: ["n", " m"],
      dtypes: ["int64", "float64"],
      rows: [
        [7, 8],
        [9, -Infinity],
      ],
    });
  });

  test("an empty file raises, as pandas' EmptyDataError does", () => {
    expect(() => readCsvLikePandas("")).toThrow(/no columns to parse/);
  });
});
