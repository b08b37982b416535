/*
 * One of two real processes writing one local state file (test/cli/shared-state.test.ts):
 * `poll`, a `poll --messages`-like writer (each event handed to the in-process notifier, as
 * `telealert poll` does after its commit), or `silence`, `telealert silence add` run again and
 * again. Both wait for the go file, so they write at once.
 *
 *   node --import tsx shared-state-writer.ts poll|silence STATE CONFIG GO COUNT
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalNotifier } from '../../../cli/lib/notifier';
import { runCli } from '../../../cli/main';
import { loadConfigFile } from '../../../shared/config/load';
import { FileStateStore } from '../../../shared/ports/file';
import { WRITERS_T0, writerEvent } from './writer-events';

async function main(): Promise<void> {
  const [role, state, configFile, go, countText] = process.argv.slice(2);
  if (state === undefined || configFile === undefined || go === undefined) {
    throw new Error('usage: shared-state-writer.ts poll|silence STATE CONFIG GO COUNT');
  }
  const count = Number(countText);
  while (!existsSync(go)) await sleep(5);
  if (role === 'poll') {
    const config = loadConfigFile(configFile);
    let nowMs = WRITERS_T0;
    const notifier = new LocalNotifier({
      config,
      store: new FileStateStore(state),
      publisher: { publish: async (messages) => ({ delivered: messages.map((m) => m.id) }) },
      now: () => nowMs,
    });
    for (let index = 0; index < count; index += 1) {
      nowMs = WRITERS_T0 + index * 1000;
      // A step that lost every race throws; the poller hands the same event over next run.
      for (;;) {
        try {
          await notifier.publish([writerEvent(index)]);
          break;
        } catch {}
      }
    }
    return;
  }
  for (let index = 0; index < count; index += 1) {
    const io = {
      stdout: () => undefined,
      stderr: (text: string) => {
        if (!text.startsWith('local state') && !text.startsWith('telealert: silenced')) {
          process.stderr.write(text);
        }
      },
      env: { USER: 'asha' },
      cwd: process.cwd(),
      stopSignal: new AbortController().signal,
      isTty: false,
      now: () => WRITERS_T0,
    };
    const argv = ['silence', 'add', '--match', 'rule=ringing', '--for', '2h'];
    const code = await runCli(
      [...argv, '--comment', `silence ${index}`, '--state', state, '--config', configFile],
      io,
    );
    if (code !== 0) process.exit(code);
  }
}

await main();
