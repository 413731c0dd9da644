import type { Logger } from 'pino';
import type { KeptStopSignals } from './stopSignals.js';

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

/** A stop signal received while the process was still starting (see holdStopSignals). */
let heldSignal: string | undefined;
let startupDeadline: NodeJS.Timeout | undefined;
let stepsRegistered = false;

/**
 * Called by a role's entry before it connects to anything, with the signals
 * src/main/stopSignals.ts kept since the process began to load: a SIGTERM
 * or SIGINT that arrives while the process is still loading or starting
 * (connecting to the database, starting its queue workers) does not kill it
 * by Node's default, and onShutdown drains as soon as its steps are known,
 * exit 0. A supervisor or orchestrator stopping a process that is still
 * starting is not a crash. A start that does not finish within `timeoutMs`
 * of the signal exits 1.
 */
export function holdStopSignals(log: Logger, timeoutMs: number, signals: KeptStopSignals): void {
  signals.onSignal((signal) => {
    if (stepsRegistered || heldSignal) return;
    heldSignal = signal;
    log.info({ signal }, 'stop requested while starting; draining once started');
    startupDeadline = setTimeout(() => {
      log.error({ timeoutMs }, 'still starting when told to stop, exiting');
      process.exit(1);
    }, timeoutMs);
    startupDeadline.unref();
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
  stepsRegistered = true;
  clearTimeout(startupDeadline);
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (heldSignal) void stop(heldSignal);
  else if (parentGone) void stop('disconnect');
  else onParentGone = () => void stop('disconnect');
}
