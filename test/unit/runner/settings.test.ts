import { describe, expect, test } from "vitest";
import { DEFAULT_RUN_SETTINGS, runSettings, runSettingsSchema } from "@pincer/controller/runner";
import { queuedSettingsSchema } from "../../../packages/controller/src/queue/records.js";
import { maxStepsFor, observationFor, runSettingsOf } from "../../../packages/controller/src/runner/settings.js";

describe("RunSettings: one type from the flags to the attempt", () => {
  test("defaults are filled in one place; undefined counts as not given", () => {
    expect(runSettings()).toEqual(DEFAULT_RUN_SETTINGS);
    expect(runSettings({ attempts: 3, maxSteps: undefined, record: true })).toEqual({ ...DEFAULT_RUN_SETTINGS, attempts: 3, record: true });
  });

  test("runSettingsOf keeps only the settings of a larger options object", () => {
    const options = { attempts: 2, screenshots: false, outDir: "results", agent: { kind: "scripted" } };
    expect(runSettingsOf(options)).toEqual({ ...DEFAULT_RUN_SETTINGS, attempts: 2, screenshots: false });
  });

  test("a queue's job carries every run setting and the agent, nothing else", () => {
    const queued = Object.keys(queuedSettingsSchema.shape).sort();
    expect(queued).toEqual([...Object.keys(runSettingsSchema.shape), "agent"].sort());
    expect(runSettingsSchema.parse(runSettings({ accessibility: "marks" }))).toEqual(runSettings({ accessibility: "marks" }));
    expect(runSettingsSchema.safeParse({ ...DEFAULT_RUN_SETTINGS, endpoint: "http://x" }).success).toBe(false);
  });

  test("the observation follows the settings and the agent", () => {
    const looks = { wantsScreenshots: true };
    const blind = { wantsScreenshots: false };
    expect(observationFor(runSettings({ screenshots: false }), blind)).toBe(false);
    expect(observationFor(runSettings(), blind)).toEqual({ settle: false });
    expect(observationFor(runSettings({ accessibility: "text" }), looks)).toMatchObject({ settle: { quietMs: 300 }, accessibility: "text" });
    expect(maxStepsFor({ actionNumber: 4 }, "auto")).toEqual({ maxSteps: 13, rule: "auto: 2 × action_number (4) + 5" });
  });
});
