import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';

/**
 * Lambda's event filtering (the part of it a stack uses): every key of the pattern must be in
 * the value; a list matches a value equal to one of its entries, an object matches an object
 * that matches it key by key.
 */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((entry) => entry === value);
  if (typeof pattern !== 'object' || pattern === null) return pattern === value;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matchesFilter(inner, (value as Record<string, unknown>)[key]),
  );
}

export interface StreamMappingOptions {
  /** The stream's ARN (the table's `LatestStreamArn`). */
  readonly streamArn: string;
  /** The mapping's filter patterns: a record any of them matches invokes. None: every record. */
  readonly filters?: readonly unknown[];
  /** At most this many records an invocation. @default 100 */
  readonly batchSize?: number;
}

/**
 * What Lambda's event source mapping on a DynamoDB stream does, which moto cannot (it has no
 * Docker to invoke a function): reads the stream's new records from where it was opened
 * (`LATEST`), keeps those the mapping's filters keep, and hands them to the function in
 * batches. The stack's own mapping settings are read back from moto (`DeployedEventSource`),
 * so a filter that would never match a real record shows here.
 */
export class StreamMapping {
  readonly #client = new DynamoDBStreamsClient({});
  readonly #options: StreamMappingOptions;
  #iterators: string[] = [];

  private constructor(options: StreamMappingOptions) {
    this.#options = options;
  }

  /** Starts reading at the stream's end, as a new mapping with `LATEST` does. */
  static async open(options: StreamMappingOptions): Promise<StreamMapping> {
    const mapping = new StreamMapping(options);
    const { StreamDescription } = await mapping.#client.send(
      new DescribeStreamCommand({ StreamArn: options.streamArn }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const { ShardIterator } = await mapping.#client.send(
        new GetShardIteratorCommand({
          StreamArn: options.streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: 'LATEST',
        }),
      );
      if (ShardIterator) mapping.#iterators.push(ShardIterator);
    }
    return mapping;
  }

  /** The records written since the last call that the filters keep, oldest first. */
  async take(): Promise<StreamRecord[]> {
    const taken: StreamRecord[] = [];
    const next: string[] = [];
    for (const iterator of this.#iterators) {
      let current: string | undefined = iterator;
      for (;;) {
        const page: GetRecordsCommandOutput = await this.#client.send(
          new GetRecordsCommand({ ShardIterator: current }),
        );
        for (const record of page.Records ?? []) taken.push(record);
        current = page.NextShardIterator;
        if ((page.Records ?? []).length === 0 || current === undefined) break;
      }
      if (current) next.push(current);
    }
    this.#iterators = next;
    const filters = this.#options.filters ?? [];
    return filters.length === 0
      ? taken
      : taken.filter((record) => filters.some((pattern) => matchesFilter(pattern, record)));
  }

  /**
   * Invokes `invoke` once per batch of the records `take` finds, as the mapping would; resolves
   * with each invocation's result (none when no record was kept).
   */
  async deliver<T>(invoke: (event: DynamoDBStreamEvent) => Promise<T>): Promise<T[]> {
    const records = await this.take();
    const batchSize = this.#options.batchSize ?? 100;
    const results: T[] = [];
    for (let start = 0; start < records.length; start += batchSize) {
      const batch = records.slice(start, start + batchSize).map((record) => ({
        ...record,
        eventSourceARN: this.#options.streamArn,
      }));
      results.push(await invoke({ Records: batch } as DynamoDBStreamEvent));
    }
    return results;
  }

  close(): void {
    this.#client.destroy();
  }
}
