/**
 * The operator console's pages (issue 11, D18; issue 31, D23): server-rendered
 * Spanish HTML, every value escaped, every time in one time zone whose name
 * the header shows. Home: the work queue (active and stuck services with their
 * facts), the live map with its table view, find an offer, receivers' health.
 * An offer: transitions, the ranking with its figures, recipients, deliveries
 * with request, reply, latency and every attempt, and (for an admin) a resend
 * button per finished delivery, behind a confirmation. The live parts are
 * kept current by the console's script (consoleScript.ts).
 */
import type { ReceiverHealth } from '../../domain/deliveries/log.js';
import type { Timeline } from '../../domain/console/timeline.js';
import type { LiveMap } from '../../domain/console/liveMap.js';
import type { StuckReason, WorkItem } from '../../domain/console/workQueue.js';
import { CONSOLE_TIME_ZONE, LEGEND, ago, clock, mapSvg, mapTables, mapView, stateWord, summary } from './assets/consoleMap.js';

export const CONSOLE_PATH = '/admin/console';
export const CONSOLE_SCRIPT_PATH = `${CONSOLE_PATH}/app.js`;
export const CONSOLE_QUEUE_PATH = `${CONSOLE_PATH}/cola`;
export const LOGOUT_PATH = '/admin/logout';

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
const when = (iso: string | null) => esc(clock(iso));
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The UTC offset of the console's zone now, e.g. "UTC−05:00". */
function zoneOffset(now = new Date()): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: CONSOLE_TIME_ZONE, timeZoneName: 'longOffset' }).formatToParts(now).find((p) => p.type === 'timeZoneName');
  return (part?.value ?? 'GMT').replace('GMT', 'UTC').replace('-', '−') || 'UTC';
}

/** A delivery's kind in plain words. */
export const DELIVERY_KIND_WORDS: Record<string, string> = {
  acceptance: 'Aviso de aceptación al generador',
  state: 'Cambio de estado al generador',
  novedad: 'Novedad a la central',
  'offer-push': 'Oferta enviada a la central',
  'assignment-push': 'Asignación enviada a la central',
};
const DELIVERY_STATE_WORDS: Record<string, string> = { ok: 'entregada', failed: 'fallida', pending: 'pendiente', sending: 'enviándose' };
const REASON_WORDS: Record<StuckReason, string> = {
  'ventana-atrasada': 'La ventana de respuestas ya debía haberse cerrado',
  'entregas-fallidas': 'Avisos al generador o a la central fallidos',
  'sin-avance': 'Sin avance hace mucho',
  'sms-fallido': 'El SMS al cliente no salió',
};
const CHANNEL_WORDS: Record<string, string> = { http: 'por su API', realtime: 'en la aplicación', none: 'sin canal' };

/** What the confirmation says before a resend; the acceptance notice (6.1) is sent once by the spec. */
export function resendExplanation(kind: string): { text: string; once: boolean } {
  if (kind === 'acceptance') {
    return {
      once: true,
      text:
        'Este aviso de aceptación se envía una sola vez: el generador ya lo recibió (o lo rechazó). Reenviarlo le entrega el mismo aviso otra vez, con el mismo identificador, y no cambia el estado del servicio: si el generador lo rechazó, la oferta sigue inactiva. Hágalo solo si el generador pidió recibirlo de nuevo.',
    };
  }
  return { once: false, text: 'Se enviará de nuevo el mismo aviso, con el mismo identificador, al mismo destino. El envío queda registrado a su nombre.' };
}

const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  [hidden] { display: none !important; }
  body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: #1a1a1a; background: #f4f5f7; }
  .saltar { position: absolute; left: -999px; top: 0; background: #fff; color: #1d4ed8; padding: .5rem; z-index: 10; }
  .saltar:focus { left: .5rem; }
  header { background: #1f2937; color: #fff; padding: .6rem 1rem; display: flex; gap: .4rem 1rem; align-items: center; flex-wrap: wrap; }
  header .marca { margin: 0; font-size: 1.1rem; font-weight: 700; color: #fff; text-decoration: none; }
  header nav { display: flex; gap: 1rem; } header nav a { color: #fff; }
  header .zona { font-size: .85rem; color: #e5e7eb; }
  header .quien { margin-left: auto; display: flex; gap: .6rem; align-items: center; flex-wrap: wrap; }
  header form { margin: 0; }
  header button { background: #374151; border: 1px solid #9ca3af; }
  main { max-width: 90rem; margin: 0 auto; padding: 1rem; }
  section { background: #fff; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; box-shadow: 0 1px 3px #0002; }
  h1 { font-size: 1.25rem; margin: .2rem 0 1rem; }
  h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
  .desplazable { overflow: auto; max-width: 100%; }
  .desplazable:focus-visible { outline: 3px solid #b45309; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; }
  caption { text-align: left; font-weight: 700; padding: .6rem 0 .3rem; }
  th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
  thead th { background: #f9fafb; }
  tbody th { font-weight: 600; }
  tr.winner td, tr.winner th { background: #ecfdf5; font-weight: 600; }
  tr.atascado th, tr.atascado td { background: #fff7ed; }
  .motivo { display: inline-block; background: #9a3412; color: #fff; border-radius: 4px; padding: 0 .35rem; margin: 0 .2rem .2rem 0; font-size: .8rem; }
  .suave { color: #4b5563; font-size: .85rem; }
  label { font-weight: 600; margin-right: .5rem; }
  input { font: inherit; padding: .45rem; min-width: min(18rem, 100%); border: 2px solid #6b7280; border-radius: 6px; }
  button { font: inherit; padding: .45rem .9rem; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; cursor: pointer; }
  button.secundario { background: #fff; color: #1d4ed8; border: 2px solid #1d4ed8; }
  button.secundario[aria-pressed="true"] { background: #1d4ed8; color: #fff; }
  :focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  .ok { color: #14532d; } .failed { color: #991b1b; font-weight: 600; }
  .error { color: #991b1b; background: #fef2f2; border-left: 4px solid #991b1b; padding: .5rem .7rem; }
  .notice { color: #14532d; background: #f0fdf4; border-left: 4px solid #14532d; padding: .5rem .7rem; }
  details { margin: .3rem 0; } pre { white-space: pre-wrap; word-break: break-all; background: #f3f4f6; padding: .5rem; margin: .3rem 0; font-size: .85rem; }
  .mapa-cabecera { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; }
  .mapa-cabecera h2 { margin: 0; }
  .controles { display: flex; gap: .4rem; flex-wrap: wrap; }
  .controles button { padding: .35rem .7rem; }
  .mapa-cuerpo { display: grid; gap: 1rem; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); align-items: start; margin-top: .6rem; }
  .mapa-cuerpo.solo-tabla { grid-template-columns: minmax(0, 1fr); }
  .mapa-cuerpo.solo-tabla .lienzo { display: none; }
  .lienzo svg.mapa { display: block; width: 100%; height: auto; border-radius: 6px; border: 1px solid #cbd5e1; }
  .leyenda svg { flex: none; }
  .leyenda { list-style: none; display: flex; flex-wrap: wrap; gap: .3rem 1rem; padding: 0; margin: .5rem 0 0; font-size: .85rem; }
  .leyenda li { display: flex; align-items: center; gap: .3rem; }
  #datos-mapa { max-height: 34rem; }
  .vivo { font-size: .85rem; } .vivo[data-estado="si"]::before { content: "● "; color: #15803d; } .vivo[data-estado="no"]::before { content: "● "; color: #b91c1c; }
  dialog { width: min(34rem, calc(100% - 1.5rem)); max-width: none; border: 0; border-radius: 8px; box-shadow: 0 8px 30px #0005; padding: 1.2rem; }
  dialog::backdrop { background: #0008; }
  dialog .acciones { display: flex; gap: .6rem; justify-content: flex-end; margin-top: 1rem; flex-wrap: wrap; }
  dialog label { font-weight: 400; display: flex; gap: .5rem; align-items: flex-start; margin-top: .6rem; }
  dialog input[type=checkbox] { min-width: 0; width: 1.2rem; height: 1.2rem; }
  @media (max-width: 60rem) {
    .mapa-cuerpo { grid-template-columns: minmax(0, 1fr); }
    header .quien { margin-left: 0; }
  }
  @media (max-width: 40rem) {
    main { padding: .5rem; } section { padding: .75rem; }
    table.tarjetas thead { position: absolute; left: -999px; }
    table.tarjetas, table.tarjetas tbody, table.tarjetas tr, table.tarjetas th, table.tarjetas td { display: block; width: 100%; }
    table.tarjetas tr { border: 1px solid #e5e7eb; border-radius: 6px; margin-bottom: .6rem; padding: .3rem; }
    table.tarjetas td, table.tarjetas tbody th { border: 0; padding: .15rem .3rem; }
    table.tarjetas td[data-etiqueta]::before { content: attr(data-etiqueta) ": "; font-weight: 600; }
  }
`;

export interface Who {
  username: string;
  role: string;
}

const ROLE_WORDS: Record<string, string> = { admin: 'administrador', operator: 'operador' };

function layout(title: string, body: string, who: Who, opts: { script?: boolean } = {}): string {
  return `<!doctype html>
<html lang="es">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Consola de operadores</title><style>${STYLE}</style>
${opts.script ? `<script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>` : ''}</head>
<body data-zona="${CONSOLE_TIME_ZONE}">
<a class="saltar" href="#contenido">Saltar al contenido</a>
<header><a class="marca" href="${CONSOLE_PATH}">Consola de operadores</a>
<nav aria-label="Principal"><a href="${CONSOLE_PATH}">Inicio</a><a href="/admin/queues">Colas de trabajos</a></nav>
<span class="zona" id="zona">Horas en ${CONSOLE_TIME_ZONE} (${esc(zoneOffset())})</span>
<span class="quien"><span>${esc(who.username)} · ${esc(ROLE_WORDS[who.role] ?? who.role)}</span>
<form method="post" action="${LOGOUT_PATH}"><button type="submit">Cerrar sesión</button></form></span></header>
<main id="contenido" tabindex="-1"><h1>${esc(title)}</h1>${body}</main>
</body></html>
`;
}

const search = (q = '') => `<section aria-labelledby="buscar-t"><h2 id="buscar-t">Buscar una oferta</h2>
<form method="get" action="${CONSOLE_PATH}"><label for="q">Identificador de la oferta o código de servicio</label>
<input id="q" name="q" required maxlength="64" value="${esc(q)}" autocomplete="off"> <button type="submit">Buscar</button></form></section>`;

/** Where the technician was last seen, and how long ago. */
function lastPosition(w: WorkItem, now: number): string {
  if (w.techLat == null || w.techLng == null) return '—';
  // the script moves it on the technician's `technician.position`
  return `<span data-tec-pos="${esc(w.technicianId)}">${esc(w.techLat.toFixed(5))}, ${esc(w.techLng.toFixed(5))}</span> <span class="suave" data-desde="${esc(w.techPositionAt ?? '')}">${esc(ago(w.techPositionAt, now))}</span>`;
}

/** The work queue's section (also served alone at CONSOLE_QUEUE_PATH for the live refresh). */
export function workQueuePart(items: WorkItem[], now = Date.now()): string {
  const stuck = items.filter((i) => i.motivos.length).length;
  const rows = items.length
    ? items
        .map((w) => {
          const ref = w.codigoServicio ?? w.uuid.slice(0, 8);
          const reasons = w.motivos.map((m) => `<span class="motivo">${esc(REASON_WORDS[m])}</span>`).join('');
          const chat = w.chatMessages ? `${w.chatMessages} mensajes, el último ${when(w.chatLastAt)}` : 'sin mensajes';
          const sms = w.smsSent || w.smsFailed ? `${w.smsSent} enviados${w.smsFailed ? `, ${w.smsFailed} fallidos` : ''}` : 'ninguno';
          const survey = w.surveyRating != null ? `${w.surveyRating} de 5` : 'sin responder';
          const deliveries = w.failedDeliveries ? ` (${w.failedDeliveries} avisos fallidos en 24 h)` : '';
          return `<tr class="${w.motivos.length ? 'atascado' : ''}" id="cola-${esc(w.uuid)}">
<th scope="row"><a href="${CONSOLE_PATH}/ofertas/${esc(w.uuid)}">${esc(ref)}</a></th>
<td data-etiqueta="Estado">${esc(stateWord(w.state))}${reasons ? `<br>${reasons}${esc(deliveries)}` : ''}</td>
<td data-etiqueta="Tipo">${esc(w.tipo)}</td>
<td data-etiqueta="Dirección">${esc([w.direccion, w.ciudad].filter(Boolean).join(', ') || '—')}</td>
<td data-etiqueta="Generador">${esc(w.generador)}</td>
<td data-etiqueta="Central">${esc(w.central ?? '—')}</td>
<td data-etiqueta="Técnico">${esc(w.tecnico ?? '—')}${w.tecnicoIdentificador ? ` <span class="suave">(${esc(w.tecnicoIdentificador)})</span>` : ''}</td>
<td data-etiqueta="Última posición">${lastPosition(w, now)}</td>
<td data-etiqueta="Chat">${esc(chat)}</td>
<td data-etiqueta="SMS al cliente">${esc(sms)}</td>
<td data-etiqueta="Encuesta">${esc(survey)}</td>
<td data-etiqueta="Último cambio">${when(w.lastChangeAt)}</td></tr>`;
        })
        .join('')
    : '<tr><td colspan="12">No hay servicios activos ni atascados.</td></tr>';
  return `<section id="cola" aria-labelledby="cola-t"><h2 id="cola-t">Cola de trabajo: ${items.length} servicios, ${stuck} necesitan atención</h2>
<p class="suave">Activos (asignados, en camino, en el sitio) y atascados: ventana de respuestas vencida, avisos fallidos en las últimas 24 horas, sin avance hace mucho (asignado 30 min, en camino 90 min, en el sitio 3 h), SMS que no salió. Los atascados van primero.</p>
<div class="desplazable" tabindex="0" role="region" aria-labelledby="cola-t">
<table class="tarjetas"><thead><tr><th scope="col">Servicio</th><th scope="col">Estado</th><th scope="col">Tipo</th><th scope="col">Dirección</th><th scope="col">Generador</th><th scope="col">Central</th><th scope="col">Técnico</th><th scope="col">Última posición</th><th scope="col">Chat</th><th scope="col">SMS al cliente</th><th scope="col">Encuesta</th><th scope="col">Último cambio</th></tr></thead>
<tbody>${rows}</tbody></table></div></section>`;
}

/** The live map: the drawing (first paint from the server, then the script), its legend and its table view. */
function mapSection(map: LiveMap, now: number): string {
  const v = mapView(map);
  return `<section id="mapa-vivo" aria-labelledby="mapa-t">
<div class="mapa-cabecera"><h2 id="mapa-t">Mapa en vivo</h2>
<div class="controles" role="group" aria-label="Controles del mapa">
<button type="button" class="secundario" id="ver-tabla" aria-pressed="false" aria-controls="mapa-cuerpo">Ver solo la tabla</button>
<button type="button" class="secundario" id="acercar" aria-controls="mapa">Acercar</button>
<button type="button" class="secundario" id="alejar" aria-controls="mapa">Alejar</button>
<button type="button" class="secundario" id="ajustar" aria-controls="mapa">Ver todo</button>
</div><span class="vivo" id="en-vivo" data-estado="" role="status">Conectando…</span></div>
<p id="mapa-resumen" aria-live="polite">${esc(summary(map))}</p>
<div class="mapa-cuerpo" id="mapa-cuerpo">
<div class="lienzo" id="lienzo">${mapSvg(map, v, now)}${LEGEND}<p class="suave">Posiciones tal como las reportan las centrales y los técnicos; proyección Mercator, sin mapa de calles.</p></div>
<div class="desplazable" id="datos-mapa" tabindex="0" role="region" aria-label="Datos del mapa">${mapTables(map, now)}</div>
</div></section>`;
}

export function consoleHomePage(who: Who, health: ReceiverHealth[], queue: WorkItem[], map: LiveMap, error?: string, q?: string): string {
  const now = Date.now();
  const rows = health.length
    ? health
        .map(
          (h) =>
            `<tr><th scope="row">${esc(h.url)}</th><td>${h.intentos}</td><td>${h.fallidos}</td><td class="${h.tasaFallo > 0.2 ? 'failed' : 'ok'}">${pct(h.tasaFallo)}</td><td>${esc(h.ultimoEstado ?? 'sin respuesta')}</td><td>${when(h.ultimoIntento)}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="6">Sin envíos en la última hora.</td></tr>';
  return layout(
    'Inicio',
    `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${workQueuePart(queue, now)}
${mapSection(map, now)}
${search(q)}
<section aria-labelledby="salud-t"><h2 id="salud-t">Salud de los receptores de avisos (última hora)</h2>
<div class="desplazable" tabindex="0" role="region" aria-labelledby="salud-t">
<table><thead><tr><th scope="col">Dirección del receptor</th><th scope="col">Intentos</th><th scope="col">Fallidos</th><th scope="col">Tasa de fallo</th><th scope="col">Última respuesta HTTP</th><th scope="col">Último intento</th></tr></thead>
<tbody>${rows}</tbody></table></div></section>`,
    who,
    { script: true },
  );
}

/** The resend control: a form the script confirms in a dialog; without the script, the server asks on its own page. */
function resendForm(d: Timeline['deliveries'][number]): string {
  const kind = DELIVERY_KIND_WORDS[d.kind] ?? d.kind;
  const x = resendExplanation(d.kind);
  return `<form method="post" action="${CONSOLE_PATH}/entregas/${esc(d.id)}/reenviar" class="reenviar" data-una-vez="${x.once ? 'si' : 'no'}" data-explicacion="${esc(x.text)}" data-que="${esc(`${kind} a ${d.url}`)}"><button type="submit" aria-label="Reenviar: ${esc(kind)} a ${esc(d.url)}">Reenviar</button></form>`;
}

export function consoleOfferPage(who: Who, t: Timeline, notice?: { ok: boolean; text: string }): string {
  const o = t.offer;
  const transitions = t.transitions
    .map(
      (x) =>
        `<tr><td>${when(x.at)}</td><td>${esc(x.from ? stateWord(x.from) : '—')}</td><td>${esc(stateWord(x.to))}</td><td>${esc(x.actor)}</td><td>${x.techLat != null ? `${esc(x.techLat)}, ${esc(x.techLng)}` : '—'}</td></tr>`,
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
            `<tr><td>${esc(r.kind === 'central' ? 'central' : 'técnico')}</td><td>${esc(r.central)}</td><td>${esc(r.technician ?? '—')}</td><td>${esc(CHANNEL_WORDS[r.channel] ?? r.channel)}</td><td>${r.distanceKm != null ? `${esc(r.distanceKm.toFixed(2))} km` : '—'}</td><td>${when(r.notifiedAt)}</td><td>${esc(r.push ? (DELIVERY_STATE_WORDS[r.push] ?? r.push) : '—')}</td></tr>`,
        )
        .join('')
    : '<tr><td colspan="7">Nadie recibió la oferta (asignación directa o sin cobertura).</td></tr>';
  const deliveries = t.deliveries.length
    ? t.deliveries
        .map((d) => {
          const resend = who.role === 'admin' && (d.estado === 'ok' || d.estado === 'failed') ? resendForm(d) : '';
          const attempts = d.attempts
            .map(
              (a) =>
                `<details><summary>Intento ${a.intento} · ${esc(a.actor)} · ${when(a.fecha)} · ${esc(a.statusCode ?? 'sin respuesta')} · ${esc(a.latenciaMs ?? '—')} ms</summary>
<pre>${esc(JSON.stringify(a.requestHeaders, null, 1))}</pre><pre>${esc(a.respuesta ?? a.error ?? '')}</pre></details>`,
            )
            .join('');
          return `<tr><td>${esc(DELIVERY_KIND_WORDS[d.kind] ?? d.kind)}</td><td>${esc(d.url)}</td><td class="${d.estado === 'failed' ? 'failed' : d.estado === 'ok' ? 'ok' : ''}">${esc(DELIVERY_STATE_WORDS[d.estado] ?? d.estado)}</td><td>${esc(d.statusCode ?? '—')}</td><td>${esc(d.latenciaMs ?? '—')} ms</td><td>${d.intentos}</td><td><code>${esc(d.eventId)}</code></td><td>
<details><summary>Solicitud</summary><pre>${esc(JSON.stringify(d.requestBody, null, 1))}</pre></details>${attempts}</td><td>${resend}</td></tr>`;
        })
        .join('')
    : '<tr><td colspan="9">Sin avisos.</td></tr>';
  const table = (id: string, head: string[], body: string) =>
    `<div class="desplazable" tabindex="0" role="region" aria-labelledby="${id}"><table><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></div>`;
  return layout(
    `Oferta ${o.codigoServicio ?? o.uuid}`,
    `${notice ? `<p class="${notice.ok ? 'notice' : 'error'}" role="${notice.ok ? 'status' : 'alert'}">${esc(notice.text)}</p>` : ''}
<section aria-labelledby="oferta-t"><h2 id="oferta-t">Resumen</h2>
<p>Estado <strong>${esc(stateWord(o.state))}</strong> · código ${esc(o.codigoServicio ?? '—')} · identificador ${esc(o.uuid)} · generador ${esc(t.generator)} · creada ${when(o.createdAt.toISOString())} · cierre de la ventana ${when(o.deadlineAt ? o.deadlineAt.toISOString() : null)}</p></section>
<section aria-labelledby="trans-t"><h2 id="trans-t">Cambios de estado</h2>${table('trans-t', ['Fecha', 'De', 'A', 'Quién', 'Posición del técnico'], transitions)}</section>
<section aria-labelledby="rank-t"><h2 id="rank-t">Clasificación de respuestas: gana el menor tiempo de llegada, luego la mejor calificación, luego la menor distancia, luego la primera en llegar</h2>
${table('rank-t', ['Puesto', 'Central', 'Técnico', 'Tiempo de llegada', 'Calificación', 'Distancia', 'Respondió'], ranking)}</section>
<section aria-labelledby="dest-t"><h2 id="dest-t">Quién recibió la oferta</h2>${table('dest-t', ['Tipo', 'Central', 'Técnico', 'Canal', 'Distancia', 'Notificado', 'Envío a la central'], recipients)}</section>
<section aria-labelledby="avisos-t"><h2 id="avisos-t">Avisos enviados (webhooks)</h2>${table('avisos-t', ['Aviso', 'Destino', 'Estado', 'HTTP', 'Latencia', 'Intentos', 'Identificador del aviso', 'Detalle', 'Acción'], deliveries)}</section>
${search()}
<dialog id="confirmar" aria-labelledby="confirmar-t" aria-describedby="confirmar-texto">
<form method="dialog"><h2 id="confirmar-t">¿Reenviar este aviso?</h2>
<p id="confirmar-que"></p><p id="confirmar-texto"></p>
<label id="confirmar-entiendo" hidden><input type="checkbox" id="entiendo"> Entiendo que el generador recibirá este aviso de aceptación por segunda vez.</label>
<div class="acciones"><button type="submit" value="cancelar" class="secundario" formnovalidate>Cancelar</button><button type="submit" value="reenviar" id="confirmar-si">Sí, reenviar</button></div></form></dialog>`,
    who,
    { script: true },
  );
}

/** The page that asks before a resend when the script did not (no JavaScript), with the same words. */
export function consoleResendConfirmPage(who: Who, d: { id: string; kind: string; url: string }, error?: string): string {
  const x = resendExplanation(d.kind);
  const kind = DELIVERY_KIND_WORDS[d.kind] ?? d.kind;
  return layout(
    'Confirmar el reenvío',
    `<section aria-labelledby="conf-t"><h2 id="conf-t">¿Reenviar: ${esc(kind)} a ${esc(d.url)}?</h2>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}<p>${esc(x.text)}</p>
<form method="post" action="${CONSOLE_PATH}/entregas/${esc(d.id)}/reenviar"><input type="hidden" name="confirmado" value="si">
${x.once ? '<p><label><input type="checkbox" name="entiendo" value="si" required> Entiendo que el generador recibirá este aviso de aceptación por segunda vez.</label></p>' : ''}
<button type="submit">Sí, reenviar</button> <a href="javascript:history.back()">Cancelar</a></form></section>`,
    who,
  );
}

export function consoleMessagePage(who: Who, text: string): string {
  return layout('Aviso', `<p class="error" role="alert">${esc(text)}</p>${search()}`, who);
}
