/**
 * The customer page (GET /seguimiento, D14): server-rendered Spanish HTML that
 * works on a phone. Every value shown is escaped. Three steps: expediente and
 * phone, the SMS code, the follow-up: the state, when the technician should
 * arrive as a clock time, how far the technician is, a map at a real scale
 * (D23, issue 31), the technician's first name, identifier and plate, the
 * chat and, once finished, the survey first. `/seguimiento/app.js` adds live
 * updates and announcements; without it the forms still work.
 */
import type { ChatMessage } from '../../domain/chat/chat.js';
import { STALE_POSITION_MS } from '../../domain/tracking/arrival.js';
import type { FollowUp } from '../../domain/tracking/followUp.js';
import { fitView, formatDistance, svgMap, type LatLng, type Marker } from './assets/map.js';

export const PAGE_PATH = '/seguimiento';

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The current state, as the heading says it. */
const STATE_LABEL: Record<string, string> = {
  ABIERTA: 'Buscando un proveedor',
  SIN_RESPUESTA: 'Seguimos buscando un proveedor',
  ACEPTADA: 'Proveedor seleccionado',
  ASIGNADA: 'Servicio asignado',
  EN_CAMINO: 'El técnico va en camino',
  EN_SITIO: 'El técnico llegó al sitio',
  FINALIZADA: 'Servicio finalizado',
  CANCELADA: 'Servicio cancelado',
  NO_ASIGNADA: 'Servicio no asignado',
  INACTIVA: 'Servicio inactivo',
  EXPIRADA: 'Solicitud expirada',
};
/** A step of the history, as what happened then (never the heading's text twice, issue 31). */
const STEP_LABEL: Record<string, string> = {
  ...STATE_LABEL,
  ABIERTA: 'Solicitud recibida',
  SIN_RESPUESTA: 'Ningún proveedor respondió a tiempo; seguimos esperando',
};
const label = (s: string) => STATE_LABEL[s] ?? s;
const TZ = 'America/Bogota';
const time = (iso: string) => new Date(iso).toLocaleString('es-CO', { timeZone: TZ, day: '2-digit', month: 'short', hour: '2-digit', minute: '2-digit' });
const clock = (iso: string) => new Date(iso).toLocaleTimeString('es-CO', { timeZone: TZ, hour: 'numeric', minute: '2-digit' });
const firstName = (names: string) => names.trim().split(/\s+/)[0] ?? '';
const telHref = (phone: string) => `tel:${phone.replace(/[^0-9+]/g, '')}`;

/** "en 8 min", "en 1 h 5 min", or that it is due. */
export function untilText(iso: string, now = Date.now()): string {
  const min = Math.ceil((Date.parse(iso) - now) / 60_000);
  if (min <= 0) return 'debería estar llegando';
  if (min < 60) return `en ${min} min`;
  return `en ${Math.floor(min / 60)} h ${min % 60} min`;
}
/** "hace 3 min" */
export const agoText = (iso: string, now = Date.now()): string => `hace ${Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000))} min`;

const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #f3f4f6; }
  header { background: #0b3d91; color: #fff; padding: .7rem 1rem; }
  header h1 { margin: 0; font-size: 1.15rem; }
  header .marca { margin: 0; font-size: .9rem; opacity: .95; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  main.seguimiento { max-width: 72rem; }
  section, form.card { background: #fff; border-radius: 10px; padding: 1rem; margin-bottom: 1rem; box-shadow: 0 1px 3px #0002; }
  h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
  label { display: block; font-weight: 600; margin: .7rem 0 .25rem; }
  input, textarea { width: 100%; font: inherit; padding: .6rem; border: 2px solid #6b7280; border-radius: 6px; background: #fff; color: #1a1a1a; }
  textarea { min-height: 4.5rem; }
  button, a.boton { display: inline-block; font: inherit; font-weight: 600; margin-top: .9rem; padding: .65rem 1.1rem; border: 0; border-radius: 6px; background: #0b3d91; color: #fff; cursor: pointer; min-height: 44px; text-decoration: none; }
  button.secondary, a.boton.secondary { background: #fff; color: #0b3d91; border: 2px solid #0b3d91; }
  :focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  a { color: #0b3d91; }
  .hint { color: #4b5563; font-size: .92rem; margin: .25rem 0 0; }
  .error { color: #991b1b; background: #fef2f2; border-left: 4px solid #991b1b; padding: .5rem .7rem; margin: .6rem 0; }
  .notice { color: #14532d; background: #f0fdf4; border-left: 4px solid #14532d; padding: .5rem .7rem; margin: .6rem 0; }
  .warn { color: #7c2d12; background: #fff7ed; border-left: 4px solid #c2410c; padding: .4rem .7rem; margin: .5rem 0; }
  .state { font-size: 1.3rem; font-weight: 700; color: #0b3d91; margin: 0; }
  .llegada { font-size: 1.1rem; margin: .4rem 0 0; }
  .llegada strong { font-size: 1.35rem; }
  nav.saltos { display: flex; gap: .5rem; flex-wrap: wrap; margin: 0 0 1rem; }
  nav.saltos a { background: #fff; border: 2px solid #0b3d91; border-radius: 999px; padding: .35rem .9rem; font-weight: 600; text-decoration: none; min-height: 44px; display: inline-flex; align-items: center; }
  nav.saltos .nuevos { margin-left: .35rem; background: #b91c1c; color: #fff; border-radius: 999px; padding: 0 .45rem; font-size: .85rem; }
  ol.timeline { list-style: none; padding: 0; margin: .6rem 0 0; }
  ol.timeline li { padding: .2rem 0 .2rem 1.1rem; border-left: 3px solid #0b3d91; margin-left: .3rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: .6rem 0 0; }
  dt { font-weight: 600; color: #374151; } dd { margin: 0; }
  ol.messages { list-style: none; padding: 0; margin: 0; max-height: 18rem; overflow-y: auto; }
  ol.messages li { margin: .35rem 0; padding: .45rem .7rem; border-radius: 10px; max-width: 85%; background: #e5e7eb; }
  ol.messages li.cliente { margin-left: auto; background: #dbeafe; }
  ol.messages .meta { display: block; font-size: .8rem; color: #374151; }
  fieldset { border: 0; padding: 0; margin: 0; }
  .stars { display: flex; gap: .4rem; flex-wrap: wrap; }
  .stars label { font-weight: 400; margin: 0; padding: .4rem .7rem; border: 2px solid #6b7280; border-radius: 6px; }
  .stars input { width: auto; margin-right: .3rem; }
  figure.mapa { margin: .8rem 0 0; }
  figure.mapa svg { width: 100%; max-width: 30rem; height: auto; border-radius: 8px; display: block; }
  figure.mapa figcaption { font-size: .9rem; color: #374151; margin-top: .3rem; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (min-width: 60rem) {
    .columnas { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; align-items: start; }
    #chat { position: sticky; top: 1rem; }
    nav.saltos { display: none; }
  }
`;

export function layout(title: string, body: string, o: { live?: boolean; insurer?: string; wide?: boolean } = {}): string {
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Seguimiento del servicio</title>
<style>${STYLE}</style>
${o.live ? `<script src="${PAGE_PATH}/app.js" defer></script>` : ''}
</head>
<body>
<header>${o.insurer ? `<p class="marca">${esc(o.insurer)}</p>` : ''}<h1>Seguimiento de su servicio</h1></header>
<main id="contenido"${o.wide ? ' class="seguimiento"' : ''}>
${body}
</main>
</body>
</html>
`;
}

const alert = (error?: string, notice?: string) =>
  `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}`;

/** Step 1: the expediente and the phone registered for the service (the expediente kept when known). */
export function startPage(values: { expediente?: string; telefono?: string } = {}, error?: string): string {
  const phoneFirst = !!values.expediente && !values.telefono && !error;
  return layout(
    'Consultar',
    `<form class="card" method="post" action="${PAGE_PATH}/codigo">
  <h2>Consulte su servicio</h2>
  <p class="hint">Le enviaremos un código por SMS al teléfono registrado en el servicio.</p>
  <label for="expediente">Número de expediente</label>
  <input id="expediente" name="expediente" required maxlength="64" autocomplete="off" value="${esc(values.expediente)}" aria-describedby="expediente-ayuda${error ? ' form-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
  <p class="hint" id="expediente-ayuda">Por ejemplo SV-7K3M9Q, como aparece en el mensaje de su aseguradora.</p>
  <label for="telefono">Teléfono celular</label>
  <input id="telefono" name="telefono" type="tel" required maxlength="32" autocomplete="tel" inputmode="tel" value="${esc(values.telefono)}"${phoneFirst ? ' autofocus' : ''}${error ? ' aria-describedby="form-error" aria-invalid="true"' : ''}>
  ${error ? `<p class="error" role="alert" id="form-error">${esc(error)}</p>` : ''}
  <button type="submit">Enviar código</button>
</form>`,
  );
}

/**
 * Step 2: the code received by SMS (also what the SMS link opens, D16).
 * "Pedir otro código" keeps what was typed: with the phone known it asks
 * again at once; without (the page opened from the SMS) it goes back to the
 * first form with the expediente filled.
 */
export function codePage(expediente: string, error?: string, notice?: string, telefono?: string): string {
  const again = telefono
    ? `<form method="post" action="${PAGE_PATH}/codigo">
  <input type="hidden" name="expediente" value="${esc(expediente)}"><input type="hidden" name="telefono" value="${esc(telefono)}">
  <button type="submit" class="secondary">Pedir otro código</button>
</form>`
    : `<a class="boton secondary" href="${PAGE_PATH}?expediente=${encodeURIComponent(expediente)}&amp;otro=1">Pedir otro código</a>`;
  return layout(
    'Código',
    `<form class="card" method="post" action="${PAGE_PATH}/verificar">
  <h2>Escriba el código</h2>
  ${alert(undefined, notice)}
  <p>Expediente <strong>${esc(expediente)}</strong> · <a href="${PAGE_PATH}?otro=1">cambiar</a></p>
  <input type="hidden" name="expediente" value="${esc(expediente)}">
  <label for="code">Código de 6 dígitos</label>
  <input id="code" name="code" required maxlength="6" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" autofocus aria-describedby="code-ayuda${error ? ' code-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
  ${error ? `<p class="error" role="alert" id="code-error">${esc(error)}</p>` : ''}
  <p class="hint" id="code-ayuda">El código llegó por SMS y vence en 10 minutos.</p>
  <button type="submit">Ver mi servicio</button>
</form>
${again}`,
  );
}

/** The map's scales, ground metres per pixel: the finest that shows the technician, never fitted to the distance (CUS-4). */
export const MAP_SCALES = [10, 50, 250, 1000, 5000] as const;
const MAP_SIZE = { width: 360, height: 300 };
const MAP_PADDING = 24;

/** The finest fixed scale at which `p` shows in a view centred on `site`. */
export function mapScale(site: LatLng, p: LatLng): number {
  for (const m of MAP_SCALES) {
    const v = fitView([site], MAP_SIZE, { metersPerPixel: m });
    const q = fitView([site, p], MAP_SIZE, { keep: v, padding: MAP_PADDING });
    if (q === v) return m;
  }
  return MAP_SCALES[MAP_SCALES.length - 1];
}

const COMPASS = ['norte', 'nororiente', 'oriente', 'suroriente', 'sur', 'suroccidente', 'occidente', 'noroccidente'];
/** Where `p` lies seen from `site`, in words. */
function direction(site: LatLng, p: LatLng): string {
  const dy = p.lat - site.lat;
  const dx = (p.lng - site.lng) * Math.cos((site.lat * Math.PI) / 180);
  const deg = (Math.atan2(dx, dy) * 180) / Math.PI;
  return COMPASS[Math.round(((deg + 360) % 360) / 45) % 8];
}

/** The technician and the service's place on a map at a real, fixed scale, centred on the place; no coordinates shown. */
function approachMap(s: FollowUp): string {
  const p = s.posicionTecnico;
  const o = s.origen;
  if (!p || o.latitud == null || o.longitud == null) return '';
  const site = { lat: o.latitud, lng: o.longitud };
  const tech = { lat: p.latitud, lng: p.longitud };
  const view = fitView([site], MAP_SIZE, { metersPerPixel: mapScale(site, tech) });
  const far = s.distanciaMetros ?? 0;
  const where = far < 30 ? 'junto al sitio del servicio' : `a ${formatDistance(far)} del sitio del servicio, hacia el ${direction(site, tech)}`;
  const markers: Marker[] = [
    { kind: 'site', at: site, label: 'Servicio', title: 'Sitio del servicio', id: 'marca-sitio' },
    { kind: 'busy', at: tech, label: s.tecnico ? firstName(s.tecnico.nombre) : 'Técnico', title: 'Técnico', id: 'marca-tecnico' },
  ];
  return `<figure class="mapa">
${svgMap(view, { markers, routes: [{ from: tech, to: site, id: 'ruta-tecnico' }] }, { id: 'mapa', title: 'Mapa: el técnico y el sitio del servicio', desc: `El técnico está ${where}. Escala: ${view.scaleBar.label}.` })}
<figcaption>El técnico está ${esc(where)} (en línea recta). La barra mide ${esc(view.scaleBar.label)}.</figcaption>
</figure>`;
}

/** The arrival as a clock time that moves, and the distance left. */
function arrival(s: FollowUp, now: number): string {
  const a = s.llegada;
  const out: string[] = [];
  if (a) {
    out.push(`<p class="llegada">Llegada estimada: <strong><time datetime="${esc(a.hora)}">${esc(clock(a.hora))}</time></strong> <span data-llegada="${esc(a.hora)}">(${esc(untilText(a.hora, now))})</span></p>`);
    out.push(`<p class="hint">${a.fuente === 'tecnico' ? 'Según el tiempo que indicó el técnico al aceptar.' : 'Calculada con la distancia desde su última posición.'}</p>`);
  }
  const p = s.posicionTecnico;
  if (p?.fecha) {
    const stale = now - Date.parse(p.fecha) > STALE_POSITION_MS;
    out.push(
      `<p class="warn" data-posicion="${esc(p.fecha)}"${stale ? '' : ' hidden'}>Última posición <span class="hace">${esc(agoText(p.fecha, now))}</span>: el técnico puede estar más cerca.</p>`,
    );
  }
  return out.join('\n  ');
}

/** The technician as the customer needs them: first name, identifier, plate. */
function technician(s: FollowUp): string {
  const t = s.tecnico;
  if (!t) return '';
  const who = `${esc(firstName(t.nombre))}${t.identificador ? ` <span class="hint">(${esc(t.identificador)})</span>` : ''}`;
  return `<dt>Técnico</dt><dd>${who}${t.telefono ? ` · <a href="${esc(telHref(t.telefono))}">Llamar</a>` : ''}</dd>
    ${s.placa ? `<dt>Vehículo</dt><dd>Placa <strong>${esc(s.placa)}</strong></dd>` : ''}`;
}

/** The state, the arrival, who comes and the map: the part the live script refreshes. */
export function statusPart(s: FollowUp, now = Date.now()): string {
  return `<section id="estado" aria-labelledby="estado-titulo" data-estado="${esc(s.estado)}">
  <h2 id="estado-titulo">Estado del servicio ${esc(s.expediente)}</h2>
  <p class="state">${esc(label(s.estado))}</p>
  ${arrival(s, now)}
  <dl>
    ${technician(s)}
    ${s.central ? `<dt>Proveedor</dt><dd>${esc(s.central.nombre)}</dd>` : ''}
    ${s.distanciaMetros !== null ? `<dt>Distancia</dt><dd>${esc(formatDistance(s.distanciaMetros))} en línea recta</dd>` : ''}
    ${s.origen.direccion ? `<dt>Origen</dt><dd>${esc(s.origen.direccion)}</dd>` : ''}
    ${s.destino?.direccion ? `<dt>Destino</dt><dd>${esc(s.destino.direccion)}</dd>` : ''}
  </dl>
  ${approachMap(s)}
</section>`;
}

/** What happened so far, each step once. */
export function historyPart(s: FollowUp): string {
  const steps = s.timeline.filter((t, i, all) => i === 0 || STEP_LABEL[t.estado] !== STEP_LABEL[all[i - 1].estado]);
  return `<section id="historial" aria-labelledby="historial-titulo">
  <h2 id="historial-titulo">Historial</h2>
  <ol class="timeline">${steps.map((t) => `<li>${esc(STEP_LABEL[t.estado] ?? t.estado)} <span class="hint">${esc(time(t.fecha))}</span></li>`).join('')}</ol>
</section>`;
}

export function messagesPart(messages: ChatMessage[]): string {
  const items = messages.length
    ? messages
        .map(
          (m) =>
            `<li class="${m.autor}" data-id="${esc(m.id)}"><span class="meta">${m.autor === 'cliente' ? 'Usted' : 'Técnico'} · ${esc(time(m.enviadoEn))}${m.autor === 'cliente' && m.leidoEn ? ' · leído' : ''}</span>${esc(m.texto)}</li>`,
        )
        .join('')
    : '<li class="hint">Aún no hay mensajes.</li>';
  return `<ol class="messages" id="mensajes" aria-label="Mensajes" tabindex="0">${items}</ol>`;
}

export function surveyPart(s: FollowUp, notice?: string): string {
  if (s.estado !== 'FINALIZADA') return '<div id="encuesta"></div>';
  if (s.encuestaRespondida) return `<div id="encuesta"><section><h2>Encuesta</h2><p class="notice" role="status">${esc(notice ?? '¡Gracias! Ya recibimos su calificación.')}</p></section></div>`;
  const stars = [1, 2, 3, 4, 5]
    .map((n) => `<label for="rating-${n}"><input type="radio" id="rating-${n}" name="rating" value="${n}" required>${n}</label>`)
    .join('');
  return `<div id="encuesta"><form class="card" method="post" action="${PAGE_PATH}/encuesta" aria-labelledby="encuesta-titulo">
  <h2 id="encuesta-titulo">¿Cómo fue el servicio?</h2>
  <fieldset><legend>Calificación de 1 (mala) a 5 (excelente)</legend><div class="stars">${stars}</div></fieldset>
  <label for="comment">Comentario (opcional)</label>
  <textarea id="comment" name="comment" maxlength="1000"></textarea>
  <button type="submit">Enviar calificación</button>
</form></div>`;
}

/** The insurer's help line (CUS-3), when its profile has one. */
function helpPart(s: FollowUp): string {
  const a = s.aseguradora;
  if (!a.lineaAyuda) return '';
  return `<section id="ayuda" aria-labelledby="ayuda-titulo"><h2 id="ayuda-titulo">¿Necesita ayuda?</h2>
  <p>Línea de atención de ${esc(a.nombre)}: <a href="${esc(telHref(a.lineaAyuda))}">${esc(a.lineaAyuda)}</a></p></section>`;
}

export interface FollowPage {
  service: FollowUp;
  messages: ChatMessage[];
  chatOpen: boolean;
  error?: string;
  notice?: string;
}

/**
 * Step 3. On a phone: links to each part at the top, the survey first once the
 * service is finished, then the state and map, the chat, the help line and the
 * history. On a wide screen the chat sits beside the state. A persistent live
 * region (#anuncios) is where the script announces new messages and states.
 */
export function followPage(p: FollowPage): string {
  const s = p.service;
  const finished = s.estado === 'FINALIZADA';
  const chat = p.chatOpen
    ? `<form id="chat-form" method="post" action="${PAGE_PATH}/mensaje">
    <label for="texto">Escriba al técnico</label>
    <textarea id="texto" name="texto" required maxlength="2000"></textarea>
    <button type="submit">Enviar mensaje</button>
  </form>`
    : '<p class="hint">El chat se abre cuando el servicio está asignado y se cierra 24 horas después de terminar.</p>';
  const nav = `<nav class="saltos" aria-label="Ir a">${finished && !s.encuestaRespondida ? '<a href="#encuesta">Calificar el servicio</a>' : ''}<a href="#estado">Estado</a><a href="#chat">Chat<span id="chat-nuevos"></span></a>${s.aseguradora.lineaAyuda ? '<a href="#ayuda">Ayuda</a>' : ''}</nav>`;
  return layout(
    'Su servicio',
    `${nav}
${alert(p.error, p.notice)}
<div id="anuncios" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
${surveyPart(s)}
<div class="columnas">
<div>
${statusPart(s)}
${helpPart(s)}
${historyPart(s)}
</div>
<section id="chat" aria-labelledby="chat-titulo">
  <h2 id="chat-titulo">Chat con el técnico</h2>
  ${messagesPart(p.messages)}
  ${chat}
</section>
</div>
<form method="post" action="${PAGE_PATH}/salir"><button type="submit" class="secondary">Salir</button></form>`,
    { live: true, insurer: s.aseguradora.nombre || undefined, wide: true },
  );
}

/** The fragment the live script fetches (`/seguimiento/parcial`). */
export function livePart(s: FollowUp, messages: ChatMessage[]): string {
  return `${statusPart(s)}${historyPart(s)}${messagesPart(messages)}${surveyPart(s)}`;
}
