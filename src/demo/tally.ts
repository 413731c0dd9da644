/**
 * What the demo saw, counted: the one-line summary printed every few
 * seconds and the final machine-readable tally (one `DEMO_TALLY {json}` line).
 * Lateness is the acceptance notification's (6.1) arrival at the generator's
 * receiver minus the offer's deadline, as an integrator would measure it.
 */
export const EVENTS = [
  'offerPosted',
  'offerScheduled',
  'offerByAddress',
  'offerUncovered',
  'stopAdded',
  'offerReceived',
  'response',
  'responseRefused',
  'notAnswered',
  'responseSeenByGenerator',
  'selection',
  'acceptanceReceived',
  'assignment',
  'enCamino',
  'enSitio',
  'finalizada',
  'sinRespuesta',
  'expirada',
  'positionReported',
  'customerCode',
  'customerTracked',
  'customerPosition',
  'chatSent',
  'chatReceived',
  'stateWebhookVerified',
  'webhookVerified',
  'webhookRejected',
  'apiFailure',
  'serviceErrorLine',
] as const;

export type DemoEvent = (typeof EVENTS)[number];

export class Tally {
  readonly counts = Object.fromEntries(EVENTS.map((e) => [e, 0])) as Record<DemoEvent, number>;
  /** offers posted and not yet closed (selected, unanswered or refused) */
  readonly open = new Set<string>();
  readonly latenessMs: number[] = [];
  readonly failures: string[] = [];
  private readonly started = Date.now();

  add(event: DemoEvent, n = 1): void {
    this.counts[event] += n;
  }

  /** a failure worth a line on the console (kept, the first 50, for the final tally) */
  fail(event: 'apiFailure' | 'webhookRejected' | 'serviceErrorLine', what: string): void {
    this.add(event);
    if (this.failures.length < 50) this.failures.push(what);
  }

  closed(uuid: string): boolean {
    return this.open.delete(uuid);
  }

  p99LatenessMs(): number | null {
    if (!this.latenessMs.length) return null;
    const sorted = [...this.latenessMs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  }

  line(): string {
    const c = this.counts;
    const secs = Math.round((Date.now() - this.started) / 1000);
    const p99 = this.p99LatenessMs();
    const failures = c.apiFailure + c.webhookRejected + c.serviceErrorLine;
    return (
      `[demo ${secs}s] offers ${c.offerPosted} (open ${this.open.size}) · windows closed ${c.selection + c.sinRespuesta}` +
      ` · p99 lateness ${p99 === null ? '-' : `${p99} ms`} · webhooks delivered ${c.webhookVerified}` +
      ` · assigned ${c.assignment} · finished ${c.finalizada} · unanswered ${c.sinRespuesta} · chat ${c.chatSent} · failures ${failures}`
    );
  }

  final(extra: Record<string, unknown>): string {
    return `DEMO_TALLY ${JSON.stringify({ ...this.counts, open: this.open.size, p99LatenessMs: this.p99LatenessMs(), failures: this.failures, ...extra })}`;
  }
}
