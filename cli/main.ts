import { parseArgs } from 'node:util';
import { ConfigError } from '../shared/config/errors';
import { TimelineError } from '../shared/timeline/errors';
import { alertsCommand } from './commands/alerts';
import { demoCommand } from './commands/demo';
import { oncallCommand } from './commands/oncall';
import { pollCommand } from './commands/poll';
import { replayCommand } from './commands/replay';
import { ackCommand, silenceCommand } from './commands/silence';
import { simulateCommand } from './commands/simulate';
import { validateCommand } from './commands/validate';
import { CliError, EXIT, UsageError } from './lib/errors';
import { type Io, processIo } from './lib/io';
import { type CliOptions, OPTIONS } from './lib/options';

export const USAGE = `telealert: threshold alerts on a telephony API's live calls and online payments

Usage:
  telealert validate [--config F]
  telealert replay   [--config F] --timeline T [--messages]
  telealert poll     [--config F] [--base-url URL] [--once] [--state FILE] [--pretty]
                     [--messages]
  telealert simulate [--port N] [--scenario NAME] [--seed N] [--token T] [--speed X]
                     [--fault ENDPOINT=KIND[:ARG] ...]
  telealert demo     [--scenario NAME] [--speed X] [--json] [--events] [--stop-after D]
                     (\`npm start\`)
  telealert silence add --match NAME=VALUE [--match ...] (--for D | --until TIME)
                     --comment TEXT [--by NAME] [--state FILE | --stack NAME]
  telealert silence list [--json] [--state FILE | --stack NAME]
  telealert silence expire ID [--state FILE | --stack NAME]
  telealert ack      KEY | --rule NAME [--by NAME] [--state FILE | --stack NAME]
  telealert alerts   [--rule NAME] [--json] [--state FILE | --stack NAME]
  telealert oncall   [--rotation R] [--at TIME] [--json] [--state FILE | --stack NAME]
  telealert oncall override --rotation R --who NAME [--from TIME] --until TIME [--by NAME]
                     [--state FILE | --stack NAME]
  telealert oncall override list [--rotation R] [--json] [--state FILE | --stack NAME]
  telealert oncall override remove ID [--state FILE | --stack NAME]

Options:
  --config F      the rules file (default: telealert.yaml in the working directory)
  --timeline T    JSON Lines of recorded polls, one per line, in time order
  --base-url URL  overrides api.baseUrl of the rules file
  --once          poll every source once (one sample each), then exit; exit status 1 when a
                  poll failed (default: keep the schedule and samples until Ctrl-C)
  --state FILE    the local state file: where poll keeps alert state (default:
                  .telealert/state.json); silence, ack, alerts act on it (and create it)
  --pretty        human-readable notifications instead of JSON Lines
  --messages      print the messages people receive (grouped, capped, digests) instead of
                  the alert events
  --events        the demo also prints each alert event as it is decided
  --json          the demo prints JSON Lines instead of readable text
  --port N        simulator port on 127.0.0.1 (default: 8787; 0 picks a free one)
  --scenario NAME simulator scenario (quiet, busy-evening, stuck-payment)
  --fault F       simulator fault, e.g. live_calls=status:500, payments=rate-limit:30,
                  live_calls=slow:2000, payments=large:100000, live_calls=hang (also
                  malformed-json, html[:502], truncated, wrong-types, empty)
  --speed X       simulated seconds per real second (simulate default 1, demo default 60)
  --stop-after D  the demo stops by itself after this much real time (30s, 2m)
  --match N=V     a silence matcher: rule, severity, source or a label (did=+918000000001;
                  labels.rule=R: the rule a too_many_alerts stands for); every one must hold
  --for D         how long a silence lasts from now (2h); or --until TIME (2026-11-21 14:00
                  in the config timezone, or ISO-8601 with an offset)
  --comment TEXT  why (shown by silence list)
  --by NAME       who silences or acknowledges (default: the operating system's user, then
                  USER)
  --rule NAME     ack: every firing alert of the rule; alerts: only the rule's
  --stack NAME    silence, ack, alerts, oncall: the deployed stack's state (its TableName
                  output), with your AWS credentials and AWS_REGION. Without --stack or
                  --state: TELEALERT_STACK, else cdk.json's stackName here, else the local
                  state poll left; their first line says where they acted
  --rotation R    oncall: the rotation (default: every one); override: the one overridden
  --who NAME      override: the person on call instead (a name under people)
  --from TIME     override: when it starts (default: now); --until: when it ends
  --at TIME       oncall: who is on call then instead of now

Environment:
  TELEALERT_TOKEN the API bearer token for \`poll\`
  TELEALERT_STACK the stack silence, ack and alerts act on without --stack or --state

Exit status: 0 success, 1 a runtime failure (API, disk), 2 invalid input (usage, rules
file, timeline), with the reason on stderr.
`;

const COMMANDS = {
  validate: validateCommand,
  replay: replayCommand,
  poll: pollCommand,
  simulate: simulateCommand,
  demo: demoCommand,
  alerts: alertsCommand,
} as const satisfies Record<string, (options: CliOptions, io: Io) => Promise<number>>;

/** Commands that take arguments after their name (`silence add`, `ack KEY`). */
const WITH_ARGUMENTS = {
  silence: silenceCommand,
  ack: ackCommand,
  oncall: oncallCommand,
} as const satisfies Record<
  string,
  (options: CliOptions, io: Io, args: readonly string[]) => Promise<number>
>;

/** Every `telealert` subcommand (the rehearsal offers those that exist). */
export const COMMAND_NAMES: readonly string[] = [
  ...Object.keys(COMMANDS),
  ...Object.keys(WITH_ARGUMENTS),
];

function isCommand(name: string): name is keyof typeof COMMANDS {
  return Object.hasOwn(COMMANDS, name);
}

/**
 * Runs one `telealert` invocation and returns its exit status. Every expected failure becomes
 * a one-paragraph message on stderr; a stack trace is printed only with TELEALERT_DEBUG=1.
 */
export async function runCli(argv: readonly string[], io: Io = processIo()): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [name, ...extra] = positionals;
    if (values.help || name === 'help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (name === undefined) throw new UsageError('a command is required');
    if (name === 'silence' || name === 'ack' || name === 'oncall') {
      return await WITH_ARGUMENTS[name](values, io, extra);
    }
    if (!isCommand(name)) throw new UsageError(`unknown command "${name}"`);
    if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
    return await COMMANDS[name](values, io);
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: Io): number {
  if (io.env.TELEALERT_DEBUG === '1' && error instanceof Error && error.stack) {
    io.stderr(`${error.stack}\n`);
  }
  if (error instanceof ConfigError || error instanceof TimelineError) {
    io.stderr(`${error.message}\n`);
    return EXIT.invalid;
  }
  if (error instanceof UsageError) {
    io.stderr(`telealert: ${error.message}\nRun "telealert --help" for usage.\n`);
    return EXIT.invalid;
  }
  if (error instanceof CliError) {
    io.stderr(`telealert: ${error.message}\n`);
    return error.exitCode;
  }
  if (isArgsError(error)) {
    io.stderr(`telealert: ${argsMessage(error)}\nRun "telealert --help" for usage.\n`);
    return EXIT.invalid;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`telealert: ${message}\n`);
  return EXIT.failure;
}

/** node:util parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code. */
function isArgsError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS')
  );
}

/** Node's unknown-option text explains `--` positionals at length; users mistyped an option. */
function argsMessage(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const option = /'(-[^']*)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  return error.message;
}
