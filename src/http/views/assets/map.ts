/**
 * The map drawing shared by the operator console and the customer page (D23,
 * issue 31): a real projection (Web Mercator, EPSG:3857), a zoom chosen from
 * fixed steps (so a scale bar always reads a round distance, and the view does
 * not jump on every update), a fixed-length scale bar and a grid whose cells
 * measure the bar, and SVG markers. Nothing is fetched: the drawing is built
 * from the service's own coordinates.
 *
 * No imports and no DOM: every function returns numbers or SVG markup
 * (every text escaped), so the server renders it into a page and the browser
 * uses the very same code, served compiled at GET /assets/map.js
 * (`import { fitView, svgMap } from '/assets/map.js'`, or `import()` from a
 * classic script).
 */

export interface LatLng {
  lat: number;
  lng: number;
}

export interface Point {
  x: number;
  y: number;
}

/** WGS 84's semi-major axis, the sphere of Web Mercator. */
export const EARTH_RADIUS_M = 6378137;
const MAX_LAT = 85.05112878;
const rad = (d: number) => (d * Math.PI) / 180;

/** Web Mercator metres (EPSG:3857): x east, y north. */
export function mercator(p: LatLng): Point {
  const lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, p.lat));
  return { x: EARTH_RADIUS_M * rad(p.lng), y: EARTH_RADIUS_M * Math.log(Math.tan(Math.PI / 4 + rad(lat) / 2)) };
}

/** Great-circle distance in metres (haversine). */
export function distanceMeters(a: LatLng, b: LatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The zoom steps, in ground metres per pixel at the view's centre: 1, 1.5, 2, 3, 4, 5, 7, 10, 15 … 20 000 (the bar stays round). */
export const ZOOM_STEPS: readonly number[] = [1, 10, 100, 1000].flatMap((k) => [1, 1.5, 2, 3, 4, 5, 7].map((m) => m * k)).concat([10000, 15000, 20000]);
/** The scale bar's lengths, in metres. */
const BAR_STEPS: readonly number[] = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000];

export interface ScaleBar {
  meters: number;
  px: number;
  label: string;
}

export interface View {
  width: number;
  height: number;
  center: LatLng;
  /** ground metres per pixel at the centre (one of ZOOM_STEPS unless given) */
  metersPerPixel: number;
  scaleBar: ScaleBar;
}

export interface ViewOptions {
  /** pixels kept free at each edge (default 28) */
  padding?: number;
  /** a fixed scale: ground metres per pixel (no fitting) */
  metersPerPixel?: number;
  /** the finest zoom fitting may choose (default 1 m/px) */
  minMetersPerPixel?: number;
  /** where to look when there is nothing to show (default Bogotá) */
  fallbackCenter?: LatLng;
  /** the view drawn before: kept as long as every point still fits in it (a live map does not jump) */
  keep?: View | null;
}

export const BOGOTA: LatLng = { lat: 4.711, lng: -74.0721 };

/** "500 m", "1 km", "2,5 km" (Spanish decimal comma). */
export function formatDistance(m: number): string {
  if (m < 1000) return `${Math.round(m)} m`;
  const km = m / 1000;
  return `${(km < 10 ? Math.round(km * 10) / 10 : Math.round(km)).toString().replace('.', ',')} km`;
}

/** The longest round bar not wider than a quarter of the view (at least 40 px when one fits). */
function scaleBar(width: number, metersPerPixel: number): ScaleBar {
  const maxPx = Math.max(60, width / 4);
  let meters = BAR_STEPS[0];
  for (const m of BAR_STEPS) if (m / metersPerPixel <= maxPx) meters = m;
  return { meters, px: meters / metersPerPixel, label: formatDistance(meters) };
}

/** Mercator metres per pixel at the view's centre (ground metres grow by 1/cos(lat) on the projection). */
const mercatorPerPixel = (v: View) => v.metersPerPixel / Math.cos(rad(v.center.lat));

/** Pixel coordinates of a position in a view (y down, as SVG). */
export function project(v: View, p: LatLng): Point {
  const c = mercator(v.center);
  const m = mercator(p);
  const k = mercatorPerPixel(v);
  return { x: v.width / 2 + (m.x - c.x) / k, y: v.height / 2 - (m.y - c.y) / k };
}

/** The position at a pixel of a view (the inverse of project). */
export function unproject(v: View, q: Point): LatLng {
  const c = mercator(v.center);
  const k = mercatorPerPixel(v);
  const x = c.x + (q.x - v.width / 2) * k;
  const y = c.y - (q.y - v.height / 2) * k;
  return { lat: (2 * Math.atan(Math.exp(y / EARTH_RADIUS_M)) - Math.PI / 2) * (180 / Math.PI), lng: (x / EARTH_RADIUS_M) * (180 / Math.PI) };
}

const inside = (v: View, p: LatLng, pad: number) => {
  const q = project(v, p);
  return q.x >= pad && q.x <= v.width - pad && q.y >= pad && q.y <= v.height - pad;
};

function makeView(width: number, height: number, center: LatLng, metersPerPixel: number): View {
  return { width, height, center, metersPerPixel, scaleBar: scaleBar(width, metersPerPixel) };
}

/**
 * A view of `points` in a `width` × `height` drawing: centred on their
 * bounding box (in projected metres), at the finest zoom step that shows all
 * of them inside the padding. `keep` is returned unchanged while it still
 * shows every point, so a live map keeps its scale.
 */
export function fitView(points: readonly LatLng[], size: { width: number; height: number }, opts: ViewOptions = {}): View {
  const { width, height } = size;
  const pad = opts.padding ?? 28;
  const pts = points.filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lng));
  if (opts.keep && opts.keep.width === width && opts.keep.height === height && pts.length && pts.every((p) => inside(opts.keep as View, p, pad))) return opts.keep;
  if (!pts.length) return makeView(width, height, opts.fallbackCenter ?? BOGOTA, opts.metersPerPixel ?? 1000);
  const ms = pts.map(mercator);
  const minX = Math.min(...ms.map((m) => m.x));
  const maxX = Math.max(...ms.map((m) => m.x));
  const minY = Math.min(...ms.map((m) => m.y));
  const maxY = Math.max(...ms.map((m) => m.y));
  const cy = (minY + maxY) / 2;
  const center: LatLng = {
    lat: (2 * Math.atan(Math.exp(cy / EARTH_RADIUS_M)) - Math.PI / 2) * (180 / Math.PI),
    lng: (((minX + maxX) / 2) / EARTH_RADIUS_M) * (180 / Math.PI),
  };
  if (opts.metersPerPixel) return makeView(width, height, center, opts.metersPerPixel);
  const cos = Math.cos(rad(center.lat));
  const needX = (maxX - minX) / Math.max(1, width - 2 * pad);
  const needY = (maxY - minY) / Math.max(1, height - 2 * pad);
  const need = Math.max(needX, needY) * cos; // ground metres per pixel
  const min = opts.minMetersPerPixel ?? 1;
  const step = ZOOM_STEPS.find((s) => s >= min && s >= need) ?? ZOOM_STEPS[ZOOM_STEPS.length - 1];
  return makeView(width, height, center, step);
}

/** A view of `size` centred on `center` at `metersPerPixel` (a view the user zoomed, kept as the drawing resizes). */
export function viewAt(center: LatLng, metersPerPixel: number, size: { width: number; height: number }): View {
  return makeView(size.width, size.height, center, metersPerPixel);
}

/** One zoom step finer (-1) or coarser (+1), same centre. */
export function zoomView(v: View, dir: -1 | 1): View {
  const i = ZOOM_STEPS.indexOf(v.metersPerPixel);
  const j = i < 0 ? ZOOM_STEPS.findIndex((s) => s >= v.metersPerPixel) : i + dir;
  const step = ZOOM_STEPS[Math.max(0, Math.min(ZOOM_STEPS.length - 1, j))];
  return makeView(v.width, v.height, v.center, step);
}

/* ----- SVG ----- */

export const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
const n = (x: number) => (Math.round(x * 10) / 10).toString();

/** What a marker stands for: its shape and colour (shape differs too, never colour alone). */
export type MarkerKind = 'free' | 'busy' | 'offer' | 'site' | 'destination';

export interface Marker {
  kind: MarkerKind;
  at: LatLng;
  /** a short text beside the marker ("T3", "0:21") */
  label?: string;
  /** the accessible name of the marker (a <title>) */
  title?: string;
  /** an id for the group, so scripts and tests find it */
  id?: string;
  /** `data-*` attributes for scripts (e.g. a countdown's end) */
  data?: Readonly<Record<string, string>>;
}

export interface Route {
  from: LatLng;
  to: LatLng;
  id?: string;
}

export const MARKER_STYLE: Record<MarkerKind, { fill: string; legend: string }> = {
  free: { fill: '#15803d', legend: 'Técnico libre' },
  busy: { fill: '#b45309', legend: 'Técnico ocupado' },
  offer: { fill: '#b91c1c', legend: 'Oferta abierta' },
  site: { fill: '#1d4ed8', legend: 'Sitio del servicio' },
  destination: { fill: '#6d28d9', legend: 'Destino' },
};

/** A marker's shape centred on 0,0. */
function shape(kind: MarkerKind): string {
  const fill = MARKER_STYLE[kind].fill;
  switch (kind) {
    case 'free':
      return `<circle r="7" fill="${fill}" stroke="#fff" stroke-width="2"/>`;
    case 'busy':
      return `<circle r="7" fill="${fill}" stroke="#fff" stroke-width="2"/><circle r="2.5" fill="#fff"/>`;
    case 'offer':
      return `<path d="M0 -9 L9 0 L0 9 L-9 0 Z" fill="${fill}" stroke="#fff" stroke-width="2"/>`;
    case 'site':
      return `<path d="M0 0 C-6 -7 -7 -10 -7 -13 A7 7 0 1 1 7 -13 C7 -10 6 -7 0 0 Z" fill="${fill}" stroke="#fff" stroke-width="1.5"/><circle cy="-13" r="2.5" fill="#fff"/>`;
    case 'destination':
      return `<rect x="-7" y="-7" width="14" height="14" rx="2" fill="${fill}" stroke="#fff" stroke-width="2"/>`;
  }
}

/** One marker as an SVG group translated to its pixel (data-lat/lng kept for scripts and tests). */
export function markerSvg(v: View, m: Marker): string {
  const q = project(v, m.at);
  const id = m.id ? ` id="${esc(m.id)}"` : '';
  const title = m.title ? `<title>${esc(m.title)}</title>` : '';
  const label = m.label
    ? `<text x="11" y="4" font-size="12" font-weight="600" fill="#111827" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(m.label)}</text>`
    : '';
  const data = Object.entries(m.data ?? {})
    .filter(([k]) => /^[a-z][a-z0-9-]*$/.test(k))
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
  return `<g class="marcador ${m.kind}"${id}${data} data-kind="${m.kind}" data-lat="${m.at.lat}" data-lng="${m.at.lng}" transform="translate(${n(q.x)} ${n(q.y)})">${title}${shape(m.kind)}${label}</g>`;
}

/** A dashed line from a technician to where they are going. */
export function routeSvg(v: View, r: Route): string {
  const a = project(v, r.from);
  const b = project(v, r.to);
  const id = r.id ? ` id="${esc(r.id)}"` : '';
  return `<line class="ruta"${id} x1="${n(a.x)}" y1="${n(a.y)}" x2="${n(b.x)}" y2="${n(b.y)}" stroke="#374151" stroke-width="2" stroke-dasharray="6 4"/>`;
}

/** The grid (cells the size of the scale bar, aligned to the projection), the scale bar and a north arrow. */
function frame(v: View): string {
  const { width: w, height: h } = v;
  const s = v.scaleBar;
  const origin = mercator(v.center);
  const k = mercatorPerPixel(v);
  const cell = s.px; // pixels
  const cellM = cell * k; // projected metres: lines at whole multiples, so the grid stays put while the view does
  const lines: string[] = [];
  if (cell >= 8) {
    const left = origin.x - (w / 2) * k;
    for (let i = Math.ceil(left / cellM); (i * cellM - left) / k <= w; i++) lines.push(`M${n((i * cellM - left) / k)} 0V${h}`);
    const top = origin.y + (h / 2) * k;
    for (let i = Math.floor(top / cellM); (top - i * cellM) / k <= h; i--) lines.push(`M0 ${n((top - i * cellM) / k)}H${w}`);
  }
  const bx = 12;
  const by = h - 14;
  return `<path class="reticula" d="${lines.join('')}" stroke="#cbd5e1" stroke-width="1" fill="none"/>
<g class="escala" aria-hidden="true"><rect x="${bx - 6}" y="${by - 22}" width="${n(s.px + 12 + 8 * s.label.length)}" height="30" rx="4" fill="#fff" fill-opacity=".85"/>
<path d="M${bx} ${by - 6}V${by}H${n(bx + s.px)}V${by - 6}" stroke="#111827" stroke-width="2" fill="none"/>
<text x="${n(bx + s.px + 6)}" y="${by}" font-size="12" fill="#111827">${esc(s.label)}</text></g>
<g class="norte" aria-hidden="true" transform="translate(${w - 20} 24)"><path d="M0 -12 L6 4 L0 0 L-6 4 Z" fill="#111827"/><text y="16" font-size="11" text-anchor="middle" fill="#111827">N</text></g>`;
}

export interface MapContent {
  markers?: readonly Marker[];
  routes?: readonly Route[];
}

/**
 * The whole drawing: background, grid, scale bar, north arrow, routes, then
 * markers (offers under technicians). `title` is its accessible name; `desc`
 * a sentence a screen reader reads (the table beside it holds the details).
 */
export function svgMap(v: View, content: MapContent, a11y: { title: string; desc?: string; id?: string }): string {
  const id = a11y.id ?? 'mapa';
  const order: Record<MarkerKind, number> = { destination: 0, site: 1, offer: 2, busy: 3, free: 4 };
  const markers = [...(content.markers ?? [])].sort((a, b) => order[a.kind] - order[b.kind]);
  return `<svg id="${esc(id)}" class="mapa" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${v.width} ${v.height}" role="img" aria-labelledby="${esc(id)}-t${a11y.desc ? ` ${esc(id)}-d` : ''}" data-m-por-px="${v.metersPerPixel}" data-centro="${v.center.lat.toFixed(5)},${v.center.lng.toFixed(5)}">
<title id="${esc(id)}-t">${esc(a11y.title)}</title>${a11y.desc ? `<desc id="${esc(id)}-d">${esc(a11y.desc)}</desc>` : ''}
<rect width="${v.width}" height="${v.height}" fill="#f1f5f9"/>
${frame(v)}
<g class="rutas">${(content.routes ?? []).map((r) => routeSvg(v, r)).join('')}</g>
<g class="marcadores">${markers.map((m) => markerSvg(v, m)).join('')}</g>
</svg>`;
}

/** A legend for the kinds shown (HTML list with small SVG swatches). */
export function legendHtml(kinds: readonly MarkerKind[]): string {
  return `<ul class="leyenda">${kinds
    .map((k) => `<li><svg width="20" height="20" viewBox="${k === 'site' ? '-11 -22 22 24' : '-11 -11 22 22'}" aria-hidden="true">${shape(k)}</svg> ${esc(MARKER_STYLE[k].legend)}</li>`)
    .join('')}</ul>`;
}
