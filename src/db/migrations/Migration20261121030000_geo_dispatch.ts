import { Migration } from '@mikro-orm/migrations';

/**
 * Geo dispatch: who received each offer (offer_recipient), the geocoder cache,
 * and a GiST index over the positions of available technicians only (the one
 * the distribution query walks nearest first; unavailable technicians'
 * position updates no longer touch it).
 */
export class Migration20261121030000_geo_dispatch extends Migration {
  override up(): void {
    this.addSql(`drop index if exists "technician_position_gist";`);
    this.addSql(`create index "technician_available_position_gist" on "technician" using gist ("position") where "available";`);

    this.addSql(`create table "offer_recipient" ("id" serial primary key, "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade, "kind" varchar(16) not null, "central_id" int not null references "central" ("id") on delete cascade, "technician_id" int null references "technician" ("id") on delete cascade, "channel" varchar(16) not null, "distance_km" double precision null, "delivery_id" uuid null references "webhook_delivery" ("id") on delete set null, "created_at" timestamptz not null, "notified_at" timestamptz null);`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_kind_check" check (("kind" = 'central' and "technician_id" is null) or ("kind" = 'technician' and "technician_id" is not null));`);
    this.addSql(`alter table "offer_recipient" add constraint "offer_recipient_channel_check" check ("channel" in ('http', 'realtime', 'none'));`);
    // One row per offer and central, one per offer and technician: a re-run never records (or pushes) twice.
    this.addSql(`create unique index "offer_recipient_central_unique" on "offer_recipient" ("offer_uuid", "central_id") where "kind" = 'central';`);
    this.addSql(`create unique index "offer_recipient_technician_unique" on "offer_recipient" ("offer_uuid", "technician_id") where "kind" = 'technician';`);

    this.addSql(`create table "geocode_cache" ("provider" varchar(32) not null, "address_key" text not null, "lat" double precision null, "lng" double precision null, "ciudad" varchar(255) null, "departamento" varchar(255) null, "resolved_at" timestamptz not null, primary key ("provider", "address_key"));`);
  }

  override down(): void {
    this.addSql(`drop table if exists "geocode_cache";`);
    this.addSql(`drop table if exists "offer_recipient";`);
    this.addSql(`drop index if exists "technician_available_position_gist";`);
    this.addSql(`create index "technician_position_gist" on "technician" using gist ("position");`);
  }
}
