import { expect, test } from "vitest";
import { weakChecks } from "../../../packages/controller/src/datasets/weakChecks.js";

test("check warns about faithful but weak checks, nested ones too, and not once the stricter option is set", () => {
  expect(weakChecks({ func: "compare_jupyterlab_images", arguments: { local_expected_image: "a.png", vm_result_image: "/b.png" } })).toEqual([
    expect.stringMatching(/^compare_jupyterlab_images compares grey-level histograms: .* add method: ssim/),
  ]);
  expect(weakChecks({ func: "compare_jupyterlab_images", arguments: { method: "ssim" } })).toEqual([]);
  const nested = { func: "evaluate_multiple_notebooks", arguments: { operator: "and", comparisons: [{ func: "compare_ipynb_files", arguments: {} }] } };
  expect(weakChecks(nested)).toEqual([expect.stringMatching(/^compare_ipynb_files ignores results/)]);
  expect(weakChecks({ func: "compare_csv", arguments: {} })).toEqual([]);
});
