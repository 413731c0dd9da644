import { Migration } from '@mikro-orm/migrations';

/**
 * API keys at rest (issue 29 item 4, D24): the inbound key is kept only as its
 * SHA-256 (hex), hashed here in place, and looked up by that hash; a rotated
 * key's previous hash stays valid until `previous_key_until` (API_KEY_GRACE_S).
 * The outbound credential (the x-apikey our webhooks carry) is its own column:
 * existing profiles keep sending what their receivers know today (the old key,
 * copied before hashing) until an operator provisions an `outboundKey` or
 * rotates the inbound key (docs/security.md; decision SEC-23).
 */
export class Migration20261128120000_api_key_hashes extends Migration {
  override up(): void {
    this.addSql(`alter table "api_user" add column "outbound_key" varchar(255) null;`);
    this.addSql(`update "api_user" set "outbound_key" = "api_key" where "api_key" is not null;`);
    this.addSql(`update "api_user" set "api_key" = encode(sha256(convert_to("api_key", 'UTF8')), 'hex') where "api_key" is not null;`);
    this.addSql(`alter table "api_user" rename column "api_key" to "api_key_hash";`);
    this.addSql(`alter table "api_user" alter column "api_key_hash" type char(64);`);
    this.addSql(`alter index "api_user_api_key_index" rename to "api_user_api_key_hash_index";`);
    this.addSql(`alter table "api_user" add column "previous_api_key_hash" char(64) null, add column "previous_key_until" timestamptz null;`);
    this.addSql(`create index "api_user_previous_api_key_hash_index" on "api_user" ("previous_api_key_hash") where "previous_api_key_hash" is not null;`);
  }

  override down(): void {
    // A hash cannot be turned back into its key: the outbound copy is what remains of the old keys.
    this.addSql(`drop index if exists "api_user_previous_api_key_hash_index";`);
    this.addSql(`alter table "api_user" drop column if exists "previous_api_key_hash", drop column if exists "previous_key_until";`);
    this.addSql(`alter index "api_user_api_key_hash_index" rename to "api_user_api_key_index";`);
    this.addSql(`alter table "api_user" rename column "api_key_hash" to "api_key";`);
    this.addSql(`alter table "api_user" alter column "api_key" type varchar(255);`);
    this.addSql(`update "api_user" set "api_key" = "outbound_key";`);
    this.addSql(`alter table "api_user" drop column if exists "outbound_key";`);
  }
}
