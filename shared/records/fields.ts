import type { SourceName } from '../types/config';

/**
 * How a field's values are read and compared.
 * - `text`: trimmed, compared case-insensitively (the API changes letter case).
 * - `phone`: compared by canonical number, so `+918000000001`, `918000000001`, `08000000001`
 *   and `8000000001` are one number.
 * - `phones`: a comma-separated list of phones; equality holds when any of them matches.
 * - `number`, `money` (exact decimal), `duration` (seconds), `time` (epoch ms),
 *   `direction` (1/2, also written inbound/outbound).
 */
export const FIELD_KINDS = [
  'text',
  'phone',
  'phones',
  'number',
  'money',
  'duration',
  'time',
  'direction',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

/**
 * A catalogue of names without a prototype: a rule naming `constructor` or `__proto__` finds
 * no field (with `{}`, it would find Object's own members).
 */
function catalogue<T>(fields: Record<string, T>): Readonly<Record<string, T>> {
  return Object.assign(Object.create(null) as Record<string, T>, fields);
}

/** Fields a rule may name, per source: the API's own names plus the derived `age`. */
export const FIELDS: Readonly<Record<SourceName, Readonly<Record<string, FieldKind>>>> = {
  live_calls: catalogue({
    id: 'text',
    user_id: 'text',
    client_id: 'text',
    call_id: 'text',
    direction: 'direction',
    source: 'phone',
    type: 'text',
    did: 'phone',
    multiple_destination_type: 'text',
    multiple_destination_name: 'text',
    destination: 'phones',
    state: 'text',
    channel_id: 'text',
    created_at: 'time',
    sip_domain: 'text',
    broadcast_id: 'text',
    broadcast_no: 'phone',
    call_time: 'duration',
    agent_name: 'text',
    // Newer responses (api-notes): the agent's number and extension, the live calls query's
    // `agent_number` and `extension` filters. An extension is text: `101`, `0101` and `ext-7`.
    agent_number: 'phone',
    extension: 'text',
    age: 'duration',
  }),
  payments: catalogue({
    id: 'text',
    amount_paid: 'money',
    payment_id: 'text',
    created_at: 'time',
    gateway: 'text',
    status: 'text',
    amount_added: 'money',
    amount_tax: 'money',
    age: 'duration',
  }),
};

/**
 * Names the documents give a field besides its own, per source: the API's `payment_gateway` is
 * read as `gateway` (`applyAliases`), so a rule names `gateway`.
 */
export const FIELD_ALIASES: Readonly<Record<SourceName, Readonly<Record<string, string>>>> = {
  live_calls: catalogue({}),
  payments: catalogue({ payment_gateway: 'gateway' }),
};

/** Fields computed at evaluation time rather than read from the record. */
export const DERIVED_FIELDS = ['age'] as const;

/** The record identity per source (contract section 3). */
export const IDENTITY_FIELD: Readonly<Record<SourceName, string>> = {
  live_calls: 'call_id',
  payments: 'id',
};
