/**
 * TC-1 (issue 32): background work yields to the closing of windows. The time-critical worker closes each window at
 * its deadline; on a busy host its lateness is waiting for a CPU, a PostgreSQL backend or Redis among everything else,
 * and lowering the background process's CPU priority does not reach PostgreSQL's backends or Redis. So a background
 * job (a distribution, an expiry, a state notification, an SMS) does not start while the closing is behind: while
 * some ABIERTA window is overdue by more than CLOSING_YIELD_LATE_MS, it waits, and starts once none is, or after
 * CLOSING_YIELD_MAX_MS in all (background work is delayed, never stopped). A wait that ran out opens the gate for as
 * long again: when the closing stays behind whatever the background does (a host too slow for the rate), background
 * work still gets at least half the time.
 *
 * The signal is PostgreSQL's own, read where every process can see it: the oldest ABIERTA window past its deadline
 * (one read of the partial index of open deadlines), not a statistic of past lateness. Windows overdue by more than
 * STUCK_MS are not the closing being busy but a job lost or failing (the reconcile's and the retries' business):
 * they do not hold background work. One read at a time per process, its answer shared by every job that asks within
 * FRESH_MS.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Counter } from 'prom-client';
import { oldestOverdueWindowMs } from '../db/stores/offers.js';
import { registry } from '../metrics/registry.js';

/** re-asked at most this often while a job waits */
const POLL_MS = 10;
/** an answer younger than this is shared by the jobs that ask */
const FRESH_MS = 5;
/** a window overdue by more than this is a lost or failing job, not a busy closing */
export const STUCK_MS = 5000;

export const backgroundYields = new Counter({
  name: 'broker_background_yield_seconds_total',
  help: 'Time background jobs waited before starting because a window was overdue (the closing behind; TC-1), by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export interface ClosingGateOptions {
  /** a window overdue by more than this holds background jobs (ms) */
  lateMs: number;
  /** the most a job waits (ms); 0: the gate is open */
  maxWaitMs: number;
}

export class ClosingGate {
  private asked: { at: number; overdue: Promise<number | null> } | null = null;
  /** after a wait ran out, open until then */
  private openUntil = 0;

  constructor(
    private readonly em: () => EntityManager,
    private readonly opts: ClosingGateOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** How overdue the oldest open window is (ms, under STUCK_MS), null when none is; one read shared for FRESH_MS. */
  private overdue(): Promise<number | null> {
    const at = this.now();
    if (!this.asked || at - this.asked.at >= FRESH_MS) {
      // a failed read (PostgreSQL away) does not hold anything: the job itself will meet the outage
      this.asked = { at, overdue: oldestOverdueWindowMs(this.em(), STUCK_MS).catch(() => null) };
    }
    return this.asked.overdue;
  }

  /** Resolves when the closing is not behind, or after the most a job waits; returns how long it waited (ms). */
  async pass(queue: string): Promise<number> {
    if (this.opts.maxWaitMs <= 0) return 0;
    const start = this.now();
    if (start < this.openUntil) return 0;
    let held = false;
    for (;;) {
      const overdue = await this.overdue();
      const waited = this.now() - start;
      const ranOut = waited >= this.opts.maxWaitMs;
      if (overdue === null || overdue <= this.opts.lateMs || ranOut) {
        if (ranOut) this.openUntil = Math.max(this.openUntil, this.now() + this.opts.maxWaitMs);
        if (held) backgroundYields.inc({ queue }, waited / 1000);
        return held ? waited : 0;
      }
      held = true;
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, this.opts.maxWaitMs - waited)));
    }
  }
}
