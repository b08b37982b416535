import { describe, expect, it } from 'vitest';
import { EnvTokenSource } from '../../shared/ports/env-token';
import { TokenUnavailableError } from '../../shared/ports/errors';

describe('Class: EnvTokenSource', () => {
  it('reads the token from TELEALERT_TOKEN on every get', async () => {
    const env: NodeJS.ProcessEnv = { TELEALERT_TOKEN: 'first' };
    const tokens = new EnvTokenSource(env);
    expect(await tokens.get()).toBe('first');
    env.TELEALERT_TOKEN = 'second';
    tokens.invalidate();
    expect(await tokens.get()).toBe('second');
  });

  it('throws a TokenUnavailableError telling what to set when the variable is empty', async () => {
    await expect(new EnvTokenSource({ TELEALERT_TOKEN: ' ' }).get()).rejects.toThrow(
      new TokenUnavailableError(
        'no API token: set the environment variable TELEALERT_TOKEN to the bearer token',
      ),
    );
  });
});
