/**
 * ISS32-4 (issue 32): the evaluation job that closes a batch of due windows
 * stays on for the windows due right after it, closing each batch at its
 * deadline instead of handing every one back to the queue. Between two
 * batches the job otherwise went through BullMQ (finish, the next delayed job
 * promoted on Redis's timer, fetched, one read of its offer): round trips on
 * a busy host, and a wake-up only as precise as Redis's `hz`. In a run, the
 * next batch starts at the next deadline (read from the partial index of open
 * deadlines, by the batch before it with its windows when it can, ISS32-13;
 * timed here to the millisecond), and what follows a batch's commit
 * (its 6.1 claims, events, expiries, the withdrawal of the jobs of the
 * windows it closed) goes on while the next batch is closed.
 *
 * The BullMQ evaluation job of every window stays what makes its closing
 * durable: a window a run does not reach (the run ended, the process died,
 * its offer was held by a response being written) is closed by its own job.
 * A run ends when no window is due within `lingerMs`, on its first error
 * (logged: the windows' own jobs are still there), at once when the process
 * stops (after the batch it is closing), and once it has lasted `maxRunMs`:
 * then at the first gap of at least `handoffMs` before the next deadline, so
 * that handing over to the next window's job (finishing this one, fetching
 * that one, its first read) costs no window its time (ISS32-12), and at the
 * latest after `hardMaxRunMs`.
 */

export interface ClosingRunOptions {
  /** a run waits for the next deadline when it is at most this far (ms); 0: no runs */
  lingerMs: number;
  /** a run hands over to the next windows' jobs after this long (ms), in a gap of at least `handoffMs` */
  maxRunMs: number;
  /** the gap before the next deadline a handover needs (ms); 0 (the default): a run ends at `maxRunMs` whatever the gap */
  handoffMs?: number;
  /** a run ends after this long (ms) at the latest, gap or not; `maxRunMs` by default */
  hardMaxRunMs?: number;
}

/** What a batch of a run did. */
export interface ClosingBatch {
  /** how many windows it closed */
  closed: number;
  /**
   * the earliest deadline of an open window after the batch's `now`, when the batch read it with its windows (null:
   * none is open); undefined: not read, the run asks `next` (ISS32-13)
   */
  next?: Date | null;
}

export interface ClosingRunSteps {
  /** the earliest deadline of an open window after `after` (it may be past), null when there is none */
  next(after: Date): Promise<Date | null>;
  /** closes a batch of the windows due at `now` that nobody holds */
  close(now: Date): Promise<ClosingBatch>;
}

export class ClosingRun {
  private stopped = false;
  private readonly wakes = new Set<() => void>();

  constructor(
    readonly opts: ClosingRunOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** No run waits any more, and none starts: the process is stopping (the job running ends after its batches). */
  stop(): void {
    this.stopped = true;
    for (const wake of this.wakes) wake();
  }

  /**
   * After a batch that took the windows due at `from`: closes the next batches due within `lingerMs` of each other,
   * each at its deadline; returns how many windows it closed. A batch takes every window due by its start that
   * nobody holds; the next one is sought after that start, so a window held then (a response being written) is
   * taken by the next batch, or by its own job once the run has ended. Rejects with a batch's error.
   */
  async run(steps: ClosingRunSteps, from: Date): Promise<number> {
    const started = this.now();
    let after = from;
    let closed = 0;
    /** the next deadline as the last batch read it with its windows, one round trip fewer per batch (ISS32-13) */
    let known: Date | null | undefined;
    const { lingerMs, maxRunMs, handoffMs = 0, hardMaxRunMs = maxRunMs } = this.opts;
    while (!this.stopped && lingerMs > 0) {
      const next = known === undefined ? await steps.next(after) : known;
      if (!next) break;
      const gap = next.getTime() - this.now();
      if (gap > lingerMs) break;
      const ran = this.now() - started;
      if (ran >= maxRunMs && (gap >= handoffMs || ran >= hardMaxRunMs)) break;
      if (!(await this.until(next.getTime()))) break;
      after = new Date(this.now());
      const batch = await steps.close(after);
      closed += batch.closed;
      known = batch.next;
    }
    return closed;
  }

  /**
   * Resolves true once the clock reads `at` or later, false at once if the process stops meanwhile. A timer may fire
   * a millisecond before the clock reads its end (Node's timers keep the loop's own time); then it waits again, so a
   * batch never starts before its deadline.
   */
  private async until(at: number): Promise<boolean> {
    return (await untilClock(at, this.now, (ms) => this.sleep(ms))) && !this.stopped;
  }

  /** Resolves true after `ms`, false at once if the process stops meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      // stopped while it was reading the next deadline
      if (this.stopped) return resolve(false);
      const wake = () => {
        clearTimeout(timer);
        this.wakes.delete(wake);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.wakes.delete(wake);
        resolve(!this.stopped);
      }, ms);
      this.wakes.add(wake);
    });
  }
}

/**
 * Resolves true once `now()` reads `at` or later, false as soon as `sleep` does (it was woken to stop). A timer may
 * fire a millisecond before the clock reads its end (Node's timers keep the loop's own time); then it sleeps again.
 */
export async function untilClock(at: number, now: () => number, sleep: (ms: number) => Promise<boolean>): Promise<boolean> {
  for (let wait = at - now(); wait > 0; wait = at - now()) if (!(await sleep(wait))) return false;
  return true;
}
