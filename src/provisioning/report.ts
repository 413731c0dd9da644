/** Plain-text lines for people: the provisioning summary and the demo credentials. */
import { SECTIONS, type ProvisionDocument, type ProvisionSummary } from './document.js';

export function summaryLines(summary: ProvisionSummary): string[] {
  const pad = (v: string | number, n: number) => String(v).padStart(n);
  return [
    `${'section'.padEnd(14)}${pad('created', 9)}${pad('updated', 9)}${pad('unchanged', 11)}`,
    ...SECTIONS.map((s) => {
      const c = summary[s];
      return `${s.padEnd(14)}${pad(c.created, 9)}${pad(c.updated, 9)}${pad(c.unchanged, 11)}`;
    }),
  ];
}

/** Who can log in to the demo and how to try it (`baseUrl` like http://localhost:3000). */
export function demoCredentialLines(doc: ProvisionDocument, baseUrl: string): string[] {
  const lines = ['Demo data loaded (an empty database, NODE_ENV is not production). Demo credentials:'];
  for (const u of doc.apiUsers ?? []) {
    const password = u.password ?? '(given as a SHA-256 digest)';
    const key = u.apiKey ? `  x-apikey: ${u.apiKey}` : '';
    lines.push(`  API user     ${u.username} / ${password}${key}  endpoints: ${u.endpoints.join(' ')}`);
  }
  for (const o of doc.operators ?? []) lines.push(`  operator     ${o.username} / ${o.password}  (${o.role ?? 'operator'})`);
  const user = doc.apiUsers?.find((u) => u.password && u.status === 'ACTIVO' && u.endpoints.some((e) => e === '*' || e === '/types'));
  if (user) lines.push('Try it:', `  curl -u '${user.username}:${user.password}' ${baseUrl}/api/v3/types`);
  const op = doc.operators?.[0];
  if (op) {
    const login = JSON.stringify({ username: op.username, password: op.password });
    lines.push(
      `  curl -c ops.cookies -H 'content-type: application/json' -d '${login}' ${baseUrl}/api/v3/users/login`,
      `  curl -b ops.cookies ${baseUrl}/admin/queues`,
      `Bull Board in a browser: ${baseUrl}/admin/login (operator ${op.username}), then ${baseUrl}/admin/queues`,
    );
  }
  return lines;
}
