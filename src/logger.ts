import { pino, type Logger } from 'pino';
import { config } from '../config/index.js';

export type { Logger };

let root: Logger | undefined;

/** The process's logger (JSON lines on stdout). */
export function logger(): Logger {
  root ??= pino({ level: config().logLevel, base: { pid: process.pid } });
  return root;
}
