import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox sweeper's lookup of open offers never distributed: open offers
 * by creation time, and an offer's recipients by offer (the existing unique
 * indexes are partial per kind, so "any recipient of this offer" could not
 * use them; the distribution job's count of them uses this one too).
 */
export class Migration20261121050000_sweep_recovery extends Migration {
  override up(): void {
    this.addSql(`create index "offer_open_created_index" on "offer" ("created_at") where "state" = 'ABIERTA';`);
    this.addSql(`create index "offer_recipient_offer_uuid_index" on "offer_recipient" ("offer_uuid");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "offer_recipient_offer_uuid_index";`);
    this.addSql(`drop index if exists "offer_open_created_index";`);
  }
}
