import { describe, expect, test } from "vitest";
import { API_ENTRIES, apiReports, staleReports } from "../../scripts/apiReport.js";

// The reports under packages/*/api/ list each entry point's exported names with their signatures,
// generated from the TypeScript sources (no build needed). A change to the public API shows in
// the diff of a report; this test fails until the report is rewritten with `npm run api`.
const reports = apiReports();

describe("the API reports (packages/controller/api/, packages/shared/api/)", () => {
  test("one report per entry point of package.json's exports", () => {
    expect([...reports.keys()].sort()).toEqual(API_ENTRIES.map((e) => e.report).sort());
    expect(API_ENTRIES.map((e) => e.specifier)).toContain("@pincer/controller/agents");
  });

  test("are current: after a change to an entry point's exports, run `npm run api` and commit the reports", () => {
    const stale = staleReports(reports);
    expect(stale, `stale API reports: ${stale.join(", ")}: run \`npm run api\` and commit the changes`).toEqual([]);
  });

  test("a report changes when an export does", () => {
    const root = API_ENTRIES.find((e) => e.specifier === "@pincer/controller")!;
    const text = reports.get(root.report)!;
    expect(text).toMatch(/^\/\/ connect \(src\/env\/remoteEnv\.ts\)\nfunction connect\(address: string, opts\?: ConnectOptions\): RemoteEnv$/m);
    const changed = new Map(reports).set(root.report, text.replace("function connect(address: string", "function connect(address: number"));
    expect(staleReports(changed)).toEqual([root.report]);
  });
});
