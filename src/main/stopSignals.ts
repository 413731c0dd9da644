/**
 * Imported first by the API and worker entries (src/main/web.ts,
 * workers/main.ts) and importing nothing, so it runs before any other module
 * of the process is evaluated (`npm start` even preloads it in every child
 * with `--import`, before the entry's modules are read): from then on a SIGTERM or SIGINT no longer
 * kills a process that is still loading and starting by Node's default
 * action. The signal is kept, and `holdStopSignals` (shutdown.ts) acts on it:
 * the process drains as soon as it has started. Only entries import this
 * module; a library or test process keeps Node's default.
 */
export interface KeptStopSignals {
  /** calls `fn` with the first signal received, now if one was already kept */
  onSignal(fn: (signal: string) => void): void;
}

let kept: string | undefined;
let listener: ((signal: string) => void) | undefined;

const keep = (signal: string) => {
  kept ??= signal;
  listener?.(signal);
};
process.on('SIGTERM', () => keep('SIGTERM'));
process.on('SIGINT', () => keep('SIGINT'));

export const keptStopSignals: KeptStopSignals = {
  onSignal(fn) {
    listener = fn;
    if (kept) fn(kept);
  },
};
