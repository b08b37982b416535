import { firingOf } from './pages';
import type { HeldEvent } from './types';

/**
 * The active-hours list and the firings it holds, by alert and firing, to ask of each routed
 * event without a pass over the list (a night's digest holds thousands of events).
 */
export class DeferredFirings {
  #tags: Set<string> | undefined;

  constructor(readonly list: HeldEvent[]) {}

  static #tag(key: string, firing: number | undefined | '*'): string {
    return `${key}\u0000${String(firing)}`;
  }

  #index(): Set<string> {
    if (this.#tags === undefined) {
      this.#tags = new Set();
      for (const event of this.list) this.#add(this.#tags, event);
    }
    return this.#tags;
  }

  #add(tags: Set<string>, event: HeldEvent): void {
    tags.add(DeferredFirings.#tag(event.key, firingOf(event)));
    tags.add(DeferredFirings.#tag(event.key, '*'));
  }

  /** An event of the same alert and firing is deferred (any firing, when not known). */
  has(event: HeldEvent): boolean {
    if (this.list.length === 0) return false;
    const firing = firingOf(event);
    return this.#index().has(DeferredFirings.#tag(event.key, firing ?? '*'));
  }

  push(event: HeldEvent): void {
    this.list.push(event);
    if (this.#tags !== undefined) this.#add(this.#tags, event);
  }
}
