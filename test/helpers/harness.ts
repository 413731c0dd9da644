/**
 * Starts the real service for a test: the runtime against the run's database
 * and Redis, the HTTP server on an ephemeral port and, when asked, the workers.
 */
import got, { type Got, type OptionsOfJSONResponseBody } from 'got';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../config/index.js';
import { startHttpServer, type HttpServer, type HttpServerOptions } from '../../src/main/server.js';
import { loggerOptions } from '../../src/logger.js';
import { createRuntime, type Runtime } from '../../src/main/runtime.js';
import { startWorkers, type WorkerGroup, type WorkerOptions } from '../../workers/index.js';
import { resetDb } from './db.js';
import { clearQueues } from './queues.js';
import { checkResponse } from './openapi.js';

export interface TestApp {
  rt: Runtime;
  http: HttpServer;
  url: string;
  /** HTTP client to the app: JSON, no throwing on non-2xx, no retries, GET bodies allowed; every answer checked against the OpenAPI document */
  client: Got;
  workers?: WorkerGroup;
  /** JSON log lines written so far */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  workers?: boolean | WorkerOptions;
  http?: HttpServerOptions;
}

export async function startApp(opts: StartOptions = {}): Promise<TestApp> {
  const cfg: Config = loadConfig({ ...process.env, PORT: '0', ...opts.env });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  const log = pino(loggerOptions('info'), sink);
  const rt = await createRuntime(cfg, { log });
  const http = await startHttpServer(rt, 0, opts.http);
  const url = `http://127.0.0.1:${http.port}`;
  const workers = opts.workers ? await startWorkers(rt, opts.workers === true ? {} : opts.workers) : undefined;
  const client = got.extend({
    prefixUrl: url,
    throwHttpErrors: false,
    retry: { limit: 0 },
    followRedirect: false,
    allowGetBody: true,
    responseType: 'json',
    timeout: { request: 30000 },
    hooks: {
      // Every answer the suite sees must be one the OpenAPI document describes (D19).
      afterResponse: [
        (response) => {
          checkResponse({
            method: response.request.options.method,
            url: response.url,
            status: response.statusCode,
            contentType: String(response.headers['content-type'] ?? ''),
            body: response.body,
          });
          return response;
        },
      ],
    },
  });
  return {
    rt,
    http,
    url,
    client,
    workers,
    logs,
    async close() {
      await http.close();
      await workers?.close();
      await rt.close();
    },
  };
}

/**
 * The app with its workers started only once the database and the queues are clean, so no worker runs
 * another suite's leftover job while the database is truncated under it; closing clears the queues again.
 */
export async function startCleanApp(opts: StartOptions = {}): Promise<TestApp> {
  const app = await startApp({ ...opts, workers: false });
  await resetDb(app.rt.orm);
  await clearQueues(app.rt);
  const workers = await startWorkers(app.rt, typeof opts.workers === 'object' ? opts.workers : {});
  return {
    ...app,
    workers,
    async close() {
      await app.http.close();
      await workers.close();
      await clearQueues(app.rt);
      await app.rt.close();
    },
  };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export type { OptionsOfJSONResponseBody };
