/** What a secret is replaced by. */
export const REDACTED = '[redacted]';

/**
 * The shortest piece of a secret that is redacted wherever it appears: a server that echoes
 * the header cut short (`Bearer tok_SECRE...`), or one piece of it, still gives away that
 * much. Below this, a secret is redacted only where it stands whole (as in `Bearer abc`):
 * replacing every `e` of a one-letter token would garble the message around it, and a short
 * token's letters inside a word reveal nothing of it.
 */
export const FRAGMENT_CHARS = 8;

/** Characters of a bearer token (RFC 6750 b64token). */
const TOKEN_CHARS = 'A-Za-z0-9._~+/=-';

/** Every whole occurrence of `token`: not next to another token character. */
function wholeToken(token: string): RegExp {
  const escaped = token.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  return new RegExp(`(?<![${TOKEN_CHARS}])${escaped}(?![${TOKEN_CHARS}])`, 'g');
}

/**
 * The ways a server or a library may write a secret back: as it is, URL-encoded (either case
 * of hex, `+` or `%20` for a space), with JSON's `\/`, in base64 (standard and URL-safe, as a
 * Basic header or a debugging echo would).
 */
export function encodingsOf(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  return [
    ...new Set([
      secret,
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
      encoded.replaceAll('%20', '+'),
      encodeURI(secret),
      secret.replaceAll('/', '\\/'),
      base64,
      base64.replace(/=+$/, ''),
      base64.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''),
    ]),
  ];
}

/**
 * Removes secrets from text meant for people and logs (error reasons, causes, stack traces):
 * every encoding of each secret (`encodingsOf`), and any piece of one at least
 * `FRAGMENT_CHARS` long, so a truncated or partial echo is caught as well as a whole one.
 * Overlapping and adjacent pieces become one `[redacted]`.
 */
export class Redactor {
  /** Every `FRAGMENT_CHARS`-long piece of every encoding of the long secrets. */
  readonly #pieces = new Set<string>();
  readonly #short: RegExp[] = [];
  readonly #known = new Set<string>();

  /** Adds a secret (a token, a rotated one); the empty string is ignored. */
  add(secret: string): void {
    if (secret === '' || this.#known.has(secret)) return;
    this.#known.add(secret);
    if (secret.length < FRAGMENT_CHARS) {
      this.#short.push(wholeToken(secret));
      return;
    }
    for (const form of encodingsOf(secret)) {
      for (let start = 0; start + FRAGMENT_CHARS <= form.length; start += 1) {
        this.#pieces.add(form.slice(start, start + FRAGMENT_CHARS));
      }
    }
  }

  /** `text` with every secret, encoding and long-enough piece replaced by `[redacted]`. */
  redact(text: string): string {
    let result = text;
    if (this.#pieces.size > 0 && result.length >= FRAGMENT_CHARS) {
      result = this.#redactPieces(result);
    }
    for (const pattern of this.#short) result = result.replace(pattern, REDACTED);
    return result;
  }

  #redactPieces(text: string): string {
    // Marked characters: each window that is a piece of a secret marks its whole span.
    let out = '';
    let copiedTo = 0;
    let spanStart = -1;
    let spanEnd = -1;
    for (let start = 0; start + FRAGMENT_CHARS <= text.length; start += 1) {
      if (!this.#pieces.has(text.slice(start, start + FRAGMENT_CHARS))) continue;
      if (spanStart >= 0 && start <= spanEnd) {
        spanEnd = start + FRAGMENT_CHARS;
        continue;
      }
      if (spanStart >= 0) {
        out += `${text.slice(copiedTo, spanStart)}${REDACTED}`;
        copiedTo = spanEnd;
      }
      spanStart = start;
      spanEnd = start + FRAGMENT_CHARS;
    }
    if (spanStart < 0) return text;
    out += `${text.slice(copiedTo, spanStart)}${REDACTED}`;
    return out + text.slice(spanEnd);
  }
}
