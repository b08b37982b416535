import type { Config, SourceName } from '../types/config';

/**
 * Whether some rule of the rules file reads `source`. Every source is polled all the same: a
 * source no rule reads (every rule of it removed or renamed) asks the API nothing, and its
 * poll only ends the firing alerts of the rules the file no longer has (contract 6.1 rule 8).
 */
export function readsSource(config: Config, source: SourceName): boolean {
  return config.rules.some((rule) => rule.source === source);
}

/**
 * The samples one run of `source` takes: `sources.live_calls.samples` while a rule reads live
 * calls; otherwise one (payments, or a source that asks the API nothing: once a period ends
 * its removed rules' alerts as soon as any sample would).
 */
export function samplesPerRun(config: Config, source: SourceName): number {
  return source === 'live_calls' && readsSource(config, source)
    ? config.sources.live_calls.samples
    : 1;
}
