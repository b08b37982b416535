import fc from 'fast-check';

/**
 * Random timelines for the reference-model property: a rules file (and, mid-way, a second
 * one), a world of calls and payments that match rules for a while, people's actions, and the
 * notifier's clock (a tick a minute, with a gap for an outage). Every time is on the minute
 * grid, so the deployed notifier's minute ticks and replay's due times meet.
 */

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** Saturday 2026-11-21 07:00 IST: a few hours cross the active windows drawn below. */
export const START = Date.parse('2026-11-21T07:00:00+05:30');

/** What the generator may draw; the property names those it leaves out and why. */
export const FEATURES = [
  'critical',
  'repeat',
  'resolvedFalse',
  'refire',
  'regroup',
  'payments',
  'grouping',
  'smallCap',
  'minSeverity',
  'activeHours',
  'escalation',
  'silences',
  'silenceLabel',
  'ackCli',
  'ackCall',
  'rulesChange',
  'channelChange',
  'outage',
] as const;
export type Feature = (typeof FEATURES)[number];

export const CHANNELS = ['oncall', 'finance', 'managers'] as const;
export type ChannelName = (typeof CHANNELS)[number];
export const PHONES: Record<ChannelName, string> = {
  oncall: '+919800000001',
  finance: '+919800000002',
  managers: '+919800000003',
};
export const ACK_DID = '+918000000099';
/** The calls each live-calls rule matches, by `did`; payments match by amount. */
export const RULE_DIDS = { ring: '+918000000001', stuck: '+918000000002' } as const;
export const RULES = ['ring', 'stuck', 'big-pay'] as const;
export type RuleName = (typeof RULES)[number];

export interface ChannelSpec {
  readonly sms: boolean;
  readonly by: readonly string[];
  readonly waitMin: number;
  readonly intervalMin: number;
  readonly smsPerHour: number;
  readonly minSeverity?: 'warning' | 'critical';
  /** Local hours, every day. */
  readonly active?: { readonly from: number; readonly to: number };
}

export interface RuleSpec {
  readonly name: string;
  readonly match: RuleName;
  readonly severity: 'info' | 'warning' | 'critical';
  readonly repeatMin?: number;
  readonly resolved: boolean;
  readonly notify: readonly string[];
  readonly escalate?: readonly { readonly afterMin: number; readonly notify: readonly string[] }[];
}

export interface RulesFile {
  readonly channels: Readonly<Record<string, ChannelSpec>>;
  readonly rules: readonly RuleSpec[];
  readonly ack: boolean;
}

/** One record that matches its rule during the minutes [from, to). */
export interface Spell {
  readonly rule: RuleName;
  readonly id: string;
  readonly from: number;
  readonly to: number;
}

export type Action =
  | {
      readonly at: number;
      readonly kind: 'silence';
      readonly matchers: Readonly<Record<string, string>>;
      readonly forMin: number;
    }
  | { readonly at: number; readonly kind: 'expire'; readonly silence: number }
  | { readonly at: number; readonly kind: 'ack'; readonly rule: RuleName; readonly id: string }
  | { readonly at: number; readonly kind: 'call'; readonly from: ChannelName | 'stranger' };

export interface Timeline {
  readonly features: readonly Feature[];
  readonly first: RulesFile;
  /** A second rules file from minute `at`. */
  readonly change?: { readonly at: number; readonly file: RulesFile };
  readonly spells: readonly Spell[];
  /** In time order. */
  readonly actions: readonly Action[];
  /** The notifier does not run during [from, to) (minutes). */
  readonly outage?: { readonly from: number; readonly to: number };
  /** Minutes the timeline spans. */
  readonly minutes: number;
}

const SEVERITY = (on: ReadonlySet<Feature>) =>
  on.has('critical')
    ? fc.constantFrom('info' as const, 'warning' as const, 'critical' as const)
    : fc.constantFrom('info' as const, 'warning' as const);

function channelArb(on: ReadonlySet<Feature>, name: ChannelName): fc.Arbitrary<ChannelSpec> {
  return fc
    .record({
      sms: name === 'oncall' ? fc.constant(true) : fc.boolean(),
      by: on.has('grouping')
        ? fc.subarray(['rule', 'severity', 'source', 'call_id'], { minLength: 1 })
        : fc.constant(['rule']),
      waitMin: on.has('grouping') ? fc.constantFrom(0, 0, 1, 2) : fc.constant(0),
      intervalMin: on.has('grouping') ? fc.constantFrom(1, 5, 5, 10) : fc.constant(5),
      smsPerHour: on.has('smallCap') ? fc.integer({ min: 1, max: 3 }) : fc.constant(20),
      minSeverity: on.has('minSeverity')
        ? fc.option(fc.constantFrom('warning' as const, 'critical' as const), { nil: undefined })
        : fc.constant(undefined),
      active: on.has('activeHours')
        ? fc.option(
            fc
              .record({
                from: fc.integer({ min: 0, max: 23 }),
                to: fc.integer({ min: 1, max: 24 }),
              })
              .filter((hours) => hours.from !== hours.to),
            { nil: undefined, freq: 2 },
          )
        : fc.constant(undefined),
    })
    .map(({ minSeverity, active, ...rest }) => ({
      ...rest,
      ...(minSeverity === undefined ? {} : { minSeverity }),
      ...(active === undefined ? {} : { active }),
    }));
}

function ruleArb(
  on: ReadonlySet<Feature>,
  match: RuleName,
  name: string,
  channels: readonly string[],
): fc.Arbitrary<RuleSpec> {
  const stepArb = fc.record({
    afterMin: fc.integer({ min: 1, max: 20 }),
    notify: fc.subarray([...channels], { minLength: 1 }),
  });
  return fc
    .record({
      severity: SEVERITY(on),
      repeatMin: on.has('repeat')
        ? fc.option(fc.constantFrom(5, 15), { nil: undefined })
        : fc.constant(undefined),
      resolved: on.has('resolvedFalse') ? fc.boolean() : fc.constant(true),
      notify: fc.subarray([...channels], { minLength: 1 }),
      escalate: on.has('escalation')
        ? fc.option(fc.array(stepArb, { minLength: 1, maxLength: 2 }), { nil: undefined })
        : fc.constant(undefined),
    })
    .map(({ repeatMin, escalate, resolved, ...rest }) => ({
      name,
      match,
      ...rest,
      // An escalation stops when the alert resolves: `validate` wants such a rule to tell it.
      resolved: resolved || escalate !== undefined,
      ...(repeatMin === undefined ? {} : { repeatMin }),
      ...(escalate === undefined
        ? {}
        : {
            escalate: escalate
              .map((step, index) => ({ ...step, afterMin: step.afterMin + index * 20 }))
              .sort((a, b) => a.afterMin - b.afterMin),
          }),
    }));
}

function rulesFileArb(on: ReadonlySet<Feature>, names: readonly string[]): fc.Arbitrary<RulesFile> {
  const matches: RuleName[] = on.has('payments') ? [...RULES] : ['ring', 'stuck'];
  return fc
    .tuple(
      fc.tuple(...names.map((name) => channelArb(on, name as ChannelName))),
      fc.tuple(...matches.map((match) => ruleArb(on, match, match, names))),
    )
    .map(([specs, rules]) => ({
      channels: Object.fromEntries(names.map((name, index) => [name, specs[index] as ChannelSpec])),
      rules,
      ack: on.has('ackCall'),
    }));
}

/** The second file: the same with one change a team makes while alerts fire. */
function changedArb(on: ReadonlySet<Feature>, first: RulesFile): fc.Arbitrary<RulesFile> {
  const options: fc.Arbitrary<RulesFile>[] = [];
  if (on.has('rulesChange')) {
    options.push(
      fc.constantFrom(...first.rules.map((rule) => rule.name)).map((gone) => ({
        ...first,
        rules: first.rules.filter((rule) => rule.name !== gone),
      })),
      fc.constantFrom(...first.rules.map((rule) => rule.name)).map((renamed) => ({
        ...first,
        rules: first.rules.map((rule) =>
          rule.name === renamed ? { ...rule, name: `${rule.name}-v2` } : rule,
        ),
      })),
      SEVERITY(on).map((severity) => ({
        ...first,
        rules: first.rules.map((rule, index) => (index === 0 ? { ...rule, severity } : rule)),
      })),
    );
  }
  if (on.has('channelChange')) {
    // finance renamed: the rules and steps that named it name the new one.
    const rename = (list: readonly string[]) =>
      list.map((name) => (name === 'finance' ? 'finance-team' : name));
    const { finance, ...rest } = first.channels;
    if (finance !== undefined) {
      options.push(
        fc.constant({
          ...first,
          channels: { ...rest, 'finance-team': finance },
          rules: first.rules.map((rule) => ({
            ...rule,
            notify: rename(rule.notify),
            ...(rule.escalate === undefined
              ? {}
              : {
                  escalate: rule.escalate.map((step) => ({ ...step, notify: rename(step.notify) })),
                }),
          })),
        }),
      );
    }
  }
  return options.length === 0 ? fc.constant(first) : fc.oneof(...options);
}

function spellsArb(on: ReadonlySet<Feature>, minutes: number): fc.Arbitrary<Spell[]> {
  const matches: RuleName[] = on.has('payments') ? [...RULES] : ['ring', 'stuck'];
  const one = fc
    .record({
      rule: fc.constantFrom(...matches),
      id: fc.constantFrom('a', 'b', 'c'),
      from: fc.integer({ min: 0, max: minutes - 2 }),
      length: fc.integer({ min: 1, max: 45 }),
    })
    .map(({ rule, id, from, length }) => ({
      rule,
      id,
      // Payments are polled every 5 minutes: their spells start and end on those polls.
      from: rule === 'big-pay' ? from - (from % 5) : from,
      to: Math.min(
        minutes,
        rule === 'big-pay' ? from - (from % 5) + 5 * Math.ceil(length / 5) : from + length,
      ),
    }));
  return fc.array(one, { minLength: 1, maxLength: 8 }).map((spells) => {
    // One record's spells do not overlap; without `refire`, each record matches once.
    const kept: Spell[] = [];
    for (const spell of spells.sort((a, b) => a.from - b.from)) {
      const same = kept.filter((other) => other.rule === spell.rule && other.id === spell.id);
      if (same.length > 0 && !on.has('refire')) continue;
      if (same.some((other) => spell.from < other.to + 1)) continue;
      // Without `regroup`, no alert starts soon after one ended: a group a resolution just
      // emptied never meets a newcomer (its resolution may wait `wait` and an interval).
      const soon = (other: Spell) => other.to <= spell.from && spell.from < other.to + 25;
      if (!on.has('regroup') && kept.some(soon)) continue;
      kept.push(spell);
    }
    return kept;
  });
}

function actionsArb(on: ReadonlySet<Feature>, minutes: number): fc.Arbitrary<Action[]> {
  const at = fc.integer({ min: 1, max: minutes - 1 });
  const kinds: fc.Arbitrary<Action>[] = [];
  if (on.has('silences')) {
    const matchers = on.has('silenceLabel')
      ? fc.oneof(
          fc.constantFrom(...RULES).map((rule) => ({ rule })),
          fc.constantFrom('warning', 'critical').map((severity) => ({ severity })),
          // Call ids as the rules read text: `RB` is the alert `rb` (contract 6.1 rule 5).
          fc.constantFrom('ra', 'RB', 'sa').map((id) => ({ call_id: id })),
        )
      : fc.oneof(
          fc.constantFrom(...RULES).map((rule) => ({ rule })),
          fc.constantFrom('warning', 'critical').map((severity) => ({ severity })),
        );
    kinds.push(
      fc.record({
        at,
        kind: fc.constant('silence' as const),
        matchers,
        forMin: fc.integer({ min: 1, max: 60 }),
      }),
      fc.record({ at, kind: fc.constant('expire' as const), silence: fc.nat(3) }),
    );
  }
  if (on.has('ackCli')) {
    kinds.push(
      fc.record({
        at,
        kind: fc.constant('ack' as const),
        rule: fc.constantFrom('ring' as const, 'stuck' as const),
        id: fc.constantFrom('a', 'b', 'c'),
      }),
    );
  }
  if (on.has('ackCall')) {
    kinds.push(
      fc.record({
        at,
        kind: fc.constant('call' as const),
        from: fc.constantFrom('oncall' as const, 'managers' as const, 'stranger' as const),
      }),
    );
  }
  if (kinds.length === 0) return fc.constant([]);
  return fc
    .array(fc.oneof(...kinds), { maxLength: 8 })
    .map((actions) => actions.sort((a, b) => a.at - b.at));
}

/** Timelines drawing only the features `on`. */
export function timelineArb(on: ReadonlySet<Feature>): fc.Arbitrary<Timeline> {
  return fc.integer({ min: 30, max: 150 }).chain((minutes) =>
    fc
      .record({
        first: rulesFileArb(on, CHANNELS),
        spells: spellsArb(on, minutes),
        actions: actionsArb(on, minutes),
        changeAt:
          on.has('rulesChange') || on.has('channelChange')
            ? fc.option(fc.integer({ min: 5, max: minutes - 5 }), { nil: undefined })
            : fc.constant(undefined),
        outage: on.has('outage')
          ? fc.option(
              fc
                .record({
                  from: fc.integer({ min: 2, max: minutes - 10 }),
                  length: fc.integer({ min: 2, max: 90 }),
                })
                .map(({ from, length }) => ({ from, to: Math.min(minutes - 1, from + length) })),
              { nil: undefined },
            )
          : fc.constant(undefined),
      })
      .chain(({ first, changeAt, ...rest }) =>
        (changeAt === undefined ? fc.constant(undefined) : changedArb(on, first)).map(
          (file): Timeline => ({
            features: [...on],
            first,
            ...(file === undefined || changeAt === undefined
              ? {}
              : { change: { at: changeAt, file } }),
            ...rest,
            ...(rest.outage === undefined ? {} : { outage: rest.outage }),
            minutes,
          }),
        ),
      ),
  );
}
