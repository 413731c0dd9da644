/**
 * Issue 31 items 3 and 5 (customer page), the parts that need no browser: the
 * arrival as a clock time (decisions CUS-2), the map at a fixed scale
 * (CUS-4: 1 km and 200 m look different), no raw coordinates, each history
 * step once, the technician's first name, identifier and plate, the
 * insurer's help line (CUS-3), and the SMS link opening the code form.
 */
import { expect } from 'chai';
import { arrivalOf, DETOUR_FACTOR, distanceMetres, minutesUntil } from '../../src/domain/tracking/arrival.js';
import type { FollowUp } from '../../src/domain/tracking/followUp.js';
import { codePage, historyPart, mapScale, startPage, statusPart } from '../../src/http/views/trackingPage.js';

const SITE = { lat: 4.6533, lng: -74.0836 };
/** A point `m` metres north of the site. */
const north = (m: number) => ({ lat: SITE.lat + m / 111_195, lng: SITE.lng });

const service = (o: Partial<FollowUp> = {}): FollowUp => ({
  expediente: 'SV-7K3M9Q',
  codigoServicio: 'SV-7K3M9Q',
  estado: 'EN_CAMINO',
  timeline: [],
  tecnico: { nombre: 'Carlos Andrés Pérez', telefono: '+573001112233', identificador: 'GA-07' },
  central: { nombre: 'Grúas Andinas' },
  posicionTecnico: null,
  etaMinutos: null,
  llegada: null,
  distanciaMetros: null,
  placa: 'WNX482',
  aseguradora: { nombre: 'Aseguradora Andina S.A.', lineaAyuda: '+57 601 555 0199' },
  origen: { direccion: 'Calle 72 # 10-34', latitud: SITE.lat, longitud: SITE.lng, ciudad: 'Bogotá', departamento: 'Cundinamarca' },
  destino: null,
  encuestaRespondida: false,
  ...o,
});
const withTechAt = (p: { lat: number; lng: number }, at = new Date()) =>
  service({ posicionTecnico: { latitud: p.lat, longitud: p.lng, fecha: at.toISOString() }, distanciaMetros: Math.round(distanceMetres(p, SITE)) });
/** Pixels between the site's and the technician's markers in a rendered map. */
function markerGap(html: string): { px: number; mPerPx: number } {
  const at = (id: string) => {
    const m = new RegExp(`id="${id}"[^>]*transform="translate\\(([-\\d.]+) ([-\\d.]+)\\)"`).exec(html);
    if (!m) throw new Error(`no ${id}`);
    return { x: Number(m[1]), y: Number(m[2]) };
  };
  const a = at('marca-sitio');
  const b = at('marca-tecnico');
  return { px: Math.hypot(a.x - b.x, a.y - b.y), mPerPx: Number(/data-m-por-px="([\d.]+)"/.exec(html)![1]) };
}
const visibleText = (html: string) => html.replace(/<[^>]*>/g, ' ');

describe('the customer page: arrival, map, what it shows (issue 31 items 3, 5)', () => {
  describe('the arrival (CUS-2)', () => {
    const given = new Date('2026-11-28T15:00:00Z');
    const promise = { minutes: 12, givenAt: given, from: north(3000) };

    it('counts the technician’s promise down from when it was given: a clock time, minutes that move', () => {
      const a = arrivalOf({ origin: SITE, position: null, promise, speedKmh: 30 })!;
      expect(a).to.deep.equal({ hora: '2026-11-28T15:12:00.000Z', fuente: 'tecnico' });
      expect(minutesUntil(a, given.getTime() + 5 * 60_000)).to.equal(7);
      expect(minutesUntil(a, given.getTime() + 20 * 60_000)).to.equal(0);
    });

    it('keeps the promise while the position has not moved (or was reported before the promise)', () => {
      const still = arrivalOf({ origin: SITE, position: { ...north(3010), at: new Date(given.getTime() + 60_000) }, promise, speedKmh: 30 });
      expect(still?.fuente).to.equal('tecnico');
      const older = arrivalOf({ origin: SITE, position: { ...north(1000), at: new Date(given.getTime() - 60_000) }, promise, speedKmh: 30 });
      expect(older?.fuente).to.equal('tecnico');
    });

    it('once the technician moves: the distance left, with the detour factor, at the speed, from the position’s time', () => {
      const at = new Date(given.getTime() + 4 * 60_000);
      const a = arrivalOf({ origin: SITE, position: { ...north(2000), at }, promise, speedKmh: 30 })!;
      expect(a.fuente).to.equal('distancia');
      const minutes = (Date.parse(a.hora) - at.getTime()) / 60_000;
      expect(minutes).to.be.closeTo(((2 * DETOUR_FACTOR) / 30) * 60, 0.05); // 2 km × 1.4 at 30 km/h ≈ 5.6 min, not "1 min"
    });

    it('without a promise (direct assignment): from the position, or nothing', () => {
      expect(arrivalOf({ origin: SITE, position: null, promise: null, speedKmh: 30 })).to.equal(null);
      expect(arrivalOf({ origin: SITE, position: { ...north(500), at: given }, promise: null, speedKmh: 30 })?.fuente).to.equal('distancia');
    });
  });

  describe('the map at a fixed scale (CUS-4)', () => {
    it('1 km and 200 m look different: the same metres per pixel, five times the gap', () => {
      const far = markerGap(statusPart(withTechAt(north(1000))));
      const near = markerGap(statusPart(withTechAt(north(200))));
      expect(far.mPerPx).to.equal(near.mPerPx);
      expect(far.px / near.px).to.be.closeTo(5, 0.1);
      expect(far.px * far.mPerPx).to.be.closeTo(1000, 15);
    });

    it('steps to a coarser fixed scale only when the technician would be off the map, and draws a scale bar', () => {
      expect(mapScale(SITE, north(200))).to.equal(10);
      expect(mapScale(SITE, north(1000))).to.equal(10);
      expect(mapScale(SITE, north(8000))).to.equal(250);
      const html = statusPart(withTechAt(north(8000)));
      expect(markerGap(html).mPerPx).to.be.greaterThan(10);
      expect(html).to.match(/<g class="escala"/);
      expect(html).to.include('La barra mide');
    });

    it('shows no raw coordinates, but the distance in words and the direction', () => {
      const html = statusPart(withTechAt(north(1000)));
      expect(visibleText(html)).to.not.match(/-?\d{1,3}\.\d{4,}/);
      expect(visibleText(html)).to.include('1 km en línea recta').and.include('hacia el norte');
    });
  });

  describe('what it shows', () => {
    it('the technician’s first name, identifier and plate (never the surname), the arrival clock, the help line', () => {
      const now = Date.parse('2026-11-28T15:04:00Z');
      const html = statusPart(service({ llegada: { hora: '2026-11-28T15:12:00.000Z', fuente: 'tecnico' } }), now);
      const text = visibleText(html);
      expect(text).to.include('Carlos').and.include('(GA-07)').and.include('WNX482').and.not.include('Pérez');
      expect(text).to.include('Llegada estimada').and.include('(en 8 min)').and.include('Según el tiempo que indicó el técnico');
      expect(html).to.match(/<time datetime="2026-11-28T15:12:00.000Z">10:12/);
    });

    it('“última posición hace N min” only when the position is older than two minutes', () => {
      const fresh = statusPart(withTechAt(north(500), new Date(Date.now() - 60_000)));
      expect(fresh).to.match(/data-posicion="[^"]+" hidden>/);
      const stale = statusPart(withTechAt(north(500), new Date(Date.now() - 5 * 60_000 - 1000)));
      expect(stale).to.match(/data-posicion="[^"]+">Última posición <span class="hace">hace 5 min<\/span>/);
    });

    it('an unanswered request says it is looking for a provider once (heading), the history tells what happened', () => {
      const s = service({
        estado: 'SIN_RESPUESTA',
        tecnico: null,
        timeline: [
          { estado: 'ABIERTA', fecha: '2026-11-28T15:00:00.000Z' },
          { estado: 'SIN_RESPUESTA', fecha: '2026-11-28T15:00:30.000Z' },
        ],
      });
      const text = visibleText(statusPart(s) + historyPart(s));
      expect(text.match(/buscando un proveedor/gi)).to.have.length(1);
      expect(text).to.include('Solicitud recibida').and.include('Ningún proveedor respondió a tiempo');
    });

    it('the SMS link’s code form shows the expediente; “Pedir otro código” keeps what was typed', () => {
      const fromLink = codePage('SV-7K3M9Q');
      expect(fromLink).to.include('<strong>SV-7K3M9Q</strong>').and.include('href="/seguimiento?expediente=SV-7K3M9Q&amp;otro=1"');
      const typed = codePage('SV-7K3M9Q', undefined, 'enviado', '300 765 4321');
      expect(typed).to.match(/<form method="post" action="\/seguimiento\/codigo">\s*<input type="hidden" name="expediente" value="SV-7K3M9Q"><input type="hidden" name="telefono" value="300 765 4321">/);
      expect(startPage({ expediente: 'SV-7K3M9Q' })).to.match(/id="expediente"[^>]*value="SV-7K3M9Q"/).and.match(/id="telefono"[^>]*autofocus/);
    });
  });
});
