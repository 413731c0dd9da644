/**
 * Natural batching of a write many requests make at once (issue 12, item 1):
 * a call runs at once when fewer than `concurrency` batches are in flight;
 * otherwise it waits, with every call that arrives meanwhile, for one to
 * finish, and they then go together as one batch (at most `max`). Alone, a
 * call waits for nothing; under load, N requests cost one round trip instead
 * of N. Each call gets its own result (a `Refused` one rejects that call
 * alone), or the batch's error.
 */

/** A batch's answer to one of its items: that call fails with `error`, the others do not. */
export class Refused {
  constructor(readonly error: unknown) {}
}

/**
 * A batch's run that, when the batch as a whole fails, runs again item by item: one item PostgreSQL refuses then
 * fails only its own call (`Refused`), the others go through. A batch of one fails as it is.
 */
export function orOneByOne<T, R>(run: (items: T[]) => Promise<R[]>): (items: T[]) => Promise<Array<R | Refused>> {
  return async (items) => {
    try {
      return await run(items);
    } catch (err) {
      if (items.length === 1) throw err;
      return Promise.all(items.map((one) => run([one]).then(([r]) => r, (e: unknown) => new Refused(e))));
    }
  };
}

export class Coalescer<T, R> {
  private readonly waiting: Array<{ item: T; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  private inFlight = 0;

  constructor(
    /** the batch's results, one per item and in their order */
    private readonly run: (items: T[]) => Promise<Array<R | Refused>>,
    private readonly limits: { max: number; concurrency: number },
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.limits.concurrency && this.waiting.length) {
      const batch = this.waiting.splice(0, this.limits.max);
      this.inFlight++;
      // run() is called in a microtask, so a synchronous throw rejects the batch like an asynchronous one
      Promise.resolve()
        .then(() => this.run(batch.map((b) => b.item)))
        .then(
          (results) => {
            if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} gave ${results.length} results`);
            batch.forEach((b, i) => {
              const r = results[i];
              if (r instanceof Refused) b.reject(r.error);
              else b.resolve(r);
            });
          },
        )
        .catch((err: unknown) => batch.forEach((b) => b.reject(err)))
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}
