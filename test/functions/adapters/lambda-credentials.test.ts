import { describe, expect, it } from 'vitest';
import { RuntimeConfigError } from '../../../functions/adapters/errors';
import { defaultProvider } from '../../../functions/adapters/lambda-credentials';

describe('Function: defaultProvider', () => {
  it("reads the role's session credentials Lambda puts in the environment", async () => {
    const provider = defaultProvider(
      {},
      {
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
        AWS_SESSION_TOKEN: 'session',
        AWS_CREDENTIAL_EXPIRATION: '2026-11-21T12:00:00Z',
      },
    );
    expect(await provider()).toEqual({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
      expiration: new Date('2026-11-21T12:00:00Z'),
    });
  });

  it('leaves the session token out when the keys are static', async () => {
    const provider = defaultProvider({}, { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' });
    expect(await provider()).toEqual({ accessKeyId: 'a', secretAccessKey: 'b' });
  });

  it('refuses with what to set when the environment has no keys', async () => {
    const provider = defaultProvider({}, { AWS_ACCESS_KEY_ID: 'a' });
    await expect(provider()).rejects.toThrow(RuntimeConfigError);
    await expect(provider()).rejects.toThrow(/AWS_SECRET_ACCESS_KEY are not set/);
  });
});
