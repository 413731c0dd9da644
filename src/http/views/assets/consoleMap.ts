/**
 * The console's live map and its table view (issue 31, D23), drawn from GET
 * /api/v3/admin/mapa's data with the shared drawing (./map.ts). Like map.ts
 * it has no DOM and imports only ./map.js (types aside), so the server
 * renders the first paint with it and the console's script the live updates
 * (served compiled at /assets/console-map.js).
 */
import type { LiveMap, MapTechnician } from '../../../domain/console/liveMap.js';
import { distanceMeters, esc, fitView, formatDistance, legendHtml, svgMap, type LatLng, type Marker, type Route, type View } from './map.js';

export type { LiveMap };

/** The drawing's size before the browser measures its box. */
export const MAP_SIZE = { width: 800, height: 520 } as const;

/** The console's one time zone (the business's; fechaCita is in it too). */
export const CONSOLE_TIME_ZONE = 'America/Bogota';

const TECH_WORD: Record<MapTechnician['estado'], string> = { libre: 'libre', ocupado: 'ocupado con un servicio', 'no-disponible': 'no disponible' };
const STATE_WORD: Record<string, string> = {
  ABIERTA: 'Abierta',
  SIN_RESPUESTA: 'Sin respuesta',
  EXPIRADA: 'Expirada',
  ACEPTADA: 'Aceptada',
  ASIGNADA: 'Asignada',
  EN_CAMINO: 'En camino',
  EN_SITIO: 'En el sitio',
  FINALIZADA: 'Finalizada',
  CANCELADA: 'Cancelada',
  NO_ASIGNADA: 'No asignada',
  INACTIVA: 'Inactiva (el generador rechazó la asignación)',
};
/** A state in plain words. */
export const stateWord = (s: string): string => STATE_WORD[s] ?? s;

/** "2026-11-28 04:24:10" in the console's time zone (its label is shown once, in the header). */
export function clock(iso: string | null, timeZone: string = CONSOLE_TIME_ZONE): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(d);
}

/** "hace 12 s", "hace 3 min", "hace 2 h". */
export function ago(iso: string | null, now: number): string {
  if (!iso) return '—';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `hace ${s} s`;
  if (s < 3600) return `hace ${Math.floor(s / 60)} min`;
  return `hace ${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The window's countdown: "0:21"; "cerrando…" just past it; "vencida hace 5 min" when the closing is late. */
export function countdown(iso: string | null, now: number): string {
  if (!iso) return '—';
  const s = Math.ceil((Date.parse(iso) - now) / 1000);
  if (s <= -30) return `vencida ${ago(iso, now)}`;
  if (s <= 0) return 'cerrando…';
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const techAt = (t: { latitud: number; longitud: number }): LatLng => ({ lat: t.latitud, lng: t.longitud });

/** Every point the map must show. */
function points(d: LiveMap): LatLng[] {
  return [
    ...d.tecnicos.map(techAt),
    ...d.ofertas.map(techAt),
    ...d.servicios.flatMap((s) => [techAt(s.destino), ...(s.tecnicoPosicion ? [techAt(s.tecnicoPosicion)] : [])]),
  ];
}

/** The view for this data: the previous one while everything still fits in it. */
export function mapView(d: LiveMap, size: { width: number; height: number } = MAP_SIZE, keep: View | null = null): View {
  return fitView(points(d), size, { keep, padding: 36 });
}

export function summary(d: LiveMap): string {
  const free = d.tecnicos.filter((t) => t.estado === 'libre').length;
  const busy = d.tecnicos.filter((t) => t.estado === 'ocupado').length;
  const off = d.tecnicos.length - free - busy;
  const onWay = d.servicios.filter((s) => s.estado === 'EN_CAMINO').length;
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  return `${n(d.tecnicos.length, 'técnico', 'técnicos')} (${n(free, 'libre', 'libres')}, ${n(busy, 'ocupado', 'ocupados')}${off ? `, ${n(off, 'no disponible', 'no disponibles')}` : ''}), ${n(d.ofertas.length, 'oferta abierta', 'ofertas abiertas')}, ${n(onWay, 'servicio en camino', 'servicios en camino')} y ${n(d.servicios.length - onWay, 'asignado sin salir', 'asignados sin salir')}.`;
}

/** The SVG drawing: technicians, open offers (their countdown beside), services' routes and destinations. */
export function mapSvg(d: LiveMap, v: View, now: number): string {
  const markers: Marker[] = [
    ...d.ofertas.map((o) => ({
      kind: 'offer' as const,
      at: techAt(o),
      id: `oferta-${o.uuid}`,
      label: countdown(o.cierre, now),
      data: { cierre: o.cierre ?? '' },
      title: `Oferta abierta: ${o.tipo}, de ${o.generador}${o.direccion ? `, ${o.direccion}` : ''}`,
    })),
    ...d.servicios.map((s) => ({
      kind: 'site' as const,
      at: techAt(s.destino),
      id: `destino-${s.uuid}`,
      label: s.codigoServicio ?? undefined,
      title: `Destino del servicio ${s.codigoServicio ?? s.uuid} (${stateWord(s.estado)})`,
    })),
    ...d.tecnicos.map((t) => ({
      kind: t.estado === 'libre' ? ('free' as const) : ('busy' as const),
      at: techAt(t),
      id: `tec-${t.id}`,
      title: `${t.nombre} (${t.central}): ${TECH_WORD[t.estado]}`,
    })),
  ];
  const routes: Route[] = d.servicios.flatMap((s) => {
    const live = d.tecnicos.find((t) => t.id === s.tecnicoId) ?? s.tecnicoPosicion;
    return live ? [{ from: techAt(live), to: techAt(s.destino), id: `ruta-${s.uuid}` }] : [];
  });
  return svgMap(v, { markers, routes }, {
    id: 'mapa',
    title: 'Mapa en vivo de técnicos, ofertas abiertas y servicios en camino',
    desc: `${summary(d)} Escala: la barra mide ${v.scaleBar.label}. Los mismos datos están en la tabla «Datos del mapa».`,
  });
}

export const LEGEND = legendHtml(['free', 'busy', 'offer', 'site']);

/** The table view: the same data, three tables with captions. */
export function mapTables(d: LiveMap, now: number, timeZone: string = CONSOLE_TIME_ZONE): string {
  const techs = d.tecnicos.length
    ? d.tecnicos
        .map(
          (t) =>
            `<tr id="fila-tec-${t.id}" data-estado="${t.estado}"><th scope="row">${esc(t.nombre)}${t.identificador ? ` <span class="suave">(${esc(t.identificador)})</span>` : ''}</th><td data-etiqueta="Central">${esc(t.central)}</td><td data-etiqueta="Estado">${esc(TECH_WORD[t.estado])}</td><td class="pos" data-etiqueta="Posición">${t.latitud.toFixed(5)}, ${t.longitud.toFixed(5)}</td><td data-etiqueta="Reportada"><span data-desde="${esc(t.fecha)}" title="${esc(clock(t.fecha, timeZone))}">${esc(ago(t.fecha, now))}</span></td></tr>`,
        )
        .join('')
    : '<tr><td colspan="5">Ningún técnico reportó su posición en las últimas 12 horas.</td></tr>';
  const offers = d.ofertas.length
    ? d.ofertas
        .map(
          (o) =>
            `<tr id="fila-oferta-${esc(o.uuid)}"><th scope="row"><a href="/admin/console/ofertas/${esc(o.uuid)}">${esc(o.tipo)}</a></th><td data-etiqueta="Generador">${esc(o.generador)}</td><td data-etiqueta="Origen">${esc(o.direccion ?? `${o.latitud.toFixed(4)}, ${o.longitud.toFixed(4)}`)}</td><td data-etiqueta="Cierra en"><span data-cierre="${esc(o.cierre ?? '')}">${esc(countdown(o.cierre, now))}</span> <span class="suave">(${esc(clock(o.cierre, timeZone).slice(11))})</span></td></tr>`,
        )
        .join('')
    : '<tr><td colspan="4">No hay ofertas abiertas.</td></tr>';
  const services = d.servicios.length
    ? d.servicios
        .map((s) => {
          const live = d.tecnicos.find((t) => t.id === s.tecnicoId);
          const from = live ? techAt(live) : s.tecnicoPosicion ? techAt(s.tecnicoPosicion) : null;
          const dist = from ? formatDistance(distanceMeters(from, techAt(s.destino))) : 'sin posición';
          return `<tr id="fila-servicio-${esc(s.uuid)}"><th scope="row"><a href="/admin/console/ofertas/${esc(s.uuid)}">${esc(s.codigoServicio ?? s.uuid.slice(0, 8))}</a></th><td data-etiqueta="Estado">${esc(stateWord(s.estado))}</td><td data-etiqueta="Técnico">${esc(s.tecnico ?? '—')}</td><td data-etiqueta="Destino">${esc(s.destino.direccion ?? `${s.destino.latitud.toFixed(4)}, ${s.destino.longitud.toFixed(4)}`)}</td><td class="dist" data-etiqueta="Distancia">${esc(dist)}</td></tr>`;
        })
        .join('')
    : '<tr><td colspan="5">Ningún servicio asignado o en camino.</td></tr>';
  return `<table id="tabla-tecnicos" class="tarjetas"><caption>Técnicos (${d.tecnicos.length})</caption>
<thead><tr><th scope="col">Técnico</th><th scope="col">Central</th><th scope="col">Estado</th><th scope="col">Posición</th><th scope="col">Reportada</th></tr></thead><tbody>${techs}</tbody></table>
<table id="tabla-ofertas" class="tarjetas"><caption>Ofertas abiertas (${d.ofertas.length})</caption>
<thead><tr><th scope="col">Tipo</th><th scope="col">Generador</th><th scope="col">Origen</th><th scope="col">Cierra en</th></tr></thead><tbody>${offers}</tbody></table>
<table id="tabla-servicios" class="tarjetas"><caption>Servicios asignados y en camino (${d.servicios.length})</caption>
<thead><tr><th scope="col">Servicio</th><th scope="col">Estado</th><th scope="col">Técnico</th><th scope="col">Destino</th><th scope="col">Distancia en línea recta</th></tr></thead><tbody>${services}</tbody></table>`;
}
