import type { Logger } from 'pino';

/**
 * On SIGTERM or SIGINT, runs the steps in order (stop intake, drain workers,
 * close the ORM and Redis: STYLE 14) and exits 0; 1 when a step fails or the
 * whole drain takes longer than `timeoutMs`.
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
}
