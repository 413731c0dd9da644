import { Migration } from '@mikro-orm/migrations';

/**
 * The operator console's live map and work queue (issue 31, D23): the active
 * services, the failed deliveries of the last day and an offer's SMS are each
 * read by an index, never a scan of the whole table.
 */
export class Migration20261128160000_console_queue extends Migration {
  override up(): void {
    this.addSql(`create index if not exists "offer_active_index" on "offer" ("created_at") where "state" in ('ASIGNADA', 'EN_CAMINO', 'EN_SITIO');`);
    this.addSql(`create index if not exists "webhook_delivery_failed_created_index" on "webhook_delivery" ("created_at") where "state" = 'failed';`);
    this.addSql(`create index if not exists "sms_message_offer_index" on "sms_message" ("offer_uuid") where "offer_uuid" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "sms_message_offer_index";`);
    this.addSql(`drop index if exists "webhook_delivery_failed_created_index";`);
    this.addSql(`drop index if exists "offer_active_index";`);
  }
}
