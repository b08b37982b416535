/*
 * The cold start floor of the functions' architecture: the SDK clients a poller creates and
 * the calls its first run makes, with no engine, rules, Powertools or schemas. `bench/floor.ts`
 * bundles it exactly as the pollers are bundled; its cold start is what any handler built on
 * these clients pays before telealert's own code adds anything.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { clientOptions } from '../../functions/adapters/clients';
import { ENDPOINT_PATHS } from '../../shared/api/types';

/**
 * The variables `bench/aws.ts` gives every measured bundle (`ENV` of functions/runtime.ts,
 * whose module would bring the rules' schemas along).
 */
const CONFIG_FILE = 'TELEALERT_CONFIG_FILE';
const TABLE = 'TELEALERT_TABLE';

/** The answer's text (the bench's simulator is plain http on loopback); refused unless 200. */
function get(url: string, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(body)
          : reject(new Error(`the API answered ${response.statusCode}: ${body.slice(0, 200)}`)),
      );
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** One run of the floor: the token, one live calls answer, the state read and written. */
export async function handler(): Promise<{ failures: number; bytes: number }> {
  const env = process.env;
  const rules = JSON.parse(readFileSync(env[CONFIG_FILE] ?? '', 'utf8')) as {
    api: { baseUrl: string; tokenParameter: string };
  };
  const options = clientOptions();
  const ssm = new SSMClient(options);
  const dynamodb = new DynamoDBClient(options);
  new SNSClient(options);
  const parameter = await ssm.send(
    new GetParameterCommand({ Name: rules.api.tokenParameter, WithDecryption: true }),
  );
  const body = await get(
    `${rules.api.baseUrl}${ENDPOINT_PATHS.live_calls}`,
    parameter.Parameter?.Value ?? '',
  );
  const TableName = env[TABLE];
  const key = { pk: { S: 'floor' }, sk: { S: 'state' } };
  await dynamodb.send(new GetItemCommand({ TableName, Key: key }));
  await dynamodb.send(
    new PutItemCommand({ TableName, Item: { ...key, bytes: { N: String(body.length) } } }),
  );
  return { failures: 0, bytes: body.length };
}
