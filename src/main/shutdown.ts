import type { Logger } from 'pino';

/** Set by the `npm start` supervisor in its children's environment (its pid). */
export const SUPERVISOR_ENV = 'BROKER_SUPERVISOR_PID';

/**
 * Whether this process is a child of the `npm start` supervisor (which prints
 * the banner once for all): the variable and an IPC channel, open or already
 * closed (`process.send` stays; without a channel there is none).
 */
export const supervised = process.env[SUPERVISOR_ENV] !== undefined && typeof process.send === 'function';

/**
 * A supervised child watches its IPC channel from this module's import: a
 * parent that died before (the channel is already gone) or while the process
 * was still starting is not missed.
 */
let parentGone = supervised && !process.connected;
let onParentGone: (() => void) | undefined;
if (supervised && !parentGone) {
  process.once('disconnect', () => {
    parentGone = true;
    onParentGone?.();
  });
}

/**
 * On SIGTERM or SIGINT, runs the steps in order (stop intake, drain workers,
 * close the ORM and Redis: STYLE 14) and exits 0; 1 when a step fails or the
 * whole drain takes longer than `timeoutMs`. A child of the `npm start`
 * supervisor drains the same way when its IPC channel closes: the supervisor
 * died, and the child must not live on as an orphan.
 */
export function onShutdown(log: Logger, steps: Array<[string, () => Promise<void>]>, timeoutMs: number): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown took too long, exiting');
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    let code = 0;
    for (const [name, step] of steps) {
      try {
        await step();
        log.info({ step: name }, 'shutdown step done');
      } catch (err) {
        code = 1;
        log.error({ step: name, err }, 'shutdown step failed');
      }
    }
    log.info({ code }, 'bye');
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (parentGone) void stop('disconnect');
  else onParentGone = () => void stop('disconnect');
}
