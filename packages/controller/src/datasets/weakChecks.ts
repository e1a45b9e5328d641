/** Checks that are faithful to their dataset but known to pass wrong results, and what to use instead. */
const WEAK_CHECKS: Record<string, (args: Record<string, unknown>) => string | undefined> = {
  compare_jupyterlab_images: (a) =>
    a.method === "ssim"
      ? undefined
      : "compare_jupyterlab_images compares grey-level histograms: a flipped, shifted or rearranged image passes; add method: ssim for a structural check",
  compare_ipynb_files: () =>
    "compare_ipynb_files ignores results (execute_result): a wrong value shown as a cell's result passes; compare_notebook_outputs checks them",
};

/** The known-weak checks in an evaluation, its nested parts included. */
export function weakChecks(call: { func: string; arguments: Record<string, unknown> }): string[] {
  const own = WEAK_CHECKS[call.func]?.(call.arguments);
  const parts = [call.arguments.comparisons, call.arguments.evaluators].flatMap((p) => (Array.isArray(p) ? p : []));
  const nested = parts.flatMap((p) =>
    p && typeof p === "object" && typeof p.func === "string" ? weakChecks({ func: p.func, arguments: p.arguments ?? {} }) : [],
  );
  return [...(own ? [own] : []), ...nested];
}
