/**
 * The operator console's pages (issue 11, D18): server-rendered Spanish HTML,
 * every value escaped. Home: find an offer, receivers' health. An offer:
 * transitions, the D2 ranking with its figures, recipients, deliveries with
 * request, reply, latency and every attempt, and (for an admin) a resend
 * button per finished delivery.
 */
import type { ReceiverHealth } from '../../domain/deliveries/log.js';
import type { Timeline } from '../../domain/console/timeline.js';

export const CONSOLE_PATH = '/admin/console';

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
const when = (iso: string | null) => (iso ? esc(new Date(iso).toISOString().replace('T', ' ').slice(0, 19)) : '—');
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

const STYLE = `
  body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: #1a1a1a; background: #f4f5f7; }
  header { background: #1f2937; color: #fff; padding: .7rem 1rem; display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
  header h1 { margin: 0; font-size: 1.1rem; } header a { color: #fff; }
  main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
  section { background: #fff; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; box-shadow: 0 1px 3px #0002; overflow-x: auto; }
  h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
  table { border-collapse: collapse; width: 100%; font-size: .92rem; }
  th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
  th { background: #f9fafb; }
  tr.winner td { background: #ecfdf5; font-weight: 600; }
  label { font-weight: 600; margin-right: .5rem; }
  input { font: inherit; padding: .45rem; min-width: 18rem; border: 2px solid #6b7280; border-radius: 6px; }
  button { font: inherit; padding: .45rem .9rem; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; cursor: pointer; }
  :focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  .ok { color: #14532d; } .failed { color: #991b1b; font-weight: 600; }
  .error { color: #991b1b; background: #fef2f2; border-left: 4px solid #991b1b; padding: .5rem .7rem; }
  .notice { color: #14532d; background: #f0fdf4; border-left: 4px solid #14532d; padding: .5rem .7rem; }
  details { margin: .3rem 0; } pre { white-space: pre-wrap; word-break: break-all; background: #f3f4f6; padding: .5rem; margin: .3rem 0; font-size: .85rem; }
`;

function layout(title: string, body: string, who: { username: string; role: string }): string {
  return `<!doctype html>
<html lang="es">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Consola de operadores</title><style>${STYLE}</style></head>
<body>
<header><h1>Consola de operadores</h1><a href="${CONSOLE_PATH}">Buscar oferta</a><a href="/admin/queues">Colas</a>
<span>${esc(who.username)} (${esc(who.role)})</span></header>
<main>${body}</main>
</body></html>
`;
}

const search = (q = '') => `<section><h2>Buscar una oferta</h2>
<form method="get" action="${CONSOLE_PATH}"><label for="q">uuid o código de servicio</label>
<input id="q" name="q" required maxlength="64" value="${esc(q)}"> <button type="submit">Buscar</button></form></section>`;

export function consoleHomePage(who: { username: string; role: string }, health: ReceiverHealth[], error?: string, q?: string): string {
  const rows = health.length
    ? health
        .map(
          (h) =>
            `<tr><td>${esc(h.url)}</td><td>${h.intentos}</td><td>${h.fallidos}</td><td class="${h.tasaFallo > 0.2 ? 'failed' : 'ok'}">${pct(h.tasaFallo)}</td><td>${esc(h.ultimoEstado ?? 'sin respuesta')}</td><td>${when(h.ultimoIntento)}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="6">Sin envíos en la última hora.</td></tr>';
  return layout(
    'Inicio',
    `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${search(q)}
<section><h2>Salud de los receptores (última hora)</h2>
<table><thead><tr><th scope="col">Endpoint</th><th scope="col">Intentos</th><th scope="col">Fallidos</th><th scope="col">Tasa de fallo</th><th scope="col">Último estado</th><th scope="col">Último intento</th></tr></thead>
<tbody>${rows}</tbody></table></section>`,
    who,
  );
}

export function consoleOfferPage(who: { username: string; role: string }, t: Timeline, notice?: { ok: boolean; text: string }): string {
  const o = t.offer;
  const transitions = t.transitions
    .map(
      (x) =>
        `<tr><td>${when(x.at)}</td><td>${esc(x.from ?? '—')}</td><td>${esc(x.to)}</td><td>${esc(x.actor)}</td><td>${x.techLat != null ? `${esc(x.techLat)}, ${esc(x.techLng)}` : '—'}</td></tr>`,
    )
    .join('');
  const ranking = t.ranking.length
    ? t.ranking
        .map(
          (r) =>
            `<tr class="${r.winner ? 'winner' : ''}"><td>${r.position}${r.winner ? ' (ganadora)' : ''}</td><td>${esc(r.central)}</td><td>${esc(r.technician)}</td><td>${esc(Math.round(r.timeMin))} min ${r.timeGiven ? '(informado)' : '(estimado por distancia)'}</td><td>${esc(r.rate)}</td><td>${esc(r.distanceKm.toFixed(2))} km</td><td>${when(r.respondedAt)}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="7">Sin respuestas.</td></tr>';
  const recipients = t.recipients.length
    ? t.recipients
        .map(
          (r) =>
            `<tr><td>${esc(r.kind === 'central' ? 'central' : 'técnico')}</td><td>${esc(r.central)}</td><td>${esc(r.technician ?? '—')}</td><td>${esc(r.channel)}</td><td>${r.distanceKm != null ? `${esc(r.distanceKm.toFixed(2))} km` : '—'}</td><td>${when(r.notifiedAt)}</td><td>${esc(r.push ?? '—')}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="7">Nadie recibió la oferta (asignación directa o sin cobertura).</td></tr>';
  const deliveries = t.deliveries.length
    ? t.deliveries
        .map((d) => {
          const resend =
            who.role === 'admin' && (d.estado === 'ok' || d.estado === 'failed')
              ? `<form method="post" action="${CONSOLE_PATH}/entregas/${esc(d.id)}/reenviar"><button type="submit" aria-label="Reenviar la entrega ${esc(d.kind)} a ${esc(d.url)}">Reenviar</button></form>`
              : '';
          const attempts = d.attempts
            .map(
              (a) =>
                `<details><summary>Intento ${a.intento} · ${esc(a.actor)} · ${when(a.fecha)} · ${esc(a.statusCode ?? 'sin respuesta')} · ${esc(a.latenciaMs ?? '—')} ms</summary>
<pre>${esc(JSON.stringify(a.requestHeaders, null, 1))}</pre><pre>${esc(a.respuesta ?? a.error ?? '')}</pre></details>`,
            )
            .join('');
          return `<tr><td>${esc(d.kind)}</td><td>${esc(d.url)}</td><td class="${d.estado === 'failed' ? 'failed' : d.estado === 'ok' ? 'ok' : ''}">${esc(d.estado)}</td><td>${esc(d.statusCode ?? '—')}</td><td>${esc(d.latenciaMs ?? '—')} ms</td><td>${d.intentos}</td><td><code>${esc(d.eventId)}</code></td><td>
<details><summary>Solicitud</summary><pre>${esc(JSON.stringify(d.requestBody, null, 1))}</pre></details>${attempts}</td><td>${resend}</td></tr>`;
        })
        .join('')
    : '<tr><td colspan="9">Sin entregas.</td></tr>';
  return layout(
    `Oferta ${o.uuid}`,
    `${notice ? `<p class="${notice.ok ? 'notice' : 'error'}" role="${notice.ok ? 'status' : 'alert'}">${esc(notice.text)}</p>` : ''}${search()}
<section><h2>Oferta ${esc(o.uuid)}</h2>
<p>Estado <strong>${esc(o.state)}</strong> · código ${esc(o.codigoServicio ?? '—')} · generador ${esc(t.generator)} · creada ${when(o.createdAt.toISOString())} · cierre de la ventana ${when(o.deadlineAt ? o.deadlineAt.toISOString() : null)}</p></section>
<section><h2>Transiciones</h2><table><thead><tr><th scope="col">Fecha</th><th scope="col">De</th><th scope="col">A</th><th scope="col">Actor</th><th scope="col">Posición del técnico</th></tr></thead><tbody>${transitions}</tbody></table></section>
<section><h2>Clasificación de respuestas (D2: menor tiempo, luego mejor calificación, luego menor distancia, luego la primera)</h2>
<table><thead><tr><th scope="col">Puesto</th><th scope="col">Central</th><th scope="col">Técnico</th><th scope="col">Tiempo de llegada</th><th scope="col">Calificación</th><th scope="col">Distancia</th><th scope="col">Respondió</th></tr></thead><tbody>${ranking}</tbody></table></section>
<section><h2>Destinatarios</h2><table><thead><tr><th scope="col">Tipo</th><th scope="col">Central</th><th scope="col">Técnico</th><th scope="col">Canal</th><th scope="col">Distancia</th><th scope="col">Notificado</th><th scope="col">Envío HTTP</th></tr></thead><tbody>${recipients}</tbody></table></section>
<section><h2>Entregas de webhooks</h2><table><thead><tr><th scope="col">Tipo</th><th scope="col">URL</th><th scope="col">Estado</th><th scope="col">HTTP</th><th scope="col">Latencia</th><th scope="col">Intentos</th><th scope="col">webhook-id</th><th scope="col">Detalle</th><th scope="col">Acción</th></tr></thead><tbody>${deliveries}</tbody></table></section>`,
    who,
  );
}

export function consoleMessagePage(who: { username: string; role: string }, text: string): string {
  return layout('Aviso', `<p class="error" role="alert">${esc(text)}</p>${search()}`, who);
}
