import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { POLLER_ENVIRONMENT } from '../infra/poller';
import type { Loopback } from './aws';
import { median, round } from './stats';

/** One bundle whose cold start is measured: a poller as synthesized, or the SDK floor. */
export interface ColdSubject {
  /** `live_calls`, `payments` or `sdk-floor`. */
  readonly source: string;
  readonly sdk: 'bundled' | 'external';
  /** The bundle's `index.mjs`. */
  readonly file: string;
  readonly bytes: number;
  /**
   * Variables of its own: the floor's rules file. A poller reads the rules the stack bundled
   * beside it, as deployed.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/** What one fresh process measured of itself, in milliseconds. */
export interface ColdRun {
  /** From the process's start to the first line of the script: node's own start. */
  readonly nodeStartMs: number;
  /** The bundle's import: reading, compiling and evaluating it (and the source map). */
  readonly importMs: number;
  /** The first invocation, as Lambda bills it: from the call to its result. */
  readonly firstRunMs: number;
  /**
   * The CPU time (user + system, every thread) the import and the first invocation took: what
   * they cost this process whatever else the machine runs, and without the waits for moto and
   * the simulator (which share its cores here, as AWS would not).
   */
  readonly cpuMs: number;
}

export interface ColdFigure {
  readonly source: string;
  readonly sdk: 'bundled' | 'external';
  /** The bundle's `index.mjs`, in KB. */
  readonly kb: number;
  readonly runs: number;
  /** Medians over the runs. */
  readonly nodeStartMs: number;
  readonly importMs: number;
  readonly firstRunMs: number;
  /** Import + first invocation: the cold start a function's code adds to the runtime's own. */
  readonly coldMs: number;
  /** The least import + first invocation of the runs: the one the shared machine disturbed least. */
  readonly minMs: number;
  /** Median CPU time of the import and the first invocation (`ColdRun.cpuMs`). */
  readonly cpuMs: number;
  /** Import + first invocation of each round, in round order (the ratios pair them). */
  readonly rounds: readonly number[];
  /** CPU time of each round, likewise. */
  readonly cpuRounds: readonly number[];
}

/**
 * The order subjects run in a round: each once, the first one rotating from round to round, so
 * none always runs right after another (a process leaves caches warm or cores busy behind it).
 */
export function roundOrder(count: number, round: number): number[] {
  return Array.from({ length: count }, (_, i) => (round + i) % count);
}

/**
 * A function's cold start over the floor's, both measured in the same rounds: `median`, the
 * median of the per-round ratios (a round's two processes ran seconds apart, under about the
 * same load, so the ratio cancels what the machine's other work adds to both); `min`, the
 * least cold start of each over the other's least; `cpu`, the median per-round ratio of CPU
 * times, which a loaded machine disturbs least.
 */
export function floorRatio(
  figure: Pick<ColdFigure, 'rounds' | 'minMs' | 'cpuRounds'>,
  floor: Pick<ColdFigure, 'rounds' | 'minMs' | 'cpuRounds'>,
): { median: number; min: number; cpu: number } {
  const pair = (of: readonly number[], to: readonly number[]) => {
    if (of.length !== to.length || of.length === 0) {
      throw new RangeError('the figure and the floor need the same rounds, at least one');
    }
    return round(median(of.map((ms, i) => ms / (to[i] ?? Number.NaN))));
  };
  return {
    median: pair(figure.rounds, floor.rounds),
    min: round(figure.minMs / floor.minMs),
    cpu: pair(figure.cpuRounds, floor.cpuRounds),
  };
}

/**
 * A fresh `node` importing the bundle and invoking its handler once, as Lambda's runtime does
 * at a cold start; the process measures itself and exits without waiting for the SDK's
 * keep-alive sockets (Lambda freezes the environment instead, so exit is never paid).
 * Asynchronous: the simulator answering it lives in this process.
 */
async function coldOnce(file: string, env: NodeJS.ProcessEnv): Promise<ColdRun> {
  const script = `
const started = performance.now();
const cpu = process.cpuUsage();
const { handler } = await import(${JSON.stringify(`file://${file}`)});
const imported = performance.now();
const summary = await handler({ id: 'cold' }, { awsRequestId: 'cold', functionName: 'bench',
  getRemainingTimeInMillis: () => 55000 });
const ran = performance.now();
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ ...summary, nodeStartMs: started,
  importMs: imported - started, firstRunMs: ran - imported,
  cpuMs: (used.user + used.system) / 1000 }), () => process.exit(0));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env,
    // Lambda runs a handler from its task root.
    cwd: dirname(file),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const summary = code === 0 ? (JSON.parse(stdout) as ColdRun & { failures?: number }) : undefined;
  if (summary?.failures !== 0) {
    throw new Error(`cold start of ${file} failed (${code}): ${stdout} ${stderr.slice(-2000)}`);
  }
  return {
    nodeStartMs: summary.nodeStartMs,
    importMs: summary.importMs,
    firstRunMs: summary.firstRunMs,
    cpuMs: summary.cpuMs,
  };
}

/**
 * Cold starts of several bundles, interleaved: `rounds` rounds, each running every subject
 * once (`roundOrder`), after `warmup` rounds that are not counted (the first processes read
 * node and the bundles from disk). Each run is one sample (one API request) against the
 * simulator and moto. A poller reads its rules from its bundle, with `LAMBDA_TASK_ROOT` set to
 * its folder as Lambda sets it; bundles built without the SDK sit under node_modules, so
 * `@aws-sdk/*` resolves there as the runtime provides it.
 */
export async function measureColdStarts(
  loopback: Loopback,
  subjects: readonly ColdSubject[],
  rounds: number,
  warmup = 1,
): Promise<ColdFigure[]> {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    // As the stack sets the pollers: the table (they commit their events, the notifier sends).
    TELEALERT_TABLE: loopback.stack.tableName,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    // As deployed (the bundles carry their source map beside them).
    ...POLLER_ENVIRONMENT,
  };
  delete base.TELEALERT_CONFIG_FILE;
  const envs = subjects.map((subject) => ({
    ...base,
    LAMBDA_TASK_ROOT: dirname(subject.file),
    ...subject.env,
  }));
  const runs: ColdRun[][] = subjects.map(() => []);
  for (let r = 0; r < warmup + rounds; r += 1) {
    for (const i of roundOrder(subjects.length, r)) {
      const subject = subjects[i];
      const env = envs[i];
      if (subject === undefined || env === undefined) continue;
      const run = await coldOnce(subject.file, env);
      if (r >= warmup) runs[i]?.push(run);
    }
  }
  return subjects.map((subject, i) => {
    const own = runs[i] ?? [];
    const cold = own.map((run) => run.importMs + run.firstRunMs);
    return {
      source: subject.source,
      sdk: subject.sdk,
      kb: round(subject.bytes / 1024, 1),
      runs: own.length,
      nodeStartMs: round(median(own.map((run) => run.nodeStartMs)), 1),
      importMs: round(median(own.map((run) => run.importMs)), 1),
      firstRunMs: round(median(own.map((run) => run.firstRunMs)), 1),
      coldMs: round(median(cold), 1),
      minMs: round(Math.min(...cold), 1),
      cpuMs: round(median(own.map((run) => run.cpuMs)), 1),
      rounds: cold.map((ms) => round(ms, 1)),
      cpuRounds: own.map((run) => round(run.cpuMs, 1)),
    };
  });
}
