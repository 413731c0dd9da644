import { Migration } from '@mikro-orm/migrations';

/**
 * The retention of tracking requests and codes (D14): the prune job deletes
 * what no limit reads any more, by age, through these indexes.
 */
export class Migration20261126060000_tracking_retention extends Migration {
  override up(): void {
    this.addSql(`create index "tracking_request_at_index" on "tracking_request" ("at");`);
    this.addSql(`create index "tracking_code_expires_at_index" on "tracking_code" ("expires_at");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "tracking_code_expires_at_index";`);
    this.addSql(`drop index if exists "tracking_request_at_index";`);
  }
}
