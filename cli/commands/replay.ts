import { notificationJson } from '../../shared/engine/json';
import { undocumentedFields } from '../../shared/engine/used-fields';
import { messageJson } from '../../shared/notifier/json';
import { replayMessages } from '../../shared/timeline/messages';
import { readTimeline, replayTimeline } from '../../shared/timeline/parse';
import { EXIT, UsageError } from '../lib/errors';
import { loadUserConfig, readUserFile } from '../lib/files';
import type { Io } from '../lib/io';
import type { CliOptions } from '../lib/options';

/**
 * `telealert replay`: runs the engine over a recorded timeline and prints one notification
 * per line on stdout, and nothing else there; with `--messages`, the messages the notifier
 * makes of them instead (ticking its clock between entries and after the last), with the
 * timeline's people's actions (silences, acknowledgements) at their times. A timeline's
 * `config` lines deploy another rules file from their time; `notifier` lines (`--messages`
 * only) keep the notifier down for a while.
 */
export async function replayCommand(options: CliOptions, io: Io): Promise<number> {
  if (options.timeline === undefined) throw new UsageError('replay needs --timeline FILE');
  const { config } = loadUserConfig(options.config, io);
  const text = readUserFile(options.timeline, io, 'timeline');
  const { entries, actions, changes, outages } = readTimeline(
    text,
    options.timeline,
    config.timezone,
    {
      live_calls: undocumentedFields(config, 'live_calls'),
      payments: undocumentedFields(config, 'payments'),
    },
  );
  if (options.messages) {
    for (const message of replayMessages(config, entries, actions, changes, outages).messages) {
      io.stdout(`${messageJson(message)}\n`);
    }
    return EXIT.ok;
  }
  for (const notification of replayTimeline(config, entries, {}, changes)) {
    io.stdout(`${notificationJson(notification)}\n`);
  }
  return EXIT.ok;
}
