import { Migration } from '@mikro-orm/migrations';

/**
 * Share links (D24, issue 29 item 6): a tracking token has a scope, `full`
 * (the customer's: page, chat, socket, survey) or `share` (a read-only link
 * to the public follow-up, nothing else). Tokens are found by service for
 * the count of live share links and for revocation.
 */
export class Migration20261128130000_tracking_share extends Migration {
  override up(): void {
    this.addSql(`alter table "tracking_token" add column "scope" text not null default 'full'
      constraint "tracking_token_scope_check" check ("scope" in ('full', 'share'));`);
    this.addSql(`create index "tracking_token_offer_uuid_index" on "tracking_token" ("offer_uuid", "scope");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "tracking_token_offer_uuid_index";`);
    this.addSql(`alter table "tracking_token" drop column if exists "scope";`);
  }
}
