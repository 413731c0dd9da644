/**
 * A cap on concurrent password hashes (issue 29.5, decisions LIM-4): each
 * operator login runs argon2 (64 MiB, libuv's thread pool), so a burst of
 * logins could take the process's memory and every thread of the pool. At
 * most `concurrency` run at once; up to `queue` more wait their turn (at most
 * `waitMs`); beyond that the caller is told at once (`GateFull`) and answers
 * 503 with Retry-After.
 */
export class GateFull extends Error {
  constructor() {
    super('password hashing is at capacity');
    this.name = 'GateFull';
  }
}

export interface HashGate {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** hashes running now */
  readonly running: number;
  /** callers waiting for a turn */
  readonly waiting: number;
}

export function hashGate(concurrency: number, queue: number, waitMs: number): HashGate {
  let running = 0;
  const waiters: Array<{ go: () => void; timer: NodeJS.Timeout }> = [];
  const release = () => {
    const next = waiters.shift();
    if (!next) return void running--;
    clearTimeout(next.timer);
    next.go(); // the slot passes on: `running` unchanged
  };
  const turn = (): Promise<void> => {
    if (running < concurrency) {
      running++;
      return Promise.resolve();
    }
    if (waiters.length >= queue) return Promise.reject(new GateFull());
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        go: resolve,
        timer: setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new GateFull());
        }, waitMs),
      };
      waiters.push(waiter);
    });
  };
  return {
    async run(work) {
      await turn();
      try {
        return await work();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
  };
}
