import type { NotifierState } from '../notifier/types';
import { NotifierConflictError } from '../ports/errors';
import type { NotifierStore } from '../ports/notifier';

/** A change lost to a concurrent writer (a notifier step, another command) is redone this often. */
const ATTEMPTS = 20;

/**
 * Reads the notifier's state, changes it and writes it back conditional on the revision read,
 * so a notifier step running meanwhile loses nothing: the loser reads again and redoes its
 * change. What the notifier owes and the events it took in are kept as they are.
 */
export async function changeNotifier<T extends { readonly state: NotifierState }>(
  store: NotifierStore,
  change: (state: NotifierState | undefined) => T,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const stored = await store.loadNotifier();
    const result = change(stored.state);
    try {
      await store.commitNotifier(stored.revision, {
        state: result.state,
        consumed: stored.consumed,
        owed: [],
      });
      return result;
    } catch (error) {
      if (!(error instanceof NotifierConflictError) || attempt >= ATTEMPTS) throw error;
      // Apart, at random: two writers that collided do not collide again in step.
      await new Promise((done) => setTimeout(done, Math.random() * 20 * attempt));
    }
  }
}
