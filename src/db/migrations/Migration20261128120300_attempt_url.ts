import { Migration } from '@mikro-orm/migrations';

/**
 * Where each webhook attempt went (issue 29 item 4): a retry or a resend goes
 * to the receiver's URL as its profile says at send time, which may differ
 * from the URL the delivery was planned with; the attempt records it.
 */
export class Migration20261128120300_attempt_url extends Migration {
  override up(): void {
    this.addSql(`alter table "webhook_attempt" add column "url" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "webhook_attempt" drop column if exists "url";`);
  }
}
