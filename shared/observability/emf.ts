/**
 * Reading the metrics a function published from what it printed: CloudWatch's embedded metric
 * format (EMF), one JSON document a line, which CloudWatch Logs turns into custom metrics. The
 * bill (bench) and the inventory test read the functions' real output with it, so a metric
 * added anywhere shows up in both by itself.
 */
import { seriesKey } from './metrics';

/** One metric series a document published, with the value it gave it there. */
export interface SeenSeries {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
  /** `seriesKey(name, dimensions)`: one key per billed metric. */
  readonly key: string;
  readonly value: unknown;
}

interface EmfDirective {
  readonly Namespace?: unknown;
  readonly Dimensions?: unknown;
  readonly Metrics?: unknown;
}

/**
 * The series an EMF document declares: each metric under each of its dimension sets (each
 * pair is a metric CloudWatch bills). Lines that are not EMF documents (log lines, a line of
 * text) give none; several documents in one chunk are read line by line.
 */
export function emfSeriesOf(text: string): SeenSeries[] {
  const seen: SeenSeries[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const aws = document._aws as { CloudWatchMetrics?: unknown } | undefined;
    const directives = Array.isArray(aws?.CloudWatchMetrics)
      ? (aws.CloudWatchMetrics as EmfDirective[])
      : [];
    for (const directive of directives) {
      const namespace = String(directive.Namespace ?? '');
      const sets = Array.isArray(directive.Dimensions) ? (directive.Dimensions as unknown[]) : [];
      const metrics = Array.isArray(directive.Metrics) ? directive.Metrics : [];
      for (const metric of metrics as { Name?: unknown }[]) {
        const name = String(metric.Name ?? '');
        for (const set of sets.length > 0 ? sets : [[]]) {
          const dimensions = Object.fromEntries(
            (Array.isArray(set) ? set : []).map((key) => [String(key), String(document[key])]),
          );
          seen.push({
            namespace,
            name,
            dimensions,
            key: seriesKey(name, dimensions),
            value: document[name],
          });
        }
      }
    }
  }
  return seen;
}
