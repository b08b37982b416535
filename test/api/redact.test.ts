import { describe, expect, it } from 'vitest';
import { FRAGMENT_CHARS, Redactor } from '../../shared/api/redact';
import { leakedPieces } from './fakes';

const TOKEN = 'tk/Live+9f3a=Q7x_SECRET';

describe('Class: Redactor', () => {
  const redactor = new Redactor();
  redactor.add(TOKEN);

  it.each([
    ['verbatim', `Bearer ${TOKEN}`],
    ['URL-encoded', `token=${encodeURIComponent(TOKEN)}`],
    ['URL-encoded, lower-case hex', `token=${encodeURIComponent(TOKEN).toLowerCase()}`],
    ['JSON with escaped slashes', JSON.stringify({ auth: TOKEN }).replaceAll('/', '\\/')],
    ['base64', `Basic ${Buffer.from(TOKEN).toString('base64')}`],
    ['truncated', `bad header Bearer ${TOKEN.slice(0, 12)}...`],
    ['a middle piece', `near ${TOKEN.slice(5, 5 + FRAGMENT_CHARS)} here`],
    ['the tail', `...${TOKEN.slice(-FRAGMENT_CHARS)}`],
  ])('leaves no piece of %s', (_name, text) => {
    const redacted = redactor.redact(text);
    expect(leakedPieces(redacted, TOKEN)).toEqual([]);
    expect(redacted).toContain('[redacted]');
  });

  it('makes overlapping and adjacent pieces one [redacted], keeping the words around', () => {
    expect(redactor.redact(`got "${TOKEN}${TOKEN}" from the gateway`)).toBe(
      'got "[redacted]" from the gateway',
    );
  });

  it('keeps text with no piece of a secret as it is, and pieces shorter than the minimum', () => {
    const text = `status 500: ${TOKEN.slice(0, FRAGMENT_CHARS - 1)} timeout`;
    expect(redactor.redact(text)).toBe(text);
  });

  it('redacts a short secret only where it stands whole', () => {
    const short = new Redactor();
    short.add('e');
    expect(short.redact('bad header Bearer e here')).toBe('bad header Bearer [redacted] here');
  });

  it('redacts every secret it was given: the rotated token too', () => {
    const rotating = new Redactor();
    rotating.add('first-token-123456');
    rotating.add('second-token-abcdef');
    expect(rotating.redact('first-token-123456 then second-token-abcdef')).toBe(
      '[redacted] then [redacted]',
    );
  });
});
