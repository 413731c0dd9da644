import { Migration } from '@mikro-orm/migrations';

/**
 * SMS bodies without codes in clear (issue 29 item 4, D24): a row keeps its
 * body with the code masked; the body to send is sealed (AES-256-GCM) in
 * `sealed_body` until the provider took it or it failed for good, then
 * erased. The `outbox` provider (development only) keeps the body in clear.
 * Rows already written for other providers lose their codes here.
 */
export class Migration20261128120100_sms_sealed extends Migration {
  override up(): void {
    this.addSql(`alter table "sms_message" add column "sealed_body" text null;`);
    this.addSql(`update "sms_message" set "body" = regexp_replace("body", '(es )[0-9]{6}', '\\1******', 'g') where "provider" <> 'outbox';`);
  }

  override down(): void {
    this.addSql(`alter table "sms_message" drop column if exists "sealed_body";`);
  }
}
