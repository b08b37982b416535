import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config/errors';
import { parseConfig } from '../../shared/config/load';
import { configWarnings } from '../../shared/config/warnings';

const HEAD = `
api: { baseUrl: https://api.example.com, tokenParameter: /telealert/api-token }
rules: []
`;

function errorsOf(text: string): string[] {
  try {
    parseConfig(`${HEAD}${text}`, 'telealert.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('expected a ConfigError');
}

const PEOPLE = `
people:
  asha:  { sms: "+919800000001", email: asha@example.com }
  ravi:  { sms: "+919800000002", email: ravi@example.com }
  meera: { sms: "+919800000003" }
`;

describe('Function: parseConfig (people, rotations)', () => {
  it('reads people, a weekly rotation and a channel paging it beside a fixed email list', () => {
    const config = parseConfig(
      `${HEAD}${PEOPLE}
rotations:
  primary:
    members: [asha, ravi, meera]
    shift: 1w
    handoff: "mon 09:00"
    start: "2026-11-23"
channels:
  oncall:
    rotation: primary
    email: [ops-list@example.com]
`,
      'telealert.yaml',
    );
    expect(config.people?.meera).toEqual({ name: 'meera', sms: '+919800000003' });
    expect(config.rotations?.primary).toEqual({
      name: 'primary',
      members: ['asha', 'ravi', 'meera'],
      shiftMs: 7 * 86_400_000,
      handoff: { weekday: 'mon', minutes: 540 },
      start: '2026-11-23',
    });
    expect(config.channels.oncall).toMatchObject({
      rotation: 'primary',
      sms: [],
      email: ['ops-list@example.com'],
    });
  });

  it('reads a daily handoff, a 12h shift and an unquoted start date', () => {
    const config = parseConfig(
      `${HEAD}${PEOPLE}
rotations:
  days: { members: [asha], shift: 1d, handoff: "09:00", start: 2026-11-23 }
  halves: { members: [asha, ravi], shift: 12h, handoff: "08:30", start: "2026-11-23" }
channels:
  oncall: { rotation: days, email: [ops@example.com] }
`,
      'telealert.yaml',
    );
    expect(config.rotations?.days?.handoff).toEqual({ minutes: 540 });
    expect(config.rotations?.days?.start).toBe('2026-11-23');
    expect(config.rotations?.halves?.shiftMs).toBe(12 * 3_600_000);
  });

  it('leaves people and rotations out when the file has none', () => {
    const config = parseConfig(`${HEAD}channels: { oncall: { email: [a@example.com] } }`, 'f');
    expect(config).not.toHaveProperty('people');
    expect(config).not.toHaveProperty('rotations');
    expect(config.channels.oncall).not.toHaveProperty('rotation');
  });

  it('names every problem at once: unknown person or rotation, no way to reach, bad handoff, a member twice, short shift, bad date', () => {
    expect(
      errorsOf(`
people:
  asha: { sms: "+919800000001" }
  ravi: {}
  nobody: { email: not-an-address }
rotations:
  primary:
    members: [asha, ravi, asha, ashaa]
    shift: 30m
    handoff: "mon 9am"
    start: "2026-02-30"
  daily:
    members: [asha]
    shift: 1d
    handoff: "mon 09:00"
    start: "2026-11-23"
channels:
  oncall: { rotation: primar, email: [ops@example.com] }
  other: { rotation: secondary, email: [ops@example.com] }
`),
    ).toEqual([
      'telealert.yaml: people.ravi: has neither sms nor email: give at least one, or nobody is reached',
      'telealert.yaml: people.nobody.email: "not-an-address" is not an email address',
      'telealert.yaml: rotations.primary.members[2]: lists "asha" twice (also [0]): a member takes one turn a round',
      'telealert.yaml: rotations.primary.members[3]: no person named "ashaa"; did you mean "asha"?',
      'telealert.yaml: rotations.primary.shift: must be at least 1h (a shift someone can carry)',
      'telealert.yaml: rotations.primary.handoff: "mon 9am" is not a handoff time: write "09:00", or "mon 09:00" for weekly shifts',
      'telealert.yaml: rotations.primary.start: "2026-02-30" is not a date: write 2026-11-23',
      'telealert.yaml: rotations.daily.handoff: names a weekday, but the shift is not whole weeks: write "09:00" for shorter shifts',
      'telealert.yaml: channels.oncall.rotation: no rotation named "primar"; did you mean "primary"?',
      'telealert.yaml: channels.other.rotation: no rotation named "secondary"',
    ]);
  });

  it('refuses a rotation when the file has no people, and a channel rotation with no rotations', () => {
    expect(
      errorsOf(`
rotations:
  primary: { members: [asha], shift: 1w, handoff: "mon 09:00", start: "2026-11-23" }
channels:
  oncall: { rotation: primary, email: [ops@example.com] }
  spare: { rotation: nothing, email: [ops@example.com] }
`),
    ).toEqual([
      'telealert.yaml: rotations.primary.members[0]: no person named "asha" (the file has no people section)',
      'telealert.yaml: channels.spare.rotation: no rotation named "nothing"',
    ]);
  });

  it('refuses unknown keys, a weekday that is not one, and a person name that cannot route', () => {
    expect(
      errorsOf(`
people:
  Asha Rao: { sms: "+919800000001", phone: "+919800000001" }
rotations:
  primary: { members: [Asha Rao], shift: 1w, handoff: "mun 09:00", start: "2026-11-23", layers: 2 }
channels:
  oncall: { rotation: primary, email: [ops@example.com] }
`),
    ).toEqual([
      'telealert.yaml: people["Asha Rao"]: names are 1 to 64 of a-z, 0-9, ".", "_" and "-", starting with a letter or digit (they route messages)',
      'telealert.yaml: people["Asha Rao"].phone: unknown key',
      'telealert.yaml: rotations.primary.handoff: "mun" is not a weekday: one of sun, mon, tue, wed, thu, fri, sat',
      'telealert.yaml: rotations.primary.layers: unknown key',
    ]);
  });

  it('refuses a shift that is not a duration and one longer than 4 weeks', () => {
    expect(
      errorsOf(`${PEOPLE}
rotations:
  a: { members: [asha], shift: weekly, handoff: "09:00", start: "2026-11-23" }
  b: { members: [asha], shift: 5w, handoff: "mon 09:00", start: "2026-11-23" }
channels:
  oncall: { rotation: a, email: [ops@example.com] }
`),
    ).toEqual([
      'telealert.yaml: rotations.a.shift: "weekly" is not a shift: write 1d, 1w or 12h',
      'telealert.yaml: rotations.b.shift: must be at most 4w',
    ]);
  });
});

describe('a channel with a rotation', () => {
  const ROTATION = `${HEAD}${PEOPLE}
rotations:
  primary: { members: [asha, ravi], shift: 1w, handoff: "mon 09:00", start: "2026-11-23" }
`;

  it('accepts a rotation alone, without a warning: its messages reach the person on call', () => {
    const config = parseConfig(
      `${ROTATION}channels:\n  oncall: { rotation: primary }\n`,
      'telealert.yaml',
    );
    expect(config.channels.oncall?.rotation).toBe('primary');
    expect(configWarnings(config)).toEqual([]);
  });
});
