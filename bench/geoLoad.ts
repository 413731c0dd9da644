/**
 * Bulk-loads a country-sized dispatch world with generate_series (seconds, not
 * minutes): `centrals` centrals, a quarter of them around Bogotá and the rest
 * spread over Colombia, each covering a 15–60 km circle for one to three
 * service types; `technicians` technicians near their central, 70 % available,
 * positions up to 20 minutes old. Deterministic (setseed) for a given size.
 * Used by bench/geo-query.ts and the plan test.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface GeoWorldSize {
  centrals: number;
  technicians: number;
}

export async function loadGeoWorld(em: EntityManager, size: GeoWorldSize): Promise<void> {
  await em.transactional(async (tem) => {
    const run = (sql: string, params: unknown[] = []) => tem.getConnection().execute(sql, params, 'run', tem.getTransactionContext());
    await run(`select setseed(0.42)`);
    await run(
      `insert into service_type (id, type, required_origin, required_destination)
       values (1, 'GRUA', true, true), (2, 'CONDUCTOR ELEGIDO', true, true), (3, 'CERRAJERIA', true, false)
       on conflict (id) do nothing`,
    );
    await run(
      `create temp table bench_center on commit drop as
       select n,
              case when n % 4 = 0 then 4.65 + (random() - 0.5) * 0.6 else -2 + random() * 13 end as lat,
              case when n % 4 = 0 then -74.08 + (random() - 0.5) * 0.6 else -78 + random() * 10 end as lng,
              15 + random() * 45 as radius_km
         from generate_series(1, ?::int) n`,
      [size.centrals],
    );
    await run(
      `insert into central (nit, name, phone, service_types)
       select 'BENCH-' || n, 'Central ' || n, null,
              (case n % 3 when 0 then '[1]' when 1 then '[1, 2]' else '[1, 2, 3]' end)::jsonb
         from bench_center order by n`,
    );
    await run(
      `insert into central_area (central_id, service_type_id, area)
       select c.id, t.id::int, a.g
         from bench_center b
         join central c on c.nit = 'BENCH-' || b.n
         cross join lateral (
           select st_multi(st_buffer(st_setsrid(st_makepoint(b.lng, b.lat), 4326)::geography, b.radius_km * 1000, 64)::geometry) as g
         ) a
         cross join lateral jsonb_array_elements_text(c.service_types) as t(id)`,
    );
    await run(
      `insert into technician (dni, central_id, names, rate, available, lat, lng, position, position_at, service_types)
       select 'BT-' || i, c.id, 'Técnico ' || i, 3 + random() * 2, random() < 0.7, p.lat, p.lng,
              st_setsrid(st_makepoint(p.lng, p.lat), 4326)::geography,
              now() - random() * interval '1200 seconds', c.service_types
         from generate_series(1, ?::int) i
         join bench_center b on b.n = i % ?::int + 1
         join central c on c.nit = 'BENCH-' || b.n
         cross join lateral (select b.lat + (random() - 0.5) * 0.5 as lat, b.lng + (random() - 0.5) * 0.5 as lng) p`,
      [size.technicians, size.centrals],
    );
  });
  await em.getConnection().execute(`analyze central; analyze central_area; analyze technician`);
}
