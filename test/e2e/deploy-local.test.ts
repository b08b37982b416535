import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = join(REPO_ROOT, 'cli', 'deploy-local', 'main.ts');
let directory: string;

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** The machine's environment without its AWS settings: the rehearsal must need none. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
  return env;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'telealert-deploy-local-test-'));
});

afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('npm run deploy:local', () => {
  it('deploys the shipped rules file on moto, prints what it created and what one run would send, then destroys it', async () => {
    const run = await finished(
      spawn('npm', ['run', '--silent', 'deploy:local', '--', '--config', 'telealert.yaml'], {
        cwd: REPO_ROOT,
        env: environment(),
      }),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain('ok  cdk bootstrap aws://123456789012/us-east-1');
    expect(out).toContain('ok  cdk deploy Telealert');
    // Functions and their schedules.
    expect(out).toMatch(
      /Functions\n {2}Telealert-TelealertPollerlivecalls\S+\n {4}nodejs24\.x, arm64/,
    );
    expect(out).toContain('schedule: rate(1 minute) (ENABLED)');
    expect(out).toContain('schedule: rate(5 minutes) (ENABLED)');
    // Topics with their subscriptions and filter policies, as the shipped rules file says.
    expect(out).toContain('  oncall: ');
    // SMS subscriptions also require an SMS body (attribute sms = yes).
    expect(out).toContain(
      '    sms +12025550100  filter {"severity":["warning","critical"],"sms":["yes"]}',
    );
    expect(out).toContain(
      '    email oncall@example.com  filter {"severity":["warning","critical"]}',
    );
    expect(out).toContain('  oncall (alarms): ');
    expect(out).toContain('    email payments-team@example.com  no filter');
    // Alarms, to the alarm topic of the health channel; the table with its settings.
    expect(out).toMatch(
      /Alarms\n {2}\S*DeadMansSwitchlivecalls\S*: Telealert\/PollSucceeded .* -> oncall \(alarms\)/,
    );
    expect(out).toContain(
      'keys pk (HASH), sk (RANGE); PAY_PER_REQUEST; TTL expiresAt ENABLED; point-in-time recovery ENABLED; encryption ENABLED',
    );
    // One run of each deployed function against the simulator, and what it would send.
    expect(out).toMatch(/PollerlivecallsFunction\S+: \{"source":"live_calls".*"failures":0/);
    expect(out).toMatch(/PollerpaymentsFunction\S+: \{"source":"payments".*"failures":0/);
    // A poller's commit invokes the notifier through the table's stream, which sends the messages.
    expect(out).toMatch(/-> \S*Notifier\S* \(the table's stream\): \{"taken":[1-9]/);
    expect(out).toContain('publishes nothing: commits its events to the table for the notifier');
    expect(out).toContain('stream KEYS_ONLY');
    expect(out).toMatch(/-> oncall sms \+12025550100: \S/);
    expect(out).toMatch(/-> finance email finance@example\.com: \S/);
    expect(out).toContain('ok  cdk destroy Telealert');
    expect(out).toContain('ok  moto and the simulator stopped');
  });

  it('on Ctrl-C, finishes the step it is in, destroys the stack and stops moto', async () => {
    // tsx directly: the signal must reach the rehearsal, not an npm wrapper around it.
    const child = spawn(TSX, [MAIN, '--config', 'telealert.yaml'], {
      cwd: REPO_ROOT,
      env: environment(),
    });
    let seen = '';
    const interrupt = (chunk: Buffer) => {
      seen += chunk.toString();
      if (!seen.includes('ok  cdk deploy Telealert')) return;
      // Once: a second Ctrl-C quits at once.
      child.stdout?.off('data', interrupt);
      child.kill('SIGINT');
    };
    child.stdout?.on('data', interrupt);
    const run = await finished(child);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('stopped by Ctrl-C');
    expect(run.stdout).toContain('ok  cdk destroy Telealert');
    expect(run.stdout).toContain('ok  moto and the simulator stopped');
    expect(run.stdout).not.toContain('Rehearsal done');
  });

  it('says how to install moto when Python is missing, before starting anything', async () => {
    const run = await finished(
      spawn(TSX, [MAIN, '--config', 'telealert.yaml'], {
        cwd: REPO_ROOT,
        env: environment({ MOTO_PYTHON: join(directory, 'no-such-python3') }),
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no-such-python3 was not found');
    expect(run.stderr).toContain("python3 -m pip install 'moto[server]==5.2.1'");
    expect(run.stdout).toBe('');
  });

  it('refuses an invalid rules file with the validation errors, exit 2', async () => {
    const file = join(directory, 'bad.yaml');
    await writeFile(file, 'rules: 3\n');
    const run = await finished(
      spawn(TSX, [MAIN, '--config', file], { cwd: REPO_ROOT, env: environment() }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad.yaml');
    expect(run.stdout).toBe('');
  });
});
