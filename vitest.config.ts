import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Packages resolve to their TypeScript sources under this condition (see each package.json), so
// tests always run the current source, never a stale dist/. Vitest runs tests in Vite's SSR
// environment, which reads ssr.resolve.conditions, not resolve.conditions.
const conditions = ["@pincer/source", ...defaultServerConditions];
const resolve = { conditions };
const ssr = { resolve: { conditions } };

/** The integration tests that run under both driver sets. */
const PORTABLE_SUITE = ["input", "typing", "screen", "settle", "process", "processLimits", "xServerRestart", "desktopApps", "windowWait", "envClient"];

export default defineConfig({
  resolve,
  ssr,
  test: {
    // A plain "N passed, N failed" summary line for CI logs comes from scripts/summarize-tests.mjs.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]] : ["default"],
    projects: [
      { resolve, ssr, test: { name: "unit", include: ["test/unit/**/*.test.ts"], sequence: { groupOrder: 0 } } },
      {
        resolve,
        ssr,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: Xvfb, the daemon and the test share them.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve,
        ssr,
        test: {
          // The daemon's input, screen, process, window and clipboard tests again, on the portable
          // drivers (nut-js, sharp, execa) instead of the native ones; after the integration group,
          // not beside it, so that two cores serve two test files at a time.
          name: "integration-portable",
          include: PORTABLE_SUITE.map((f) => `test/integration/${f}.test.ts`),
          env: { PINCER_TEST_DRIVERS: "portable" },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        resolve,
        ssr,
        test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 60_000, sequence: { groupOrder: 3 } },
      },
      {
        resolve,
        ssr,
        test: {
          name: "images",
          include: ["test/images/**/*.test.ts"],
          // The first test builds the minimal image (mmdebstrap, minutes); QEMU boots in TCG here.
          testTimeout: 20 * 60_000,
          hookTimeout: 20 * 60_000,
          // Last, alone: a TCG guest takes a whole core, which timing-sensitive tests elsewhere must not share.
          maxWorkers: 2,
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
