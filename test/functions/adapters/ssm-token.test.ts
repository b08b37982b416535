import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SsmTokenSource } from '../../../functions/adapters/ssm-token';
import { TokenUnavailableError } from '../../../shared/ports/errors';

const ssm = mockClient(SSMClient);
afterEach(() => ssm.reset());

function source(now?: () => number) {
  return new SsmTokenSource({
    client: new SSMClient({ region: 'us-east-1' }),
    parameterName: '/telealert/api-token',
    ...(now ? { now } : {}),
  });
}

function answer(value: string) {
  return {
    Parameter: { Name: '/telealert/api-token', Value: value, Type: 'SecureString' as const },
  };
}

describe('Class: SsmTokenSource', () => {
  it('fetches the SecureString with decryption once and reuses it', async () => {
    ssm.on(GetParameterCommand).resolves(answer('token-1'));
    const tokens = source();
    expect([await tokens.get(), await tokens.get()]).toEqual(['token-1', 'token-1']);
    const calls = ssm.commandCalls(GetParameterCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({ Name: '/telealert/api-token', WithDecryption: true });
  });

  it('reads SSM again once the token is older than maxAgeSeconds (15 minutes by default)', async () => {
    ssm.on(GetParameterCommand).resolvesOnce(answer('old')).resolves(answer('rotated'));
    let clock = 1_000_000;
    const tokens = source(() => clock);
    expect(await tokens.get()).toBe('old');
    clock += 15 * 60_000 - 1;
    expect(await tokens.get()).toBe('old');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
    clock += 1;
    expect(await tokens.get()).toBe('rotated');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('makes one SSM request for gets that overlap (the early fetch and the client)', async () => {
    ssm.on(GetParameterCommand).resolves(answer('token-1'));
    const tokens = source();
    expect(await Promise.all([tokens.get(), tokens.get()])).toEqual(['token-1', 'token-1']);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
  });

  it('keeps an invalidate that arrives while a cached read is under way', async () => {
    ssm.on(GetParameterCommand).resolvesOnce(answer('old')).resolves(answer('rotated'));
    const tokens = source();
    const first = tokens.get();
    tokens.invalidate();
    expect(await first).toBe('old');
    expect(await tokens.get()).toBe('rotated');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('never caches the token of a read started before invalidate over the one read after', async () => {
    let release: (value: ReturnType<typeof answer>) => void = () => {};
    ssm
      .on(GetParameterCommand)
      .callsFakeOnce(() => new Promise((resolve) => (release = resolve)))
      .resolves(answer('rotated'));
    const tokens = source();
    const stale = tokens.get();
    tokens.invalidate();
    expect(await tokens.get()).toBe('rotated');
    release(answer('rejected'));
    expect(await stale).toBe('rejected');
    expect(await tokens.get()).toBe('rotated');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('fetches afresh after invalidate, then caches again', async () => {
    ssm.on(GetParameterCommand).resolvesOnce(answer('old')).resolves(answer('rotated'));
    const tokens = source();
    expect(await tokens.get()).toBe('old');
    tokens.invalidate();
    expect(await tokens.get()).toBe('rotated');
    expect(await tokens.get()).toBe('rotated');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('never serves the rejected token again, even when the read after invalidate fails', async () => {
    ssm
      .on(GetParameterCommand)
      .resolvesOnce(answer('rejected'))
      .resolvesOnce(answer(''))
      .resolves(answer('rotated'));
    const tokens = source();
    expect(await tokens.get()).toBe('rejected');
    tokens.invalidate();
    await expect(tokens.get()).rejects.toThrow(TokenUnavailableError);
    expect(await tokens.get()).toBe('rotated');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(3);
  });

  it('throws a TokenUnavailableError naming the parameter when SSM is down, and retries next time', async () => {
    ssm
      .on(GetParameterCommand)
      .rejectsOnce(Object.assign(new Error('Service Unavailable'), { name: 'InternalServerError' }))
      .resolves(answer('token-1'));
    const tokens = source();
    const failure = await tokens.get().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TokenUnavailableError);
    expect((failure as Error).message).toBe(
      'cannot read the API token from SSM parameter /telealert/api-token: InternalServerError: Service Unavailable',
    );
    expect(await tokens.get()).toBe('token-1');
  });

  it('refuses an empty parameter with what to store in it, and reads it again next time', async () => {
    ssm.on(GetParameterCommand).resolvesOnce(answer(' ')).resolves(answer('token-1'));
    const tokens = source();
    await expect(tokens.get()).rejects.toThrow(
      'the SSM parameter /telealert/api-token is empty: store the API',
    );
    expect(await tokens.get()).toBe('token-1');
  });
});
