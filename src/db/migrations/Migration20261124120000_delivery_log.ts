import { Migration } from '@mikro-orm/migrations';

/**
 * The delivery log (D18): every attempt of every outgoing webhook, with who
 * triggered it (`system`, or the operator who resent it by hand); indexes for
 * a generator's own deliveries and for the retention job.
 */
export class Migration20261124120000_delivery_log extends Migration {
  override up(): void {
    this.addSql(`
      create table "webhook_attempt" (
        "id" bigserial primary key,
        "delivery_id" uuid not null references "webhook_delivery" ("id") on delete cascade,
        "attempt" int not null,
        "actor" varchar(200) not null default 'system',
        "at" timestamptz not null default now(),
        "request_headers" jsonb not null,
        "status_code" int null,
        "latency_ms" int null,
        "reply_body" text null,
        "error" text null
      );`);
    this.addSql(`create index "webhook_attempt_delivery_index" on "webhook_attempt" ("delivery_id", "id");`);
    this.addSql(`create index "webhook_attempt_at_index" on "webhook_attempt" ("at");`);
    this.addSql(`create index "webhook_delivery_receiver_created_index" on "webhook_delivery" ("receiver_id", "created_at" desc);`);
    this.addSql(`create index "webhook_delivery_created_index" on "webhook_delivery" ("created_at");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "webhook_delivery_created_index";`);
    this.addSql(`drop index if exists "webhook_delivery_receiver_created_index";`);
    this.addSql(`drop table if exists "webhook_attempt";`);
  }
}
