import { canonicalPhone } from '../shared/records/phone';
import { createRandom, mixSeed, type Random } from './scenarios/random';
import { SIP_DOMAIN, USER_ID } from './scenarios/roster';
import type { CallEvent, PaymentEvent } from './scenarios/types';
import { formatIsoWall, formatMonthWall } from './wallclock';

/** A record as it goes on the wire: plain JSON, drift and all. */
export type RawRecord = Record<string, unknown>;

/** A rendered live call and the canonical values the filters match on. */
export interface SimCall {
  readonly record: RawRecord;
  readonly callId: string;
  readonly did: string;
  readonly agentNumbers: readonly string[];
  readonly extensions: readonly string[];
}

/** A rendered payment and the values the filters match on. */
export interface SimPayment {
  readonly record: RawRecord;
  readonly createdMs: number;
  /** Amount paid in paise. */
  readonly paidPaise: number;
}

export interface RenderContext {
  /** Epoch ms the scenario's event times count from. */
  readonly startMs: number;
  readonly nowMs: number;
  readonly seed: number;
  readonly zone: string;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `HH:MM:SS` from milliseconds. */
export function clockText(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

/** `1180.00` from 118000 paise. */
export function paiseText(paise: number): string {
  return `${Math.floor(paise / 100)}.${pad(paise % 100)}`;
}

/** The same number as the API writes it on a given day: with or without +, 91 or 0. */
function phoneVariant(canonical: string, random: Random): string {
  const national = canonical.replace(/^\+91/, '');
  if (national === canonical) return canonical;
  return random.pick([canonical, `91${national}`, `0${national}`, national, canonical]);
}

/** Numbers as strings, now and then (api-notes). */
function maybeString(value: number, random: Random, p = 0.3): number | string {
  return random.chance(p) ? String(value) : value;
}

function letterCase(word: string, random: Random): string {
  const roll = random.next();
  if (roll < 0.7) return word;
  return roll < 0.85 ? word.toLowerCase() : word.toUpperCase();
}

function hex(random: Random, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += random.int(0, 15).toString(16);
  return text;
}

function alnum(random: Random, length: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let text = '';
  for (let i = 0; i < length; i++) text += chars[random.int(0, chars.length - 1)];
  return text;
}

/** Two call id formats seen in the wild: `epoch.serial` and a UUID. */
function callIdFor(event: CallEvent, createdMs: number, random: Random): string {
  // `epoch.serial` with a serial of fixed width: the engine reads `1763700259.430` and
  // `1763700259.43` as one id (the API sends ids as numbers too), so `.1` and `.10` would merge.
  if (random.chance(0.6)) {
    return `${Math.floor(createdMs / 1000)}.${String(event.serial).padStart(6, '0')}`;
  }
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`;
}

/**
 * The rows a call shows as at `nowMs`: none before it starts or after it ends, one row in
 * general, and now and then one row per rung agent for a ring-all call (api-notes: an inbound
 * call that rings several agents can appear as several rows). Drift is drawn per call, so a
 * call keeps its id and formats from one poll to the next.
 */
export function renderCall(event: CallEvent, context: RenderContext): SimCall[] {
  const createdMs = context.startMs + event.startMs;
  const elapsed = context.nowMs - createdMs;
  const endMs = event.ringMs + (event.talkMs ?? 0);
  if (elapsed < 0 || elapsed >= endMs) return [];
  const random = createRandom(mixSeed(context.seed, 'call', event.serial));
  const ringing = elapsed < event.ringMs;
  const callId = callIdFor(event, createdMs, random);
  const stateWord = letterCase(ringing ? 'Ringing' : 'Answered', random);
  const splitRows = event.agents.length > 1 && random.chance(0.25);
  const answering = event.agents[0];
  const rung = ringing ? event.agents : answering ? [answering] : [];
  const common: RawRecord = {
    id: maybeString(100_000 + event.serial, random),
    user_id: maybeString(USER_ID, random),
    call_id: callId,
    direction: maybeString(event.direction, random),
    type: event.direction === 1 ? letterCase('inbound', random) : 'click-to-call',
    did: phoneVariant(event.did, random),
    multiple_destination_type: event.agents.length > 1 ? 'ring_all' : '',
    multiple_destination_name: event.agents.length > 1 ? `group-${event.did.slice(-2)}` : '',
    state: stateWord,
    channel_id: `PJSIP/trunk-${hex(random, 8)}`,
    created_at: formatIsoWall(createdMs, context.zone),
    sip_domain: SIP_DOMAIN,
    broadcast_id: null,
    broadcast_no: null,
    call_time: clockText(ringing ? elapsed : elapsed - event.ringMs),
  };
  // Fields missing or added now and then, as real responses do.
  if (!random.chance(0.2)) common.client_id = random.chance(0.5) ? null : `CL-${random.int(1, 99)}`;
  if (random.chance(0.3)) common.recording_url = null;
  const row = (agents: typeof rung): SimCall => {
    const first = agents[0];
    const record: RawRecord = { ...common };
    const customer = phoneVariant(event.caller, random);
    const agentList = agents.map((agent) => phoneVariant(agent.number, random));
    record.source = event.direction === 1 ? customer : (agentList[0] ?? customer);
    record.destination =
      event.direction === 1 ? agentList.join(random.chance(0.5) ? ',' : ', ') : customer;
    record.agent_name = first?.name ?? '';
    if (first) {
      record.agent_number = phoneVariant(first.number, random);
      record.extension = random.chance(0.3) ? Number(first.extension) : first.extension;
    }
    return {
      record,
      callId,
      did: canonicalPhone(event.did),
      agentNumbers: agents.map((agent) => agent.number),
      extensions: agents.map((agent) => agent.extension),
    };
  };
  return splitRows && ringing ? rung.map((agent) => row([agent])) : [row(rung)];
}

/**
 * A payment as the log shows it at `nowMs`: absent before it is created, pending (empty
 * `payment_id`) until it settles, success after; a stuck one stays pending.
 */
export function renderPayment(event: PaymentEvent, context: RenderContext): SimPayment | undefined {
  const createdMs = context.startMs + event.atMs;
  if (context.nowMs < createdMs) return undefined;
  const random = createRandom(mixSeed(context.seed, 'payment', event.serial));
  const settled = event.settleMs !== undefined && context.nowMs >= createdMs + event.settleMs;
  const taxPaise = Math.round((event.paidPaise * 18) / 118);
  const addedPaise = event.paidPaise - taxPaise;
  const asNumber = random.chance(0.25);
  const record: RawRecord = {
    id: maybeString(50_000 + event.serial, random, 0.5),
    amount_paid: asNumber ? event.paidPaise / 100 : paiseText(event.paidPaise),
    payment_id: '',
    created_at: formatMonthWall(createdMs, context.zone),
  };
  const gatewayName = random.chance(0.3) ? event.gateway.toLowerCase() : event.gateway;
  record[random.chance(0.3) ? 'payment_gateway' : 'gateway'] = gatewayName;
  record.status = letterCase(settled ? 'success' : 'pending', random);
  record.amount_added = random.chance(0.3) ? paiseText(addedPaise) : addedPaise / 100;
  record.amount_tax = random.chance(0.3) ? paiseText(taxPaise) : taxPaise / 100;
  if (random.chance(0.2)) record.currency = 'INR';
  // Drawn last and only once settled, so the draws above stay the same from pending to success.
  if (settled) {
    record.payment_id =
      event.gateway === 'Razorpay'
        ? `pay_${alnum(random, 14)}`
        : `MOJO${alnum(random, 6)}${random.int(1000, 9999)}`;
  }
  return { record, createdMs, paidPaise: event.paidPaise };
}
