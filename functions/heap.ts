/** From this many records read in one run, the handler collects the run's garbage. */
export const LARGE_RUN_RECORDS = 20_000;

/**
 * After a run that read a large answer, one full garbage collection, where the runtime exposes
 * it (Lambda's Node.js bootstrap starts node with `--expose-gc`). The answer's text, its parsed
 * rows and the notifications built from them are all garbage by then; V8 grows its heap lazily
 * and would leave them beside the next invocation's answer (two 100k-payment polls in one
 * container peaked at about 245 MB RSS, 205 with this). A small run skips it: a full
 * collection costs more than the little garbage it would free. Whether it collected.
 */
export function collectAfterLargeRun(records: number, collect: (() => void) | undefined): boolean {
  if (records < LARGE_RUN_RECORDS || collect === undefined) return false;
  collect();
  return true;
}
