import * as z from '../schema/zod';
import { tryParseDuration } from '../time/duration';
import {
  type ChannelConfig,
  type HandoffTime,
  type PersonConfig,
  type RotationConfig,
  WEEKDAYS,
  type Weekday,
} from '../types/config';
import { type ConfigIssue, formatPath } from './errors';
import { didYouMean } from './hints';
import { check } from './issues';
import { custom, type Read, readEmail, readPhone, readTimeOfDay } from './schema';

/*
 * `people` and `rotations` (contract section 8), and a channel's `rotation`. Each check runs on
 * whatever part is well-formed, so every problem (an unknown person, a member twice, a handoff
 * that is not a time) is named in one run of `validate`.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** A rotation's turn is at most this long: longer is a fixed list, not a rotation. */
const MAX_SHIFT = 4 * WEEK;

/** People's names become SNS filter-policy values and CLI arguments: plain, short. */
export const PERSON_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const ROTATION_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const personSchema = z.strictObject({
  sms: z.optional(custom((input) => readPhone(input, 'sms'))),
  email: z.optional(custom(readEmail)),
});

/** `1d`, `1w`, `2w`, or any duration of at least 1h (`12h`). */
export function readShift(input: unknown): Read<number> {
  if (input === undefined)
    return { ok: false, message: 'is required: 1d, 1w, or a duration >= 1h' };
  const text = typeof input === 'string' ? input.trim() : '';
  const weeks = /^(\d+)w$/.exec(text);
  const ms = weeks ? Number(weeks[1]) * WEEK : tryParseDuration(text);
  if (ms === undefined || typeof input !== 'string') {
    return { ok: false, message: `${JSON.stringify(input)} is not a shift: write 1d, 1w or 12h` };
  }
  if (ms < HOUR) return { ok: false, message: 'must be at least 1h (a shift someone can carry)' };
  if (ms > MAX_SHIFT) return { ok: false, message: 'must be at most 4w' };
  if (ms % 60_000 !== 0) return { ok: false, message: 'must be whole minutes' };
  return { ok: true, value: ms };
}

/** `"mon 09:00"` (weekly shifts) or `"09:00"`. */
export function readHandoff(input: unknown): Read<HandoffTime> {
  const problem = {
    ok: false as const,
    message: `${JSON.stringify(input)} is not a handoff time: write "09:00", or "mon 09:00" for weekly shifts`,
  };
  if (input === undefined) return { ok: false, message: 'is required: "09:00" or "mon 09:00"' };
  if (typeof input !== 'string') return problem;
  const match = /^(?:([a-z]{3})\s+)?(\S+)$/i.exec(input.trim());
  if (match === null) return problem;
  const day = match[1]?.toLowerCase();
  if (day !== undefined && !(WEEKDAYS as readonly string[]).includes(day)) {
    return {
      ok: false,
      message: `"${match[1]}" is not a weekday: one of ${WEEKDAYS.join(', ')}`,
    };
  }
  const time = readTimeOfDay(match[2], false);
  if (!time.ok) return problem;
  return {
    ok: true,
    value: { ...(day === undefined ? {} : { weekday: day as Weekday }), minutes: time.value },
  };
}

/** A calendar date, `YYYY-MM-DD` (YAML may hand it over as a Date). */
export function readStartDate(input: unknown): Read<string> {
  if (input === undefined) return { ok: false, message: 'is required: a date such as 2026-11-23' };
  const text =
    input instanceof Date && Number.isFinite(input.getTime())
      ? input.toISOString().slice(0, 10)
      : typeof input === 'string'
        ? input.trim()
        : '';
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [year, month, day] = (match?.slice(1) ?? []).map(Number) as number[];
  const real =
    match !== null &&
    new Date(Date.UTC(year as number, (month as number) - 1, day as number))
      .toISOString()
      .slice(0, 10) === text;
  if (!real) {
    return { ok: false, message: `${JSON.stringify(input)} is not a date: write 2026-11-23` };
  }
  return { ok: true, value: text };
}

const rotationSchema = z.strictObject({
  members: z.array(z.string()).check(z.minLength(1)),
  shift: custom(readShift),
  handoff: custom(readHandoff),
  start: custom(readStartDate),
});

function isRecord(input: unknown): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

function pathOf(section: string, name: string): PropertyKey[] {
  return [section, name];
}

/** `people`: name -> { sms, email }, each with at least one of them. */
export function readPeople(
  raw: unknown,
  issues: ConfigIssue[],
): Record<string, PersonConfig> | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) {
    issues.push({ path: 'people', message: 'must be a mapping of name to { sms, email }' });
    return undefined;
  }
  const people: Record<string, PersonConfig> = {};
  for (const [name, body] of Object.entries(raw)) {
    const base = pathOf('people', name);
    if (!PERSON_NAME.test(name)) {
      issues.push({
        path: formatPath(base),
        message:
          'names are 1 to 64 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit (they route messages)',
      });
    }
    const read = check(personSchema, body ?? {}, base);
    for (const issue of read.issues) issues.push(issue);
    if (read.value === undefined) continue;
    if (read.value.sms === undefined && read.value.email === undefined) {
      issues.push({
        path: formatPath(base),
        message: 'has neither sms nor email: give at least one, or nobody is reached',
      });
      continue;
    }
    people[name] = {
      name,
      ...(read.value.sms === undefined ? {} : { sms: read.value.sms }),
      ...(read.value.email === undefined ? {} : { email: read.value.email }),
    };
  }
  return people;
}

/**
 * `rotations`: each member a person of `people` (named by the file, so a person refused for
 * another reason is not reported again as unknown), none twice; a weekday handoff only for
 * shifts of whole weeks.
 */
export function readRotations(
  raw: unknown,
  personNames: ReadonlySet<string>,
  issues: ConfigIssue[],
): Record<string, RotationConfig> | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) {
    issues.push({
      path: 'rotations',
      message: 'must be a mapping of name to { members, shift, handoff, start }',
    });
    return undefined;
  }
  const rotations: Record<string, RotationConfig> = {};
  for (const [name, body] of Object.entries(raw)) {
    const base = pathOf('rotations', name);
    let ok = true;
    if (!ROTATION_NAME.test(name)) {
      ok = false;
      issues.push({
        path: formatPath(base),
        message: 'names are 1 to 64 of a-z, 0-9 and -, starting with a letter or digit',
      });
    }
    const members = isRecord(body) && Array.isArray(body.members) ? body.members : [];
    const firstAt = new Map<string, number>();
    members.forEach((member: unknown, index) => {
      if (typeof member !== 'string') return;
      const at = formatPath([...base, 'members', index]);
      if (!personNames.has(member)) {
        ok = false;
        const hint = didYouMean(member, personNames);
        const none = personNames.size === 0 ? ' (the file has no people section)' : '';
        issues.push({ path: at, message: `no person named "${member}"${hint}${none}` });
      }
      const first = firstAt.get(member);
      if (first !== undefined) {
        ok = false;
        issues.push({
          path: at,
          message: `lists "${member}" twice (also [${first}]): a member takes one turn a round`,
        });
      } else firstAt.set(member, index);
    });
    const read = check(rotationSchema, body ?? {}, base);
    for (const issue of read.issues) issues.push(issue);
    if (read.value === undefined) continue;
    const { shift, handoff, start } = read.value;
    if (handoff.weekday !== undefined && shift % WEEK !== 0) {
      ok = false;
      issues.push({
        path: formatPath([...base, 'handoff']),
        message: `names a weekday, but the shift is not whole weeks: write "${String(Math.floor(handoff.minutes / 60)).padStart(2, '0')}:${String(handoff.minutes % 60).padStart(2, '0')}" for shorter shifts`,
      });
    }
    if (!ok) continue;
    rotations[name] = { name, members: read.value.members, shiftMs: shift, handoff, start };
  }
  return rotations;
}

/** Each channel's `rotation` names a rotation of the file. */
export function checkChannelRotations(
  channels: Readonly<Record<string, ChannelConfig>>,
  rotationNames: ReadonlySet<string>,
  issues: ConfigIssue[],
): void {
  for (const channel of Object.values(channels)) {
    if (channel.rotation === undefined || rotationNames.has(channel.rotation)) continue;
    const hint = didYouMean(channel.rotation, rotationNames);
    const none = rotationNames.size === 0 ? ' (the file has no rotations section)' : '';
    issues.push({
      path: formatPath(['channels', channel.name, 'rotation']),
      message: `no rotation named "${channel.rotation}"${hint}${none}`,
    });
  }
}
