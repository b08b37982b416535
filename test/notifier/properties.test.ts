import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsOneSegment } from '../../shared/messages/gsm7';
import { MESSAGE_BODY_LIMIT, publishedBytes } from '../../shared/notifier/bodies';
import { configArb, drive, HOUR, stepArb } from './streams';

const PROPERTY_RUNS = { numRuns: 300 };

describe('Property: the notifier over random event streams and clocks', () => {
  it('delivers every event to each of its channels in exactly one message or digest, or folded into another event its alert\u2019s line delivers', () => {
    fc.assert(
      fc.property(
        configArb,
        fc.array(stepArb(['a', 'b']), { maxLength: 25 }),
        fc.constantFrom(0, 3, 20, Number.POSITIVE_INFINITY),
        (cfg, steps, foldAbove) => {
          const { events, outbound, finalDue } = drive(cfg, steps, { foldAbove });
          expect(finalDue).toBeUndefined();
          const keyOf = new Map(events.map((event) => [event.id, event.key]));
          for (const channel of Object.keys(cfg.channels)) {
            const mine = outbound.filter((item) => item.message.channel === channel);
            // Per alert: the events its messages deliver, counting those folded into them.
            const told = new Map<string, number>();
            for (const item of mine) {
              for (const id of item.delivers) {
                const key = keyOf.get(id) ?? '';
                told.set(key, (told.get(key) ?? 0) + 1 + (item.folded?.[id] ?? 0));
              }
            }
            const sent = new Map<string, number>();
            for (const event of events.filter((e) => e.channels.includes(channel))) {
              sent.set(event.key, (sent.get(event.key) ?? 0) + 1);
              const carrying = mine.filter((item) => item.delivers.includes(event.id));
              if (carrying.length === 1) continue;
              expect(carrying, event.id).toHaveLength(0);
              // Folded: a message no earlier than the event delivers a later one of its alert
              // as standing for others, in its alert's line.
              const into = mine.filter(
                (item) =>
                  item.message.at >= event.at &&
                  item.message.alerts.some((alert) => alert.key === event.key) &&
                  Object.keys(item.folded ?? {}).some((id) => keyOf.get(id) === event.key),
              );
              expect(into.length, event.id).toBeGreaterThan(0);
            }
            expect(told).toEqual(sent);
          }
        },
      ),
      PROPERTY_RUNS,
    );
  });

  it('never sends more SMS in a rolling hour than the cap, but for the first page of a critical group', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb(), { maxLength: 25 }), (cfg, steps) => {
        const { outbound } = drive(cfg, steps);
        for (const channel of Object.values(cfg.channels)) {
          const sent = outbound.filter(
            (item) => item.message.channel === channel.name && item.message.sms !== null,
          );
          sent.forEach((item, index) => {
            const atMs = Date.parse(item.message.at);
            const exempt =
              item.message.kind === 'alerts' &&
              item.message.alerts.some((alert) => alert.severity === 'critical');
            if (exempt) return;
            const before = sent
              .slice(0, index)
              .filter((other) => Date.parse(other.message.at) > atMs - HOUR).length;
            expect(before).toBeLessThan(channel.smsPerHour);
          });
        }
      }),
      PROPERTY_RUNS,
    );
  });

  it('keeps every message within the SMS, subject and SNS size limits', () => {
    fc.assert(
      fc.property(configArb, fc.array(stepArb(), { maxLength: 25 }), (cfg, steps) => {
        for (const { message } of drive(cfg, steps).outbound) {
          if (message.sms !== null) expect(fitsOneSegment(message.sms)).toBe(true);
          expect(message.subject.length).toBeLessThan(100);
          expect(message.subject).toMatch(/^[\x20-\x7e]*$/);
          expect(publishedBytes(message)).toBeLessThanOrEqual(MESSAGE_BODY_LIMIT);
          expect(message.alerts.length).toBeGreaterThan(0);
        }
      }),
      PROPERTY_RUNS,
    );
  });
});
