import { fileURLToPath } from 'node:url';
import { TelephonyClient } from '../../shared/api/client';
import { parseConfig } from '../../shared/config/load';
import {
  MemoryNotifierStore,
  MemoryStateStore,
  StaticTokenSource,
} from '../../shared/ports/memory';
import { formatDuration } from '../../shared/time/duration';
import { fastClock } from '../../simulator/clock';
import { startSimulator } from '../../simulator/server';
import { demoStartMs } from '../lib/demo-clock';
import { EXIT } from '../lib/errors';
import { readUserFile } from '../lib/files';
import { PrintingMessagePublisher, PrintingPublisher } from '../lib/format';
import type { Io } from '../lib/io';
import { LocalNotifier } from '../lib/notifier';
import type { CliOptions } from '../lib/options';
import { readDurationOption, readNumber, readScenario } from '../lib/options';
import { abortableSleep, pollOnSchedule, watchedSources } from '../lib/scheduler';
import { withBaseUrl } from './config-override';

/** The rules file shipped at the repository root: the demo's embedded default. */
const EMBEDDED_CONFIG = fileURLToPath(new URL('../../telealert.yaml', import.meta.url));
const DEMO_TOKEN = 'demo-token';

/**
 * `npm start`: the simulator on a free loopback port running a scenario on a fast clock, the
 * same runner, engine and notifier as the Lambdas polling it, and every message printed as
 * people would receive it (channel, the person on call it reaches, SMS, email subject;
 * `--events` also prints each alert event as it is decided). No AWS, no token, no set-up. The
 * simulated clock starts at 20:20 in the rules' zone (`demoStartMs`), so the shipped rotation's
 * 21:00 handoff falls inside the busy evening.
 */
export async function demoCommand(options: CliOptions, io: Io): Promise<number> {
  const speed = readNumber(options.speed, 'speed', 60, { min: 1, max: 3600 });
  const scenario = readScenario(options.scenario, 'busy-evening');
  const stopAfterMs = readDurationOption(options['stop-after'], 'stop-after');
  const file = options.config ?? EMBEDDED_CONFIG;
  const rules = parseConfig(
    readUserFile(file, io, 'rules file'),
    options.config ?? 'telealert.yaml',
  );

  if (watchedSources(rules).length === 0) {
    io.stderr('demo: the rules file has no rules, so there is nothing to poll\n');
    return EXIT.ok;
  }
  const startMs = demoStartMs(Date.now(), rules.timezone);
  const clock = fastClock(startMs, speed);
  const simulator = await startSimulator({
    port: 0,
    scenario,
    token: DEMO_TOKEN,
    clock,
    zone: rules.timezone,
  });
  const config = withBaseUrl(rules, simulator.url);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  io.stopSignal.addEventListener('abort', onStop, { once: true });
  // Ctrl-C pressed while the simulator was starting has already fired its event.
  if (io.stopSignal.aborted) onStop();
  const timer = stopAfterMs === undefined ? undefined : setTimeout(onStop, stopAfterMs);

  const sleep = abortableSleep(stop.signal, speed);
  const json = Boolean(options.json);
  const style = { json, zone: config.timezone, colour: io.isTty && !json };
  const events = new PrintingPublisher(io.stdout, style);
  const messages = new PrintingMessagePublisher(io.stdout, style);
  let smsHeld = 0;
  const notifier = new LocalNotifier({
    config,
    store: new MemoryNotifierStore(),
    publisher: messages,
    now: clock.now,
    onEvents: (batch) => {
      if (options.events) void events.publish(batch);
      else events.sent += batch.length;
    },
    onStep: (result) => {
      smsHeld += result.decided.filter((item) => item.smsHeld).length;
    },
  });
  const say = (text: string) => (json ? io.stderr(text) : io.stdout(text));
  say(
    `telealert demo: simulator ${simulator.url}, scenario ${scenario}, clock ${speed}x ` +
      `(a simulated minute every ${formatDuration(60_000 / speed)})\n` +
      `rules: ${config.rules.map((rule) => rule.name).join(', ')}\n` +
      `polling ${watchedSources(config).join(' and ')}; Ctrl-C stops\n\n`,
  );
  try {
    await pollOnSchedule({
      config,
      client: new TelephonyClient({
        baseUrl: config.api.baseUrl,
        tokenSource: new StaticTokenSource(DEMO_TOKEN),
        timeZone: config.timezone,
        timeoutMs: config.api.timeoutMs,
        now: clock.now,
        sleep,
      }),
      store: new MemoryStateStore({ now: clock.now }),
      publisher: notifier,
      notifier,
      now: clock.now,
      speed,
      signal: stop.signal,
      once: false,
    });
  } finally {
    if (timer) clearTimeout(timer);
    io.stopSignal.removeEventListener('abort', onStop);
    await simulator.close();
  }
  say(
    `\ndemo stopped after ${formatDuration(clock.now() - startMs)} of simulated time: ` +
      `${events.sent} alert events became ${messages.sent} messages ` +
      `(${messages.sms} with an SMS, ${smsHeld} SMS held by the cap, ${messages.digests} digests, ` +
      `${messages.handoffs} handoff${messages.handoffs === 1 ? '' : 's'})\n`,
  );
  return EXIT.ok;
}
