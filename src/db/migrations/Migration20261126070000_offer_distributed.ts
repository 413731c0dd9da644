import { Migration } from '@mikro-orm/migrations';

/**
 * When an offer's recipients were recorded (issue 12: distributions in
 * batches). A distribution takes, beside its own offer, open offers not yet
 * recorded, through the partial index; open offers already recorded are
 * marked so no batch takes them again.
 */
export class Migration20261126070000_offer_distributed extends Migration {
  override up(): void {
    this.addSql(`alter table "offer" add column "distributed_at" timestamptz null;`);
    this.addSql(`
      update "offer" o set "distributed_at" = o."created_at"
       where o."state" = 'ABIERTA'
         and (exists (select 1 from "offer_recipient" r where r."offer_uuid" = o."uuid")
              or exists (select 1 from "webhook_delivery" d where d."offer_uuid" = o."uuid" and d."kind" = 'offer-push'));`);
    this.addSql(`create index "offer_undistributed_index" on "offer" ("created_at") where "state" = 'ABIERTA' and "distributed_at" is null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "offer_undistributed_index";`);
    this.addSql(`alter table "offer" drop column if exists "distributed_at";`);
  }
}
