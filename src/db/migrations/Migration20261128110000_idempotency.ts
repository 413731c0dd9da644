import { Migration } from '@mikro-orm/migrations';

/**
 * Retries that act once (D24, issue 29 item 8): an `Idempotency-Key` of a
 * generator's or central's POST/PUT, per caller, with the hash of the request
 * it came with and, once answered, the answer (status, body, headers), kept
 * 24 hours (the retention job deletes older rows). `acted_at` is set in the
 * transaction of the act itself, so a claim whose process died shows whether
 * the act committed. And each generator's offer quota per minute (D24,
 * provisioning's `offersPerMinute`; null: QUOTA_OFFERS_PER_MIN).
 */
export class Migration20261128110000_idempotency extends Migration {
  override up(): void {
    this.addSql(`create table "idempotency_key" (
      "id" bigserial primary key,
      "caller" varchar(64) not null,
      "key" varchar(255) not null,
      "operation_id" varchar(64) not null,
      "request_hash" char(64) not null,
      "status" int null,
      "body" jsonb null,
      "headers" jsonb null,
      "created_at" timestamptz not null default now(),
      "locked_until" timestamptz null,
      "acted_at" timestamptz null,
      "answered_at" timestamptz null,
      constraint "idempotency_key_caller_key_unique" unique ("caller", "key"));`);
    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);
    this.addSql(`alter table "api_user" add column "offers_per_minute" int null constraint "api_user_offers_per_minute_check" check ("offers_per_minute" >= 1);`);
  }

  override down(): void {
    this.addSql(`alter table "api_user" drop column if exists "offers_per_minute";`);
    this.addSql(`drop table if exists "idempotency_key";`);
  }
}
