export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  what?: string;
}

/**
 * Polls `fn` until it returns a truthy value (returned) or the deadline passes
 * (throws naming `what`). The second argument is the timeout in ms or options.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  timeoutOrOptions: number | WaitOptions = {},
  what?: string,
): Promise<NonNullable<T>> {
  const opts = typeof timeoutOrOptions === 'number' ? { timeoutMs: timeoutOrOptions, what } : timeoutOrOptions;
  const { timeoutMs = 5000, intervalMs = 20 } = opts;
  const label = opts.what ?? what ?? 'condition';
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
