import fc from 'fast-check';
import { describe, it } from 'vitest';
import { differences, modelAnswers, productAnswers } from './answers';
import { runModel } from './model';
import { concretise, runProduct } from './run';
import { FEATURES, type Feature, type Timeline, timelineArb } from './timeline';

/**
 * The product against the reference notifier (`model.ts`, contract sections 6 and 6.1 alone)
 * over random timelines: both must give the same answers (`answers.ts`).
 *
 * Features the product does not get right yet, each with the rule of contract 6.1 it waits
 * for. They are left out of the timelines until then; TELEALERT_MODEL_FEATURES=all draws them
 * anyway (or a comma list adds some), to see what still fails. None waits since 2026-11-29:
 * silences and silenceLabel were the last.
 */
const WAITING: Readonly<Partial<Record<Feature, string>>> = {};

const RUNS = Number(process.env.TELEALERT_MODEL_RUNS ?? 1000);
const SEED = process.env.TELEALERT_MODEL_SEED;

function features(): Set<Feature> {
  const asked = process.env.TELEALERT_MODEL_FEATURES;
  if (asked === 'all') return new Set(FEATURES);
  const on = new Set(FEATURES.filter((feature) => WAITING[feature] === undefined));
  for (const name of (asked ?? '').split(',')) {
    if ((FEATURES as readonly string[]).includes(name)) on.add(name as Feature);
  }
  return on;
}

/** The shrunk timeline, readable: what a person would replay to see the defect. */
function describeTimeline(timeline: Timeline): string {
  return Object.entries(timeline)
    .map(([name, value]) => `  ${name}: ${JSON.stringify(value)}`)
    .join('\n');
}

/** The seed of `npm test`'s timelines: any fixed number, the same every run. */
const DEFAULT_SEED = 20_261_128;

/** CPU time is about 25 ms a timeline; a loaded machine may take several times that. */
const TIMEOUT_MS = Math.max(120_000, RUNS * 300);

describe('Property: the notifier tells what the reference notifier tells', () => {
  it(`gives the contract's answers over ${RUNS} random timelines`, { timeout: TIMEOUT_MS }, () => {
    const on = features();
    fc.assert(
      fc.property(timelineArb(on), (timeline) => {
        const concrete = concretise(timeline);
        const product = productAnswers(runProduct(concrete));
        const model = modelAnswers(runModel(concrete));
        const differ = differences(product, model);
        if (differ !== undefined) throw new Error(`the answers differ:\n${differ}`);
      }),
      {
        numRuns: RUNS,
        // `npm test` draws the same timelines every run, so CI never turns red by the draw;
        // TELEALERT_MODEL_SEED=random draws anew (the nightly-sized run does).
        ...(SEED === 'random' ? {} : { seed: SEED === undefined ? DEFAULT_SEED : Number(SEED) }),
        reporter: (details) => {
          if (!details.failed) return;
          const shrunk = details.counterexample?.[0] as Timeline | undefined;
          throw new Error(
            `reference model: seed ${details.seed} (TELEALERT_MODEL_SEED=${details.seed}), path ${details.counterexamplePath}\n` +
              `shrunk timeline:\n${shrunk === undefined ? '?' : describeTimeline(shrunk)}\n` +
              `${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
          );
        },
      },
    );
  });
});
