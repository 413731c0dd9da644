/**
 * The warning printed at start (stderr, plain text) when the process runs with
 * public defaults: the development secrets published in config/index.ts and,
 * for `npm start`, the demo users of config/demo.json (issue 8, item 12). When
 * it shows, it also says when outbound calls may reach private addresses.
 * Production requires the secrets and loads no demo, so it never shows there.
 */
import { publicSecretsInUse, type Config } from '../../config/index.js';
import { publicOrigin } from '../domain/tracking/messages.js';
import { supervised } from './shutdown.js';

export interface BannerOptions {
  /** `npm start` loads config/demo.json (public passwords) into an empty database */
  demo: boolean;
}

const RULE = '!'.repeat(78);

/** The banner's lines, or null when nothing public is in use. */
export function unsafeDefaultsBanner(cfg: Config, opts: BannerOptions): string | null {
  if (cfg.nodeEnv === 'production') return null;
  const secrets = publicSecretsInUse(cfg);
  if (!secrets.length && !opts.demo) return null;
  const lines = [
    RULE,
    `!! NOT FOR PRODUCTION: NODE_ENV is ${cfg.nodeEnv}, and this process uses PUBLIC defaults:`,
  ];
  if (secrets.includes('JWT_SECRET')) {
    lines.push("!!  - JWT_SECRET is not set: operators' tokens are signed with a secret published in");
    lines.push('!!    the source code; anyone can forge an operator token.');
  }
  if (secrets.includes('INTEGRITY_SECRET')) {
    lines.push('!!  - INTEGRITY_SECRET is not set: chat and tracking integrity uses a published secret.');
  }
  if (cfg.outboundAllowPrivate) {
    lines.push('!!  - OUTBOUND_ALLOW_PRIVATE is on (the default outside production): webhooks and pushes');
    lines.push("!!    may reach loopback and private addresses, the machine's own services included.");
  }
  if (opts.demo) {
    lines.push('!!  - demo data: an empty database gets the API users and operators of config/demo.json,');
    lines.push('!!    whose passwords and API keys are public; they stay until you remove them.');
  }
  lines.push('!! For production: NODE_ENV=production, JWT_SECRET and INTEGRITY_SECRET set to 32 or more');
  lines.push('!! random characters each, PUBLIC_ORIGIN (the origin browsers use), real users from');
  lines.push('!! `npm run provision -- FILE`, and no demo users.');
  lines.push(RULE);
  return `${lines.join('\n')}\n`;
}

/**
 * Prints the banner on stderr. A process started by the `npm start`
 * supervisor stays quiet: the supervisor has printed it once for all.
 */
export function warnUnsafeDefaults(cfg: Config, opts: BannerOptions): void {
  if (supervised) return;
  const text = unsafeDefaultsBanner(cfg, opts);
  if (text) process.stderr.write(text);
}

/**
 * What to open once `npm start` is up (issue 31): the operator console, the
 * customer page, the API docs (their description starts with the getting
 * started) and the queues, at PUBLIC_ORIGIN when set, else on this machine.
 */
export function linksBanner(cfg: Config, opts: BannerOptions): string {
  const origin = publicOrigin(cfg);
  const rows: Array<[string, string, string]> = [
    ['Operator console', `${origin}/admin/console`, opts.demo ? 'demo login: ops / change-me-now' : ''],
    ['Customer page', `${origin}/seguimiento`, 'the expediente and the phone of a service, then the SMS code'],
    ['API docs', `${origin}/api/v3/docs`, 'getting started at the top; /api/v3/openapi.json'],
    ['Queues', `${origin}/admin/queues`, 'Bull Board, for operators'],
  ];
  const width = Math.max(...rows.map(([, url]) => url.length));
  return `${[`Service Offer Brokering API on ${origin}`, ...rows.map(([what, url, note]) => `  ${what.padEnd(17)} ${url.padEnd(width)}${note ? `  ${note}` : ''}`)].join('\n')}\n`;
}

/** Prints the links on stdout, once (a supervised child stays quiet). */
export function printLinks(cfg: Config, opts: BannerOptions): void {
  if (supervised) return;
  process.stdout.write(linksBanner(cfg, opts));
}
