import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = join(REPO_ROOT, 'cli', 'deploy-local', 'main.ts');
const BIN = join(REPO_ROOT, 'cli', 'bin.js');
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

interface Interrupted extends Finished {
  /** The temp folder the run was given (TMPDIR): what it made there must be gone. */
  readonly tmp: string;
  /** moto's port, from the run's output. */
  readonly motoPort: number | undefined;
}

interface Ran extends Finished {
  readonly line: string;
}

/**
 * Runs the rehearsal with a temp folder of its own, sends it SIGINT (as a terminal's Ctrl-C)
 * once its output has `after` and `before` (work to do while it runs) is done, and waits for it
 * to exit.
 */
async function interruptedRun(
  args: string[],
  after: string | RegExp,
  before: (stdout: string) => Promise<unknown> = async () => {},
): Promise<Interrupted> {
  const tmp = await mkdtemp(join(directory, 'tmp-'));
  // As `npm run deploy:local` runs it: node with tsx's loader, no wrapper process between the
  // signal and the rehearsal (tsx's CLI kills a child that does not answer a relayed signal
  // within 30 ms, which a busy machine misses).
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
    cwd: REPO_ROOT,
    env: environment({ TMPDIR: tmp }),
  });
  let seen = '';
  const interrupt = (chunk: Buffer) => {
    seen += chunk.toString();
    if (typeof after === 'string' ? !seen.includes(after) : !after.test(seen)) return;
    child.stdout?.off('data', interrupt);
    void before(seen).finally(() => child.kill('SIGINT'));
  };
  child.stdout?.on('data', interrupt);
  // What `after` waits for may never come: then the run is stopped all the same, and the
  // assertions say what it printed instead of the test timing out.
  const deadline = setTimeout(() => child.kill('SIGINT'), 420_000);
  const run = await finished(child);
  clearTimeout(deadline);
  const port = /moto on http:\/\/localhost:(\d+)/.exec(run.stdout)?.[1];
  return { ...run, tmp, motoPort: port === undefined ? undefined : Number(port) };
}

/** Processes (not zombies) whose environment holds `marker`: the run's and its children's. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) continue;
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker)) continue;
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

async function expectNothingLeft(run: Interrupted): Promise<void> {
  expect(processesWith(`TMPDIR=${run.tmp}`)).toEqual([]);
  if (run.motoPort !== undefined) expect(await listening(run.motoPort)).toBe(false);
  // What the runtime keeps between runs by design (tsx's and node's compile caches) may stay.
  const caches = /^(tsx-\d+|node-compile-cache)$/;
  expect(readdirSync(run.tmp).filter((name) => !caches.test(name))).toEqual([]);
}

/**
 * docs/operations.md's \`npx telealert ... --stack\` commands, run as an operator would from
 * another shell with the exports the kept rehearsal printed. The runbook's examples name a
 * silence id and times of their own: the id becomes one this stack has.
 */
async function runbookCommands(stdout: string): Promise<Ran[]> {
  const endpoint = /export AWS_ENDPOINT_URL=(\S+)/.exec(stdout)?.[1] ?? '';
  // The machine's AWS settings go; the printed exports come in (environment() drops AWS_*).
  const env = {
    ...environment(),
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  };
  const runbook = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const lines = runbook
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) =>
      line
        .replace(/^`|`\.?$/g, '')
        .replace(/\s+#.*$/, '')
        .trim(),
    )
    .filter((line) => line.startsWith('npx telealert ') && line.includes('--stack "$STACK"'));
  const ran: Ran[] = [];
  for (const line of lines) {
    let args = shellWords(line.replace('npx telealert ', '').replaceAll('"$STACK"', 'Telealert'));
    if (args[0] === 'silence' && args[1] === 'expire') {
      const list = ran.find((r) => r.line.includes('silence list --json'));
      const id = /"id":"([^"]+)"/.exec(list?.stdout ?? '')?.[1] ?? 'none';
      args = ['silence', 'expire', id, '--stack', 'Telealert'];
    }
    if (args.includes('--until')) {
      const at = args.indexOf('--until');
      args.splice(at, 2, '--for', '10h');
    }
    const result = await finished(
      spawn(process.execPath, [BIN, ...args, '--by', 'runbook-test'], { cwd: REPO_ROOT, env }),
    );
    ran.push({ ...result, line });
  }
  return ran;
}

/**
 * The AWS CLI v2 of this machine (the runbook's `aws logs tail` is v2 only): `TELEALERT_AWS_CLI`,
 * else the first `aws` on PATH that says it is v2 (a pip-installed v1 may come first).
 */
function awsCliV2(): string | undefined {
  const candidates = [
    process.env.TELEALERT_AWS_CLI,
    ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'aws')),
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (version.status === 0 && /^aws-cli\/2\./.test(version.stdout)) return candidate;
  }
  return undefined;
}

interface ShellRun {
  /** The runbook's variables from its set-up block, as the shell had them. */
  readonly variables: Record<string, string>;
  /** Each `aws ...` line of the runbook with its exit code and what it printed on stderr. */
  readonly commands: readonly { line: string; code: number; stderr: string }[];
}

/**
 * docs/operations.md's `aws ...` commands, run by bash as an operator pastes them: the set-up
 * block (less its two placeholders, the profile and the checkout's path) defines the variables,
 * then every `aws` line of the runbook runs with them. The Debian CLI predates
 * `AWS_ENDPOINT_URL`, so the printed endpoint is passed as `--endpoint-url`. The token the
 * runbook stores is the one the stack already has, so the kept stack's polls go on working.
 */
async function runbookShell(stdout: string, cli: string): Promise<ShellRun> {
  const endpoint = /export AWS_ENDPOINT_URL=(\S+)/.exec(stdout)?.[1] ?? '';
  const runbook = readFileSync(join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const blocks = [...runbook.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map((m) =>
    (m[2] ?? '').replace(/^ +/gm, '').replace(/\\\n/g, ' '),
  );
  const setup = blocks.find((block) => block.includes('res() {')) ?? '';
  const placeholder = /^(export AWS_PROFILE=|cd path\/to\/)/;
  const lines = blocks
    .filter((block) => block !== setup)
    .flatMap((block) => block.split('\n'))
    .filter((line) => /^(aws |ALARM=|printf )/.test(line));
  const names = ['STACK', 'LIVE_LOGS', 'PAY_LOGS', 'NOTIFIER_LOGS', 'DLQ'];
  const script = [
    `aws() { command ${JSON.stringify(cli)} --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }`,
    ...setup.split('\n').filter((line) => !placeholder.test(line)),
    'TELEALERT_TOKEN=$(aws ssm get-parameter --name /telealert/api-token --with-decryption --query Parameter.Value --output text)',
    ...names.map((name) => `echo "::var ${name}=$${name}"`),
    ...lines.flatMap((line, index) => [
      `echo "::line ${index}" >&2`,
      line,
      `echo "::exit ${index} $?"`,
    ]),
  ].join('\n');
  const run = await finished(
    spawn('bash', ['-c', script], {
      cwd: REPO_ROOT,
      env: {
        ...environment(),
        AWS_ENDPOINT_URL: endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'testing',
        AWS_SECRET_ACCESS_KEY: 'testing',
        AWS_PAGER: '',
      },
    }),
  );
  const variables = Object.fromEntries(
    [...run.stdout.matchAll(/^::var (\w+)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
  const stderrOf = (index: number) =>
    run.stderr
      .split(`::line ${index}\n`)[1]
      ?.split(/::line \d+\n/)[0]
      ?.trim() ?? '';
  const commands = lines.map((line, index) => {
    const code = new RegExp(`^::exit ${index} (\\d+)$`, 'm').exec(run.stdout)?.[1];
    return { line, code: code === undefined ? -1 : Number(code), stderr: stderrOf(index) };
  });
  return { variables, commands };
}

/** Splits a command line as a POSIX shell would, for the quoting the runbook uses. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return words;
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
    // SMS subscriptions also require an SMS body (attribute sms = yes), and take an ack's
    // confirmation addressed to their own number whatever its severity (attribute to). The
    // fixed lists beside the shipped rotation hear every page but no handoff.
    expect(out).toContain(
      '    sms +12025550100  filter {"sms":["yes"],"$or":[{"to":["+12025550100"]},{"to":[{"exists":false}],"severity":["warning","critical"],"kind":[{"anything-but":["handoff"]}]}]}',
    );
    expect(out).toContain(
      '    email oncall@example.com  filter {"severity":["warning","critical"],"kind":[{"anything-but":["handoff"]}]}',
    );
    // The rotation's members: each subscription filters on their name in `oncall`.
    expect(out).toContain(
      '    sms +12025550101  filter {"oncall":["asha"],"sms":["yes"],"$or":[{"kind":["handoff","ack"]},{"severity":["warning","critical"]}]}  (asha\'s: only while on call)',
    );
    expect(out).toContain(
      '    email ravi@example.com  filter {"oncall":["ravi"],"$or":[{"kind":["handoff","ack"]},{"severity":["warning","critical"]}]}  (ravi\'s: only while on call)',
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
    // The notifier's first step hands the pager to whoever's shift it is now (asha by day, ravi
    // by night in Asia/Kolkata): their SMS and email stand-ins alone hear the handoff.
    const handoff =
      /-> oncall sms \+1202555010[12] \((asha|ravi), on call\): \1: on call for oncall until /.exec(
        out,
      );
    expect(handoff).not.toBeNull();
    expect(out).toContain(
      `-> oncall email ${handoff?.[1]}@example.com (${handoff?.[1]}, on call): `,
    );
    expect(out).not.toMatch(/-> oncall \w+ \S+: \w+: on call for oncall/);
    expect(out).toMatch(/-> finance email finance@example\.com: \S/);
    expect(out).toContain('ok  cdk destroy Telealert');
    expect(out).toContain('ok  moto and the simulator stopped');
  }, 600_000);

  it('rehearses chat: the Slack and Teams configurations are created, and the summary says which channel would receive what', async () => {
    const shipped = await readFile(join(REPO_ROOT, 'telealert.yaml'), 'utf8');
    const file = join(directory, 'chat.yaml');
    await writeFile(
      file,
      shipped.replace(
        '    email: [oncall@example.com]\n',
        [
          '    email: [oncall@example.com]',
          '    slack: { workspaceId: T0123ABCD, channelId: C0456EFGH }',
          '    teams:',
          '      tenantId: 8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b',
          '      teamId: 1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
          '      channelId: "19%3a0123456789abcdef%40thread.tacv2"',
          '',
        ].join('\n'),
      ),
    );
    try {
      const run = await finished(
        spawn(TSX, [MAIN, '--config', file], { cwd: REPO_ROOT, env: environment() }),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const out = run.stdout;
      expect(out).toContain('ok  cdk deploy Telealert');
      expect(out).toContain('  Slack workspace T0123ABCD, channel C0456EFGH');
      expect(out).toContain(
        '  Microsoft Teams tenant 8f9e3b2a-1c4d-4e5f-9a8b-7c6d5e4f3a2b, team 1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d, channel 19:0123456789abcdef@thread.tacv2',
      );
      expect(out).toContain(
        '    would receive: every message to oncall, as its chat body (the https body of the publish)',
      );
      expect(out).toContain('    buttons: Telealert-ack, Telealert-silence');
      expect(out).not.toMatch(/not created by the simulator[\s\S]*AWS::Chatbot/);
      expect(out).toContain('ok  cdk destroy Telealert');
    } finally {
      await rm(file, { force: true });
    }
  }, 600_000);

  it.each([
    ['while moto starts and the app is synthesized', 'telealert deploy:local: a rehearsal'],
    ['while `cdk deploy` runs', 'ok  cdk bootstrap'],
  ])(
    'on Ctrl-C %s, stops at once and leaves no process, port or temp folder',
    async (_, after) => {
      const run = await interruptedRun(['--config', 'telealert.yaml'], after);
      expect(run.code).toBe(130);
      expect(run.stderr).toBe('deploy:local: stopped by Ctrl-C; nothing is left running\n');
      expect(run.stdout).toContain('ok  moto and the simulator stopped, the temp folder removed');
      expect(run.stdout).not.toContain('Rehearsal done');
      await expectNothingLeft(run);
    },
    600_000,
  );

  it('--keep leaves the stack running on its schedules, the runbook works on it, and Ctrl-C tears it all down', async () => {
    const cli = awsCliV2();
    if (cli === undefined) {
      throw new Error(
        'the runbook test needs the AWS CLI v2 (Debian: apt-get install awscli; .ci/run installs it)',
      );
    }
    let commands: Promise<Ran[]> | undefined;
    let shell: Promise<ShellRun> | undefined;
    const run = await interruptedRun(
      ['--config', 'telealert.yaml', '--keep'],
      / oncall sms \+12025550100: /,
      (stdout) => {
        commands ??= runbookCommands(stdout);
        shell ??= commands.then(() => runbookShell(stdout, cli));
        return shell;
      },
    );
    expect(run.code).toBe(130);
    expect(run.stdout).toContain('The stack stays deployed on moto until Ctrl-C');
    expect(run.stdout).toMatch(
      /export AWS_ENDPOINT_URL=http:\/\/localhost:\d+ AWS_REGION=us-east-1/,
    );
    // The functions on their schedules: the live calls poller's queued samples too.
    expect(run.stdout).toMatch(/\d\d:\d\d:\d\d {2}schedule live_calls: \d+ records/);
    expect(run.stdout).toMatch(/\d\d:\d\d:\d\d {2}schedule payments: \d+ records/);
    expect(run.stdout).toMatch(/stream -> notifier: \d+ events taken, [1-9]\d* messages published/);
    expect(run.stdout).toMatch(/\d\d:\d\d:\d\d {2}-> oncall sms \+12025550100: \S/);
    // Every `npx telealert ... --stack` command of the runbook, run against the kept stack.
    const ran = await (commands ?? Promise.resolve([]));
    expect(ran.length).toBeGreaterThanOrEqual(10);
    // An `ack` of an alert that is not firing (or does not repeat) at that moment is refused
    // with its reason, as the runbook says; anything else must succeed.
    const refusedAck = (command: Ran) =>
      command.line.startsWith('npx telealert ack ') &&
      command.code !== 0 &&
      /nothing to acknowledge/.test(command.stderr);
    expect(
      ran
        .filter((command) => command.code !== 0 && !refusedAck(command))
        .map((command) => `${command.line}: exit ${command.code}: ${command.stderr.trim()}`),
    ).toEqual([]);
    // Every `aws ...` command of the runbook, with the variables its set-up block defines.
    const aws = await (shell ?? Promise.reject(new Error('the runbook was not run')));
    expect(aws.variables.STACK).toBe('Telealert');
    for (const name of ['LIVE_LOGS', 'PAY_LOGS', 'NOTIFIER_LOGS']) {
      expect(aws.variables[name], name).toMatch(/^\/aws\/lambda\/|^Telealert-/);
    }
    expect(aws.variables.DLQ).toMatch(/^https?:\/\/\S+DeadLetters/);
    expect(aws.commands.length).toBeGreaterThanOrEqual(12);
    expect(
      aws.commands
        .filter((command) => command.code !== 0)
        .map((command) => `${command.line}: exit ${command.code}: ${command.stderr}`),
    ).toEqual([]);
    const alerts = ran.find((c) => c.line.startsWith('npx telealert alerts --stack'));
    expect(alerts?.stdout).toMatch(/call-ringing-too-long|too-many-ringing/);
    await expectNothingLeft(run);
  }, 600_000);

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
