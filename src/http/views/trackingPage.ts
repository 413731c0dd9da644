/**
 * The customer page (GET /seguimiento, D14): server-rendered Spanish HTML that
 * works on a phone. Every value shown is escaped. Three steps: expediente and
 * phone, the SMS code, the follow-up (timeline, technician, ETA, a small
 * drawing of where the technician is, the chat and, once finished, the
 * survey). `/seguimiento/app.js` adds live updates; without it the forms
 * still work.
 */
import type { ChatMessage } from '../../domain/chat/chat.js';
import type { FollowUp } from '../../domain/tracking/followUp.js';

export const PAGE_PATH = '/seguimiento';

const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STATE_LABEL: Record<string, string> = {
  ABIERTA: 'Buscando un proveedor',
  SIN_RESPUESTA: 'Buscando un proveedor',
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
const label = (s: string) => STATE_LABEL[s] ?? s;
const time = (iso: string) =>
  new Date(iso).toLocaleString('es-CO', { timeZone: 'America/Bogota', day: '2-digit', month: 'short', hour: '2-digit', minute: '2-digit' });

const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #f3f4f6; }
  header { background: #0b3d91; color: #fff; padding: .9rem 1rem; }
  header h1 { margin: 0; font-size: 1.15rem; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
  section, form.card { background: #fff; border-radius: 10px; padding: 1rem; margin-bottom: 1rem; box-shadow: 0 1px 3px #0002; }
  h2 { font-size: 1.05rem; margin: 0 0 .6rem; }
  label { display: block; font-weight: 600; margin: .7rem 0 .25rem; }
  input, textarea { width: 100%; font: inherit; padding: .6rem; border: 2px solid #6b7280; border-radius: 6px; background: #fff; color: #1a1a1a; }
  textarea { min-height: 4.5rem; }
  button { font: inherit; font-weight: 600; margin-top: .9rem; padding: .65rem 1.1rem; border: 0; border-radius: 6px; background: #0b3d91; color: #fff; cursor: pointer; min-height: 44px; }
  button.secondary { background: #fff; color: #0b3d91; border: 2px solid #0b3d91; }
  :focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
  .hint { color: #4b5563; font-size: .92rem; margin: .25rem 0 0; }
  .error { color: #991b1b; background: #fef2f2; border-left: 4px solid #991b1b; padding: .5rem .7rem; margin: .6rem 0; }
  .notice { color: #14532d; background: #f0fdf4; border-left: 4px solid #14532d; padding: .5rem .7rem; margin: .6rem 0; }
  .state { font-size: 1.3rem; font-weight: 700; color: #0b3d91; margin: 0; }
  ol.timeline { list-style: none; padding: 0; margin: .6rem 0 0; }
  ol.timeline li { padding: .2rem 0 .2rem 1.1rem; border-left: 3px solid #0b3d91; margin-left: .3rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: .6rem 0 0; }
  dt { font-weight: 600; color: #374151; } dd { margin: 0; }
  ol.messages { list-style: none; padding: 0; margin: 0; max-height: 22rem; overflow-y: auto; }
  ol.messages li { margin: .35rem 0; padding: .45rem .7rem; border-radius: 10px; max-width: 85%; background: #e5e7eb; }
  ol.messages li.cliente { margin-left: auto; background: #dbeafe; }
  ol.messages .meta { display: block; font-size: .8rem; color: #374151; }
  fieldset { border: 0; padding: 0; margin: 0; }
  .stars { display: flex; gap: .4rem; flex-wrap: wrap; }
  .stars label { font-weight: 400; margin: 0; padding: .4rem .7rem; border: 2px solid #6b7280; border-radius: 6px; }
  .stars input { width: auto; margin-right: .3rem; }
  svg { width: 100%; height: auto; background: #eef2f7; border-radius: 8px; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

export function layout(title: string, body: string, live = false): string {
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Seguimiento del servicio</title>
<style>${STYLE}</style>
${live ? `<script src="${PAGE_PATH}/app.js" defer></script>` : ''}
</head>
<body>
<header><h1>Seguimiento de su servicio</h1></header>
<main id="contenido">
${body}
</main>
</body>
</html>
`;
}

const alert = (error?: string, notice?: string) =>
  `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}`;

/** Step 1: the expediente and the phone registered for the service. */
export function startPage(values: { expediente?: string; telefono?: string } = {}, error?: string): string {
  return layout(
    'Consultar',
    `<form class="card" method="post" action="${PAGE_PATH}/codigo">
  <h2>Consulte su servicio</h2>
  <p class="hint">Le enviaremos un código por SMS al teléfono registrado en el servicio.</p>
  <label for="expediente">Número de expediente</label>
  <input id="expediente" name="expediente" required maxlength="64" autocomplete="off" value="${esc(values.expediente)}" aria-describedby="expediente-ayuda${error ? ' form-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
  <p class="hint" id="expediente-ayuda">Por ejemplo SV-7K3M9Q, como aparece en el mensaje de su aseguradora.</p>
  <label for="telefono">Teléfono celular</label>
  <input id="telefono" name="telefono" type="tel" required maxlength="32" autocomplete="tel" inputmode="tel" value="${esc(values.telefono)}"${error ? ' aria-describedby="form-error" aria-invalid="true"' : ''}>
  ${error ? `<p class="error" role="alert" id="form-error">${esc(error)}</p>` : ''}
  <button type="submit">Enviar código</button>
</form>`,
  );
}

/** Step 2: the code received by SMS. */
export function codePage(expediente: string, error?: string, notice?: string): string {
  return layout(
    'Código',
    `<form class="card" method="post" action="${PAGE_PATH}/verificar">
  <h2>Escriba el código</h2>
  ${alert(undefined, notice)}
  <input type="hidden" name="expediente" value="${esc(expediente)}">
  <label for="code">Código de 6 dígitos</label>
  <input id="code" name="code" required maxlength="6" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" aria-describedby="code-ayuda${error ? ' code-error' : ''}"${error ? ' aria-invalid="true"' : ''}>
  ${error ? `<p class="error" role="alert" id="code-error">${esc(error)}</p>` : ''}
  <p class="hint" id="code-ayuda">El código vence en 10 minutos.</p>
  <button type="submit">Ver mi servicio</button>
</form>
<form method="get" action="${PAGE_PATH}"><button type="submit" class="secondary">Pedir otro código</button></form>`,
  );
}

/** A drawing of the technician (T) and the service's place (S), scaled to fit, with no map tiles. */
function drawing(s: FollowUp): string {
  const p = s.posicionTecnico;
  const o = s.origen;
  if (!p || o.latitud == null || o.longitud == null) return '';
  const pts = [
    { x: p.longitud, y: p.latitud },
    { x: o.longitud, y: o.latitud },
  ];
  const minX = Math.min(...pts.map((q) => q.x));
  const maxX = Math.max(...pts.map((q) => q.x));
  const minY = Math.min(...pts.map((q) => q.y));
  const maxY = Math.max(...pts.map((q) => q.y));
  const span = Math.max(maxX - minX, maxY - minY, 1e-4);
  const at = (q: { x: number; y: number }) => ({ x: 40 + ((q.x - minX) / span) * 220, y: 135 - ((q.y - minY) / span) * 100 });
  const [t, d] = pts.map(at);
  return `<svg viewBox="0 0 300 160" role="img" aria-label="Dibujo: el técnico respecto al sitio del servicio">
  <line x1="${t.x.toFixed(1)}" y1="${t.y.toFixed(1)}" x2="${d.x.toFixed(1)}" y2="${d.y.toFixed(1)}" stroke="#0b3d91" stroke-width="3" stroke-dasharray="6 5"/>
  <circle cx="${t.x.toFixed(1)}" cy="${t.y.toFixed(1)}" r="10" fill="#b45309"/><text x="${t.x.toFixed(1)}" y="${(t.y - 14).toFixed(1)}" text-anchor="middle" font-size="13" fill="#1a1a1a">Técnico</text>
  <circle cx="${d.x.toFixed(1)}" cy="${d.y.toFixed(1)}" r="10" fill="#0b3d91"/><text x="${d.x.toFixed(1)}" y="${(d.y - 14).toFixed(1)}" text-anchor="middle" font-size="13" fill="#1a1a1a">Servicio</text>
</svg>`;
}

/** The parts the live script refreshes: the state and the chat's messages (and the survey). */
export function statusPart(s: FollowUp): string {
  const p = s.posicionTecnico;
  return `<section id="estado" aria-live="polite" aria-labelledby="estado-titulo">
  <h2 id="estado-titulo">Estado del servicio ${esc(s.expediente)}</h2>
  <p class="state">${esc(label(s.estado))}</p>
  <dl>
    ${s.tecnico ? `<dt>Técnico</dt><dd>${esc(s.tecnico.nombre)}${s.tecnico.telefono ? ` · <a href="tel:${esc(s.tecnico.telefono)}">${esc(s.tecnico.telefono)}</a>` : ''}</dd>` : ''}
    ${s.central ? `<dt>Proveedor</dt><dd>${esc(s.central.nombre)}</dd>` : ''}
    ${s.etaMinutos !== null ? `<dt>Llegada estimada</dt><dd>${esc(s.etaMinutos)} min</dd>` : ''}
    ${p ? `<dt>Última posición</dt><dd>${esc(p.latitud.toFixed(5))}, ${esc(p.longitud.toFixed(5))}${p.fecha ? ` (${esc(time(p.fecha))})` : ''}</dd>` : ''}
    ${s.origen.direccion ? `<dt>Origen</dt><dd>${esc(s.origen.direccion)}</dd>` : ''}
    ${s.destino?.direccion ? `<dt>Destino</dt><dd>${esc(s.destino.direccion)}</dd>` : ''}
  </dl>
  ${drawing(s)}
  <h3 class="sr-only">Historial</h3>
  <ol class="timeline">${s.timeline.map((t) => `<li>${esc(label(t.estado))} <span class="hint">${esc(time(t.fecha))}</span></li>`).join('')}</ol>
</section>`;
}

export function messagesPart(messages: ChatMessage[]): string {
  const items = messages.length
    ? messages
        .map(
          (m) =>
            `<li class="${m.autor}"><span class="meta">${m.autor === 'cliente' ? 'Usted' : 'Técnico'} · ${esc(time(m.enviadoEn))}${m.autor === 'cliente' && m.leidoEn ? ' · leído' : ''}</span>${esc(m.texto)}</li>`,
        )
        .join('')
    : '<li class="hint">Aún no hay mensajes.</li>';
  return `<ol class="messages" id="mensajes" aria-live="polite" aria-label="Mensajes">${items}</ol>`;
}

export function surveyPart(s: FollowUp, notice?: string): string {
  if (s.estado !== 'FINALIZADA') return '<div id="encuesta"></div>';
  if (s.encuestaRespondida) return `<div id="encuesta"><section><h2>Encuesta</h2><p class="notice" role="status">${esc(notice ?? '¡Gracias! Ya recibimos su calificación.')}</p></section></div>`;
  const stars = [1, 2, 3, 4, 5]
    .map((n) => `<label for="rating-${n}"><input type="radio" id="rating-${n}" name="rating" value="${n}" required>${n}</label>`)
    .join('');
  return `<div id="encuesta"><form class="card" method="post" action="${PAGE_PATH}/encuesta">
  <h2>¿Cómo fue el servicio?</h2>
  <fieldset><legend>Calificación de 1 (mala) a 5 (excelente)</legend><div class="stars">${stars}</div></fieldset>
  <label for="comment">Comentario (opcional)</label>
  <textarea id="comment" name="comment" maxlength="1000"></textarea>
  <button type="submit">Enviar calificación</button>
</form></div>`;
}

export interface FollowPage {
  service: FollowUp;
  messages: ChatMessage[];
  chatOpen: boolean;
  error?: string;
  notice?: string;
}

/** Step 3: the follow-up, the chat and the survey. */
export function followPage(p: FollowPage): string {
  const chat = p.chatOpen
    ? `<form id="chat-form" method="post" action="${PAGE_PATH}/mensaje">
    <label for="texto">Escriba al técnico</label>
    <textarea id="texto" name="texto" required maxlength="2000"></textarea>
    <button type="submit">Enviar mensaje</button>
  </form>`
    : '<p class="hint">El chat se abre cuando el servicio está asignado y se cierra 24 horas después de terminar.</p>';
  return layout(
    'Su servicio',
    `${alert(p.error, p.notice)}
${statusPart(p.service)}
<section id="chat" aria-labelledby="chat-titulo">
  <h2 id="chat-titulo">Chat con el técnico</h2>
  ${messagesPart(p.messages)}
  ${chat}
</section>
${surveyPart(p.service)}
<form method="post" action="${PAGE_PATH}/salir"><button type="submit" class="secondary">Salir</button></form>`,
    true,
  );
}

/** The fragment the live script fetches (`/seguimiento/parcial`). */
export function livePart(s: FollowUp, messages: ChatMessage[]): string {
  return `${statusPart(s)}${messagesPart(messages)}${surveyPart(s)}`;
}
