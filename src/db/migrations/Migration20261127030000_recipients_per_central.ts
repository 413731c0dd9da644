import { Migration } from '@mikro-orm/migrations';

/**
 * An offer's recipients as one row per covering central, its technicians in
 * two arrays on that row (ids and distances, nearest first) with one mark of
 * when they were published: a row per technician cost three foreign-key
 * checks and four index entries each (docs/decisions.md AUC-13; figures in
 * docs/performance-journal.md). Every technician of a distribution belongs to a
 * covering central, so each has its central's row; existing rows are folded
 * into it (a row added for a central only its technicians named).
 */
export class Migration20261127030000_recipients_per_central extends Migration {
  override up(): void {
    this.addSql(`alter table "offer_recipient"
      add column "technician_ids" int[] not null default '{}',
      add column "technician_km" double precision[] not null default '{}',
      add column "technicians_notified_at" timestamptz null;`);
    this.addSql(`
      insert into "offer_recipient" ("offer_uuid", "kind", "central_id", "channel", "created_at")
      select distinct on (t."offer_uuid", t."central_id") t."offer_uuid", 'central', t."central_id", 'none', t."created_at"
        from "offer_recipient" t
       where t."kind" = 'technician'
         and not exists (select 1 from "offer_recipient" c where c."offer_uuid" = t."offer_uuid" and c."central_id" = t."central_id" and c."kind" = 'central')
       order by t."offer_uuid", t."central_id", t."id";`);
    this.addSql(`
      update "offer_recipient" c
         set "technician_ids" = f.ids, "technician_km" = f.km, "technicians_notified_at" = f.notified
        from (select "offer_uuid", "central_id",
                     array_agg("technician_id" order by "distance_km", "id") as ids,
                     array_agg("distance_km" order by "distance_km", "id") as km,
                     case when bool_and("notified_at" is not null) then max("notified_at") end as notified
                from "offer_recipient" where "kind" = 'technician' group by "offer_uuid", "central_id") f
       where c."kind" = 'central' and c."offer_uuid" = f."offer_uuid" and c."central_id" = f."central_id";`);
    this.addSql(`delete from "offer_recipient" where "kind" = 'technician';`);
    this.addSql(`drop index if exists "offer_recipient_technician_unique";`);
    this.addSql(`drop index if exists "offer_recipient_central_unique";`);
    this.addSql(`drop index if exists "offer_recipient_offer_uuid_index";`);
    this.addSql(`alter table "offer_recipient" drop constraint if exists "offer_recipient_kind_check";`);
    this.addSql(`alter table "offer_recipient" drop column "kind", drop column "technician_id", drop column "distance_km", drop column "notified_at";`);
    this.addSql(`alter table "offer_recipient" drop constraint if exists "offer_recipient_channel_check";`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_channel_check" check ("channel" in ('http', 'none'));`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_technicians_check" check (cardinality("technician_ids") = cardinality("technician_km"));`);
    // one row per offer and central (a re-run never records or pushes twice); its prefix serves the reads by offer
    this.addSql(`create unique index "offer_recipient_offer_central_unique" on "offer_recipient" ("offer_uuid", "central_id");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "offer_recipient_offer_central_unique";`);
    this.addSql(`alter table "offer_recipient" drop constraint if exists "offer_recipient_technicians_check";`);
    this.addSql(`alter table "offer_recipient" drop constraint if exists "offer_recipient_channel_check";`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_channel_check" check ("channel" in ('http', 'realtime', 'none'));`);
    this.addSql(`alter table "offer_recipient"
      add column "kind" varchar(16) not null default 'central',
      add column "technician_id" int null references "technician" ("id") on delete cascade,
      add column "distance_km" double precision null,
      add column "notified_at" timestamptz null;`);
    this.addSql(`alter table "offer_recipient" alter column "kind" drop default;`);
    this.addSql(`
      insert into "offer_recipient" ("offer_uuid", "kind", "central_id", "technician_id", "channel", "distance_km", "created_at", "notified_at")
      select r."offer_uuid", 'technician', r."central_id", u.id, 'realtime', u.km, r."created_at", r."technicians_notified_at"
        from "offer_recipient" r cross join lateral unnest(r."technician_ids", r."technician_km") as u(id, km)
       where exists (select 1 from "technician" t where t."id" = u.id);`);
    this.addSql(`alter table "offer_recipient" drop column "technician_ids", drop column "technician_km", drop column "technicians_notified_at";`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_kind_check" check (("kind" = 'central' and "technician_id" is null) or ("kind" = 'technician' and "technician_id" is not null));`);
    this.addSql(`create unique index "offer_recipient_central_unique" on "offer_recipient" ("offer_uuid", "central_id") where "kind" = 'central';`);
    this.addSql(`create unique index "offer_recipient_technician_unique" on "offer_recipient" ("offer_uuid", "technician_id") where "kind" = 'technician';`);
    this.addSql(`create index "offer_recipient_offer_uuid_index" on "offer_recipient" ("offer_uuid");`);
  }
}
