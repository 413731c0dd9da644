/**
 * The queue signals in GET /metrics (issue 31, item 6): per queue, jobs
 * completed, failed, given up and stalled, wait and run times (measured in the
 * process that runs the jobs), the oldest waiting job and Redis's memory (read
 * at scrape time), and each process's heartbeat. A queue prefix of its own, so
 * the figures are this file's only.
 */
import { expect } from 'chai';
import { Worker } from 'bullmq';
import { startApp, type TestApp } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait.js';
import { startWorkers, type WorkerGroup } from '../../workers/index.js';
import { handlers as realHandlers, type Handlers } from '../../workers/processors/index.js';
import { metricsKey, publishMetrics } from '../../src/metrics/metrics.js';
import { heart, heartbeatsKey, KEEP_MS } from '../../src/metrics/heartbeat.js';
import { sample, samples } from './prometheus.js';
import { duplicateRedis } from '../../src/queues/redis.js';

const TOKEN = 'scraper-token-of-the-queue-tests';
const SMS = { queue: 'customer-sms' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** customer-sms/send as these tests want it: `ok-*` succeeds after 30 ms, `fail-*` fails. */
const handlers: Handlers = {
  ...realHandlers,
  'customer-sms': {
    send: async (_rt, { smsId }) => {
      await sleep(30);
      if (smsId.startsWith('fail-')) throw new Error('the SMS provider said no (test)');
    },
  },
};

describe('GET /metrics: queue signals, Redis memory and heartbeats (issue 31.6)', function () {
  this.timeout(30000);
  let app: TestApp;
  let workers: WorkerGroup | undefined;

  before(async () => {
    app = await startApp({
      env: {
        METRICS_TOKEN: TOKEN,
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}_qmetrics`,
        SMS_ATTEMPTS: '2',
        WORKER_STALLED_INTERVAL_MS: '300',
      },
    });
  });
  after(async () => {
    await workers?.close();
    for (const q of app.rt.queues.all()) await q.obliterate({ force: true });
    await app.rt.redis.del(heartbeatsKey(app.rt.config.queuePrefix), metricsKey(app.rt.config.queuePrefix));
    await app.close();
  });

  const scrape = async () => {
    const res = await app.client.get('metrics', { headers: { authorization: `Bearer ${TOKEN}` }, responseType: 'text' });
    expect(res.statusCode).to.equal(200);
    return String(res.body);
  };

  it('counts a worker’s jobs: completed, failed attempts, given up after the last, stalled; wait and run times', async () => {
    // the process's registry also holds what earlier suites' workers counted: compared with this start
    const before = await scrape();
    const delta = (text: string, name: string, labels: Record<string, string>) => sample(text, name, labels) - sample(before, name, labels);
    // A job taken by a process that then stops extending its lock (as when killed): stalled once workers check.
    await app.rt.queues.add('customer-sms', 'send', { smsId: 'ok-stalled' });
    const gone = new Worker('customer-sms', null, {
      connection: duplicateRedis(app.rt.redis, { maxRetriesPerRequest: null }),
      prefix: app.rt.queues.prefixOf('customer-sms'),
      autorun: false,
      lockDuration: 200,
    });
    expect(await gone.getNextJob('a-process-that-died')).to.not.equal(undefined);
    await gone.close(true);
    await gone.disconnect();

    workers = await startWorkers(app.rt, { queues: ['customer-sms'], handlers });
    await app.rt.queues.add('customer-sms', 'send', { smsId: 'ok-1' });
    await app.rt.queues.add('customer-sms', 'send', { smsId: 'ok-delayed' }, { delay: 300 });
    await app.rt.queues.add('customer-sms', 'send', { smsId: 'fail-1' });

    const q = app.rt.queues.get('customer-sms');
    await waitFor(async () => ((await q.getJobCounts('completed')).completed === 3 && (await q.getJobCounts('failed')).failed === 1 ? true : null), 15000);
    const text = await scrape();
    expect(delta(text, 'broker_queue_jobs_completed_total', SMS)).to.equal(3);
    expect(delta(text, 'broker_queue_jobs_failed_total', SMS)).to.equal(2); // two attempts (SMS_ATTEMPTS=2)
    expect(delta(text, 'broker_queue_jobs_given_up_total', SMS)).to.equal(1);
    expect(delta(text, 'broker_queue_jobs_stalled_total', SMS)).to.equal(1);
    // first starts only: ok-1, ok-delayed and fail-1's first attempt (not its retry, nor the stalled job's retake)
    expect(delta(text, 'broker_queue_job_wait_seconds_count', SMS)).to.equal(3);
    // the delayed job is measured from its due time, not from when it was added (300 ms before)
    expect(delta(text, 'broker_queue_job_wait_seconds_bucket', { ...SMS, le: '0.25' })).to.equal(3);
    expect(delta(text, 'broker_queue_job_run_seconds_count', SMS)).to.equal(5);
    expect(delta(text, 'broker_queue_job_run_seconds_bucket', { ...SMS, le: '0.025' })).to.equal(0); // each ran ≥ 30 ms
  });

  it('reads at scrape time the oldest waiting job per queue (overdue delayed jobs included) and Redis’s memory', async () => {
    await app.rt.queues.add('offer-distribution', 'distribute', { offerUuid: '00000000-0000-4000-8000-0000000000d1' });
    // due in 100 ms, and no worker of offer-evaluation runs here to promote it: it waits in the delayed set
    await app.rt.queues.add('offer-evaluation', 'evaluate', { offerUuid: '00000000-0000-4000-8000-0000000000d2' }, { delay: 100 });
    await app.rt.queues.add('webhook-dispatch', 'deliver', { deliveryId: '00000000-0000-4000-8000-0000000000d3' }, { delay: 3_600_000 });
    await sleep(1200);
    const text = await scrape();
    const age = (queue: string) => sample(text, 'broker_queue_oldest_waiting_job_age_seconds', { queue });
    expect(age('offer-distribution')).to.be.within(1.1, 5);
    expect(age('offer-evaluation')).to.be.within(1.0, 5);
    expect(age('webhook-dispatch')).to.equal(0); // delayed, not yet due
    expect(age('customer-sms')).to.equal(0); // its worker runs here: nothing waits

    const used = sample(text, 'broker_redis_memory_used_bytes');
    expect(used).to.be.above(100_000);
    const info = await app.rt.redis.info('memory');
    expect(sample(text, 'broker_redis_maxmemory_bytes')).to.equal(Number(/^maxmemory:(\d+)/m.exec(info)?.[1]));
  });

  it('shows each process’s last heartbeat and how many live processes take each queue; drops a beat older than 5 min', async () => {
    const prefix = app.rt.config.queuePrefix;
    // this process as an API process: metrics and heartbeat in one pipeline, both removed on a clean stop
    const stop = publishMetrics(app.rt.redis, prefix, 'api');
    // a worker process elsewhere, alive; one that died a minute ago; one long gone
    const now = Date.now();
    const pipeline = app.rt.redis.pipeline();
    heart(prefix, 'worker', ['customer-sms', 'offer-distribution']).beat(pipeline, now);
    pipeline.hset(heartbeatsKey(prefix), 'worker:elsewhere:41', JSON.stringify({ role: 'worker', pid: 41, host: 'elsewhere', queues: ['customer-sms'], at: now - 60_000 }));
    pipeline.hset(heartbeatsKey(prefix), 'worker:elsewhere:40', JSON.stringify({ role: 'worker', pid: 40, host: 'elsewhere', queues: ['customer-sms'], at: now - KEEP_MS - 1000 }));
    await pipeline.exec();

    const text = await waitFor(async () => {
      const t = await scrape();
      return sample(t, 'broker_process_heartbeat_seconds', { role: 'api', pid: String(process.pid) }, true) ? t : null;
    });
    const beats = samples(text, 'broker_process_heartbeat_seconds');
    const api = beats.find((b) => b.labels.role === 'api');
    expect(api?.value).to.be.closeTo(Date.now() / 1000, 10);
    expect(beats.find((b) => b.labels.role === 'worker' && b.labels.pid === String(process.pid))?.value).to.equal(now / 1000);
    expect(sample(text, 'broker_process_heartbeat_seconds', { role: 'worker', host: 'elsewhere', pid: '41' })).to.equal((now - 60_000) / 1000);
    expect(beats.filter((b) => b.labels.pid === '40')).to.deep.equal([]);
    expect(await app.rt.redis.hexists(heartbeatsKey(prefix), 'worker:elsewhere:40')).to.equal(0);
    expect(await app.rt.redis.pttl(heartbeatsKey(prefix))).to.be.within(1, KEEP_MS);

    // the one that died a minute ago is not counted among customer-sms's live processes
    expect(sample(text, 'broker_queue_worker_processes', { queue: 'customer-sms' })).to.equal(1);
    expect(sample(text, 'broker_queue_worker_processes', { queue: 'offer-distribution' })).to.equal(1);
    expect(sample(text, 'broker_queue_worker_processes', { queue: 'offer-evaluation' })).to.equal(0);

    await stop();
    const after = await scrape();
    expect(samples(after, 'broker_process_heartbeat_seconds').filter((b) => b.labels.role === 'api')).to.deep.equal([]);
  });
});
