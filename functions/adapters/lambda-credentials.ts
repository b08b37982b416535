import { RuntimeConfigError } from './errors';

/** What the SDK's signer takes from a credential provider. */
export interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/**
 * The SDK's default credential chain as the bundles see it: `infra/poller.ts` aliases
 * `@aws-sdk/credential-provider-node` to this module at bundling time. Lambda always puts the
 * role's credentials in the environment, so the chain's SSO, ini-file, process, web-identity and
 * instance-metadata links (and the STS/SSO clients they carry, about 90 KB) are never reached
 * there; only the environment link is kept. Same export name and call shape as the SDK's
 * `defaultProvider(init)`, which the clients' runtime config calls.
 *
 * Limit: a Lambda that hands out credentials through a container endpoint instead of the
 * environment (SnapStart does, on the runtimes that offer it; Node.js runtimes do not) would
 * fail here with a clear error; build with `bundleAwsSdk: false` there, or restore the chain.
 */
export function defaultProvider(
  _init: unknown = {},
  env: NodeJS.ProcessEnv = process.env,
): () => Promise<EnvCredentials> {
  return async () => {
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) {
      throw new RuntimeConfigError(
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set: the bundled functions take ' +
          "credentials from the environment only, as Lambda provides the role's credentials",
      );
    }
    const expiry = env.AWS_CREDENTIAL_EXPIRATION;
    return {
      accessKeyId,
      secretAccessKey,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
      ...(expiry ? { expiration: new Date(expiry) } : {}),
    };
  };
}
