/**
 * The shared map drawing (src/http/views/assets/map.ts, D23): a real projection, a zoom from fixed steps, a scale
 * bar that measures what it says, a view that holds still while its points fit, and the module served as is.
 */
import { expect } from 'chai';
import { distanceMeters, fitView, formatDistance, project, svgMap, unproject, ZOOM_STEPS, type LatLng } from '../../src/http/views/assets/map.js';
import { startApp, type TestApp } from '../helpers/harness.js';

const BOGOTA: LatLng = { lat: 4.711, lng: -74.0721 };
/** `m` metres east (dx) and north (dy) of `p`, on the sphere. */
const offset = (p: LatLng, dx: number, dy: number): LatLng => ({
  lat: p.lat + (dy / 6378137) * (180 / Math.PI),
  lng: p.lng + (dx / (6378137 * Math.cos((p.lat * Math.PI) / 180))) * (180 / Math.PI),
});
const size = { width: 600, height: 400 };

describe('the shared map drawing (D23)', () => {
  it('projects so that pixels times metres per pixel are ground metres, in both axes', () => {
    const v = fitView([BOGOTA, offset(BOGOTA, 2000, 1500)], size);
    expect(ZOOM_STEPS).to.include(v.metersPerPixel);
    const a = project(v, BOGOTA);
    const east = project(v, offset(BOGOTA, 1000, 0));
    const north = project(v, offset(BOGOTA, 0, 1000));
    expect((east.x - a.x) * v.metersPerPixel).to.be.closeTo(1000, 10);
    expect((a.y - north.y) * v.metersPerPixel).to.be.closeTo(1000, 10);
    const back = unproject(v, east);
    expect(distanceMeters(back, offset(BOGOTA, 1000, 0))).to.be.below(0.01);
  });

  it('keeps 200 m and 1 km apart: a coarser zoom step and a longer scale bar for the farther point', () => {
    const near = fitView([BOGOTA, offset(BOGOTA, 200, 0)], { width: 300, height: 180 });
    const far = fitView([BOGOTA, offset(BOGOTA, 1000, 0)], { width: 300, height: 180 });
    expect(far.metersPerPixel).to.be.above(near.metersPerPixel);
    for (const v of [near, far]) {
      expect(v.scaleBar.px * v.metersPerPixel).to.be.closeTo(v.scaleBar.meters, 1e-6);
      expect(v.scaleBar.px).to.be.at.most(Math.max(60, 300 / 4));
    }
    expect(near.scaleBar.label).to.equal(formatDistance(near.scaleBar.meters));
    expect(formatDistance(2500)).to.equal('2,5 km');
    expect(formatDistance(500)).to.equal('500 m');
  });

  it('keeps the view while every point still fits, and refits when one leaves it', () => {
    const v = fitView([BOGOTA, offset(BOGOTA, 3000, 2000)], size);
    expect(fitView([BOGOTA, offset(BOGOTA, 2900, 1900)], size, { keep: v })).to.equal(v);
    expect(fitView([BOGOTA, offset(BOGOTA, 30000, 2000)], size, { keep: v })).to.not.equal(v);
  });

  it('escapes every text it draws', () => {
    const v = fitView([BOGOTA], size);
    const svg = svgMap(v, { markers: [{ kind: 'free', at: BOGOTA, label: '<b>', title: '"x" & y' }] }, { title: 'Mapa <1>' });
    expect(svg).to.not.include('<b>');
    expect(svg).to.include('&lt;b&gt;').and.include('&quot;x&quot; &amp; y').and.include('Mapa &lt;1&gt;');
  });

  describe('GET /assets/map.js', () => {
    let app: TestApp;
    before(async () => {
      app = await startApp();
    });
    after(async () => app.close());

    it('serves the compiled module, without a source-map reference, as JavaScript', async () => {
      const res = await fetch(`${app.url}/assets/map.js`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/javascript/);
      const text = await res.text();
      expect(text).to.include('export function fitView').and.include('export function svgMap');
      expect(text).to.not.include('sourceMappingURL');
    });
  });
});
