import { Migration } from '@mikro-orm/migrations';

/**
 * The customer's side (issue 9, D13, D14, D16): the customer's phone on the
 * offer, technicians busy while assigned, the initial rate surveys average
 * with, tracking codes (keyed hashes) and tokens (hashes), surveys, SMS sent
 * (the offline outbox and every provider's attempts) and the chat.
 */
export class Migration20261124100000_customer extends Migration {
  override up(): void {
    this.addSql(`alter table "offer" add column "telefono_cliente" varchar(16) null;`);
    this.addSql(`alter table "technician" add column "busy_offer_uuid" uuid null references "offer" ("uuid") on delete set null;`);
    this.addSql(`create index "technician_busy_offer_index" on "technician" ("busy_offer_uuid") where "busy_offer_uuid" is not null;`);
    this.addSql(`alter table "technician" add column "initial_rate" double precision null;`);
    this.addSql(`
      create table "tracking_code" (
        "id" bigserial primary key,
        "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade,
        "code_hash" char(64) not null,
        "tries" int not null default 0,
        "created_at" timestamptz not null default now(),
        "expires_at" timestamptz not null,
        "used_at" timestamptz null
      );`);
    this.addSql(`create index "tracking_code_offer_index" on "tracking_code" ("offer_uuid", "created_at");`);
    this.addSql(`
      create table "tracking_request" (
        "id" bigserial primary key,
        "offer_uuid" uuid null references "offer" ("uuid") on delete cascade,
        "expediente" varchar(64) not null,
        "phone" varchar(16) null,
        "matched" boolean not null,
        "at" timestamptz not null default now()
      );`);
    this.addSql(`create index "tracking_request_expediente_index" on "tracking_request" ("expediente", "at");`);
    this.addSql(`create index "tracking_request_phone_index" on "tracking_request" ("phone", "at") where "matched";`);
    this.addSql(`
      create table "tracking_token" (
        "token_hash" char(64) primary key,
        "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade,
        "issued_at" timestamptz not null default now(),
        "expires_at" timestamptz not null
      );`);
    this.addSql(`
      create table "service_survey" (
        "offer_uuid" uuid primary key references "offer" ("uuid") on delete cascade,
        "technician_id" int null references "technician" ("id") on delete set null,
        "rating" smallint not null check ("rating" between 1 and 5),
        "comment" text null,
        "created_at" timestamptz not null default now()
      );`);
    this.addSql(`create index "service_survey_technician_index" on "service_survey" ("technician_id");`);
    this.addSql(`
      create table "sms_message" (
        "id" uuid primary key,
        "offer_uuid" uuid null references "offer" ("uuid") on delete set null,
        "to_phone" varchar(16) not null,
        "body" text not null,
        "provider" varchar(16) not null,
        "state" varchar(16) not null default 'pending',
        "attempts" int not null default 0,
        "provider_id" text null,
        "error" text null,
        "created_at" timestamptz not null default now(),
        "sent_at" timestamptz null
      );`);
    this.addSql(`create index "sms_message_created_index" on "sms_message" ("created_at");`);
    this.addSql(`
      create table "chat_message" (
        "id" bigserial primary key,
        "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade,
        "autor" varchar(8) not null check ("autor" in ('cliente', 'tecnico')),
        "technician_id" int null references "technician" ("id") on delete set null,
        "texto" text not null,
        "client_id" varchar(64) null,
        "enviado_en" timestamptz not null default now(),
        "leido_en" timestamptz null
      );`);
    this.addSql(`create index "chat_message_offer_index" on "chat_message" ("offer_uuid", "id");`);
    this.addSql(`create unique index "chat_message_client_id_unique" on "chat_message" ("offer_uuid", "autor", "client_id") where "client_id" is not null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "chat_message";`);
    this.addSql(`drop table if exists "sms_message";`);
    this.addSql(`drop table if exists "service_survey";`);
    this.addSql(`drop table if exists "tracking_token";`);
    this.addSql(`drop table if exists "tracking_request";`);
    this.addSql(`drop table if exists "tracking_code";`);
    this.addSql(`alter table "technician" drop column if exists "initial_rate";`);
    this.addSql(`drop index if exists "technician_busy_offer_index";`);
    this.addSql(`alter table "technician" drop column if exists "busy_offer_uuid";`);
    this.addSql(`alter table "offer" drop column if exists "telefono_cliente";`);
  }
}
