import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Notification, SourceState } from '../../shared/engine/types';
import type { SourceName } from '../../shared/types/config';
import { StateTooLargeError } from './errors';

/** Sort key of a source's state item. */
export const STATE_SK = 'state';
/** Sort keys of owed notifications: `owed#<notification id>`. */
export const OWED_PREFIX = 'owed#';
/**
 * The most the state item may carry (compressed state plus its committed commit ids). DynamoDB
 * refuses items over 400 KB; the rest is headroom for the keys and the other attributes.
 */
export const MAX_STATE_ITEM_BYTES = 350 * 1024;
/** DynamoDB's limit on a sort key's UTF-8 length. */
const MAX_SORT_KEY_BYTES = 1024;

/** The attributes of the state item and of owed items (besides `pk`, `sk`, `expiresAt`). */
export const ATTR = {
  /** State item: gzip-compressed JSON of the `SourceState` (Binary). */
  state: 'state',
  /** State item: the optimistic-concurrency revision (Number). */
  revision: 'revision',
  /** State item: ids of the commits whose owed items are live (String Set; absent if none). */
  committed: 'committed',
  /** State item: when it was last written, epoch ms (Number). */
  writtenAt: 'writtenAt',
  /**
   * State item: the id of the commit that wrote this revision (String), so a commit whose
   * answer was lost knows its own write when the SDK's retry fails the revision check.
   */
  writtenBy: 'writtenBy',
  /** Owed item: the notification as JSON (String). */
  notification: 'notification',
  /** Owed item: ids of the commits that wrote it (String Set). */
  commits: 'commits',
  /**
   * Tombstone of an owed item marked sent: when, epoch ms (Number). The item keeps only its
   * keys, this and `expiresAt`.
   */
  sentAt: 'sentAt',
} as const;

/** The key of a source's state item. */
export function stateKey(source: SourceName): Record<string, AttributeValue> {
  return { pk: { S: source }, sk: { S: STATE_SK } };
}

/**
 * The key of an owed notification. Ids are normally far below the sort key limit; one that is
 * not (a rule grouping by very long values) is keyed by its hash, the item still carrying it.
 */
export function owedKey(source: SourceName, id: string): Record<string, AttributeValue> {
  const plain = `${OWED_PREFIX}${id}`;
  const sk =
    Buffer.byteLength(plain) <= MAX_SORT_KEY_BYTES
      ? plain
      : `${OWED_PREFIX}sha256:${createHash('sha256').update(id).digest('hex')}`;
  return { pk: { S: source }, sk: { S: sk } };
}

/**
 * A fresh commit id for the commit that would create `revision`: the revision (base 36) and
 * 48 random bits, so two runs racing for the same revision never share one, and a reader can
 * tell from the id alone whether its commit can still succeed.
 */
export function newCommitId(revision: number): string {
  return `${revision.toString(36)}.${randomBytes(6).toString('hex')}`;
}

/** The revision a commit id was made for (NaN for an id this adapter did not write). */
export function commitRevision(commitId: string): number {
  return Number.parseInt(commitId.slice(0, commitId.indexOf('.')), 36);
}

/**
 * The state as stored: gzip-compressed JSON (a firing payment's state compresses ~10x).
 *
 * @throws StateTooLargeError when the compressed state and the committed ids still exceed
 *   {@link MAX_STATE_ITEM_BYTES}: nothing is written, and the message says how to shrink it.
 */
export function encodeState(
  source: SourceName,
  state: SourceState,
  committed: readonly string[] = [],
): Uint8Array {
  const bytes = gzipSync(JSON.stringify(state));
  const size = bytes.byteLength + committed.reduce((sum, id) => sum + id.length, 0);
  if (size > MAX_STATE_ITEM_BYTES) {
    throw new StateTooLargeError(
      source,
      size,
      MAX_STATE_ITEM_BYTES,
      Object.keys(state.alerts).length,
    );
  }
  return bytes;
}

/** Reads a state written by {@link encodeState}. Throws on bytes that are not one. */
export function decodeState(bytes: Uint8Array): SourceState {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as SourceState;
}

/** An owed notification as stored, read back. */
export interface OwedItem {
  readonly notification: Notification;
  readonly commits: readonly string[];
}

/** Reads an owed item's notification and the commits that wrote it. Throws on bad JSON. */
export function decodeOwed(item: Record<string, AttributeValue>): OwedItem {
  return {
    notification: JSON.parse(item[ATTR.notification]?.S ?? '') as Notification,
    commits: item[ATTR.commits]?.SS ?? [],
  };
}
