/**
 * Work a process starts after a commit and finishes before it stops, without
 * a queue in between (issue 12, item 3: the 6.1 send from the process that
 * selected). At most `limit` at once; a task refused (full, or the process
 * is stopping) is the caller's to hand to its queue, so nothing is lost and
 * nothing waits here. `drain` refuses new tasks and resolves once the
 * running ones have ended, which the process's shutdown awaits (STYLE 14).
 */
import type { AcceptanceSends, Reservation } from '../domain/ports.js';

export type { Reservation };

export class InFlight implements AcceptanceSends {
  private readonly running = new Map<string, Promise<void>>();
  private draining = false;

  constructor(
    readonly limit: number,
    /** a task is expected to handle its own errors; one that throws anyway is reported here */
    private readonly onError: (err: unknown) => void,
  ) {}

  get size(): number {
    return this.running.size;
  }

  /** Whether the task of `key` is running. */
  has(key: string): boolean {
    return this.running.has(key);
  }

  /** Starts `task` under `key` now and returns true, or returns false without starting it (also when `key` runs). */
  tryStart(key: string, task: () => Promise<void>): boolean {
    if (this.draining || this.running.size >= this.limit || this.running.has(key)) return false;
    const run: Promise<void> = Promise.resolve()
      .then(task)
      .catch(this.onError)
      .finally(() => this.running.delete(key));
    this.running.set(key, run);
    return true;
  }

  /**
   * Holds a place for the task of `key` without starting it, or returns null
   * (full, stopping, or `key` taken): the closing batch reserves its 6.1
   * sends before its commit, so a delivery is written already claimed only
   * when it will be sent from here. The place counts as running (and `drain`
   * waits for it) until the reservation is started or released; only the
   * first of the two counts.
   */
  reserve(key: string): Reservation | null {
    if (this.draining || this.running.size >= this.limit || this.running.has(key)) return null;
    let settle!: () => void;
    const held = new Promise<void>((resolve) => (settle = resolve));
    this.running.set(key, held);
    let used = false;
    const end = () => {
      this.running.delete(key);
      settle();
    };
    return {
      start: (task) => {
        if (used) return;
        used = true;
        Promise.resolve().then(task).catch(this.onError).finally(end);
      },
      release: () => {
        if (used) return;
        used = true;
        end();
      },
    };
  }

  /** Takes no new task; resolves when every running one has ended. */
  async drain(): Promise<void> {
    this.draining = true;
    while (this.running.size) await Promise.allSettled([...this.running.values()]);
  }
}
