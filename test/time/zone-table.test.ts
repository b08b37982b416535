import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ZoneTable } from '../../shared/time/zone';

type ZoneModule = typeof import('../../shared/time/zone');

/** A fresh `shared/time` (empty caches, no table), as a new process has it. */
async function freshZone(): Promise<ZoneModule> {
  vi.resetModules();
  return import('../../shared/time/zone');
}

const realDateTimeFormat = Intl.DateTimeFormat;

/** Makes any `Intl.DateTimeFormat` throw until `afterEach`: what answers then used no ICU. */
function forbidIntl(): void {
  Intl.DateTimeFormat = (() => {
    throw new Error('Intl.DateTimeFormat was used');
  }) as unknown as typeof Intl.DateTimeFormat;
}

afterEach(() => {
  Intl.DateTimeFormat = realDateTimeFormat;
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Zones and the years their table covers: no DST, DST, a half-hour DST, and two whose rules
 * changed inside the range (São Paulo dropped DST in 2019; Volgograd moved to +04 in 2018 and
 * back to +03 in 2020).
 */
const CASES: readonly [string, number, number][] = [
  ['Asia/Kolkata', 2024, 2037],
  ['America/New_York', 2024, 2037],
  ['Australia/Lord_Howe', 2024, 2037],
  ['Europe/London', 2024, 2037],
  ['America/Sao_Paulo', 2016, 2022],
  ['Europe/Volgograd', 2016, 2022],
];

describe('Function: zoneTable', () => {
  it.each(CASES)('answers %s as Intl does, without Intl, in its range', async (zone, from, to) => {
    const intl = await freshZone();
    const fromMs = Date.UTC(from, 0, 1);
    const toMs = Date.UTC(to, 0, 1);
    const table: ZoneTable = JSON.parse(JSON.stringify(intl.zoneTable(zone, fromMs, toMs)));
    // Two days in from the ends: reading a local time looks at the offsets a day either side,
    // which past the ends Intl answers (the test below).
    const [low, high] = [fromMs + 2 * DAY_MS, toMs - 2 * DAY_MS];
    const instant = fc.oneof(
      fc.integer({ min: low, max: high }),
      // Near each change, where an off-by-one would show.
      fc
        .constantFrom(...table.starts)
        .chain((start) => fc.integer({ min: start - 2 * HOUR_MS, max: start + 2 * HOUR_MS }))
        .map((ms) => Math.min(Math.max(ms, low), high)),
    );
    const samples = fc.sample(instant, { numRuns: 400, seed: 18 });
    // Local wall-clock times read as UTC, gaps and overlaps among them.
    const locals = samples.map((ms) => ms + intl.zoneOffsetMs(ms, zone) + (ms % 7) * 600_000);
    const answers = (time: ZoneModule) => ({
      offsets: samples.map((ms) => time.zoneOffsetMs(ms, zone)),
      shown: samples.map((ms) => time.formatInZone(ms, zone)),
      read: samples.map((ms) => time.parseApiTimestamp(time.formatApiDateTime(ms, zone), zone)),
      resolved: locals.map((local) => {
        const at = new Date(local);
        return time.zonedTimeToEpoch(
          zone,
          at.getUTCFullYear(),
          at.getUTCMonth() + 1,
          at.getUTCDate(),
          at.getUTCHours(),
          at.getUTCMinutes(),
        );
      }),
    });
    const expected = answers(intl);

    const tabled = await freshZone();
    tabled.useZoneTable(table);
    forbidIntl();
    expect(() => tabled.assertTimeZone(zone)).not.toThrow();
    expect(answers(tabled)).toEqual(expected);
  });

  it('finds each change to the second, as many as Intl has', async () => {
    const intl = await freshZone();
    const table = intl.zoneTable('America/New_York', Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1));
    // 2026-03-08 02:00 EST and 2026-11-01 02:00 EDT.
    expect(table.starts).toEqual([
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 2, 8, 7),
      Date.UTC(2026, 10, 1, 6),
    ]);
    expect(table.offsets).toEqual([-5 * HOUR_MS, -4 * HOUR_MS, -5 * HOUR_MS]);
    expect(table.names).toEqual(['EST', 'EDT', 'EST']);
  });

  it('leaves instants outside its range to Intl', async () => {
    const intl = await freshZone();
    const outside = Date.UTC(2040, 6, 1);
    const expected = intl.formatInZone(outside, 'America/New_York');
    const tabled = await freshZone();
    tabled.useZoneTable(
      intl.zoneTable('America/New_York', Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)),
    );
    expect(tabled.formatInZone(outside, 'America/New_York')).toBe(expected);
  });
});

describe('Function: readEmbeddedConfig, zone table', () => {
  it('makes the configured zone answer without Intl, as synth shipped it', async () => {
    vi.resetModules();
    const { embedConfig } = await import('../../shared/config/embedded');
    const { parseConfig } = await import('../../shared/config/load');
    // The shipped rules, in a zone with DST.
    const rules = readFileSync('telealert.yaml', 'utf8').replace(
      /^timezone: .*$/m,
      'timezone: America/New_York',
    );
    expect(rules).toContain('timezone: America/New_York');
    const { text, digest } = embedConfig(parseConfig(rules, 'telealert.yaml'), 2026);
    const file = join(
      mkdtempSync(join(tmpdir(), 'telealert-zone-table-')),
      'telealert.config.json',
    );
    writeFileSync(file, text);

    vi.resetModules();
    const embedded = await import('../../shared/config/embedded');
    const time = await import('../../shared/time/zone');
    const config = embedded.readEmbeddedConfig(file, digest);
    forbidIntl();
    const at = time.parseApiTimestamp('2026-07-04 09:30:00', config.timezone);
    expect(at).toBe(Date.UTC(2026, 6, 4, 13, 30));
    expect(time.formatInZone(at ?? 0, config.timezone)).toBe('2026-07-04 09:30:00 EDT');
    // Synth's year - 2 to the end of its year + 10.
    expect(time.formatInZone(Date.UTC(2036, 11, 31), config.timezone)).toBe(
      '2036-12-30 19:00:00 EST',
    );
  });

  it('makes the zone of a config TELEALERT_CONFIG_FILE names answer without Intl alike', async () => {
    vi.resetModules();
    const { writeEmbeddedConfig } = await import('../../shared/config/embedded');
    const { parseConfig } = await import('../../shared/config/load');
    const rules = readFileSync('telealert.yaml', 'utf8').replace(
      /^timezone: .*$/m,
      'timezone: America/New_York',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'telealert-zone-table-')), 'override.json');
    writeEmbeddedConfig(file, parseConfig(rules, 'telealert.yaml'), 2026);

    vi.resetModules();
    const embedded = await import('../../shared/config/embedded');
    const time = await import('../../shared/time/zone');
    const config = embedded.readConfigOverride(file);
    forbidIntl();
    expect(config.timezone).toBe('America/New_York');
    const at = time.parseApiTimestamp('2026-07-04 09:30:00', config.timezone);
    expect(time.formatInZone(at ?? 0, config.timezone)).toBe('2026-07-04 09:30:00 EDT');
  });
});
