import { Migration } from '@mikro-orm/migrations';

/**
 * A technician's own credential (D20): its status (an INACTIVO technician
 * gets no offers and its tokens are refused), and its bearer tokens, stored
 * only as the SHA-256 of the random token with the fingerprint of the
 * central's key they were issued under, so a changed key refuses them.
 */
export class Migration20261128070000_technician_token extends Migration {
  override up(): void {
    this.addSql(`alter table "technician" add column "status" text not null default 'ACTIVO'
      constraint "technician_status_check" check ("status" in ('ACTIVO', 'INACTIVO'));`);
    this.addSql(`create table "technician_token" (
      "token_hash" char(64) primary key,
      "technician_id" int not null references "technician" ("id") on delete cascade,
      "api_user_id" int not null references "api_user" ("id") on delete cascade,
      "key_fingerprint" char(64) not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create index "technician_token_technician_id_index" on "technician_token" ("technician_id");`);
    this.addSql(`create index "technician_token_expires_at_index" on "technician_token" ("expires_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "technician_token";`);
    this.addSql(`alter table "technician" drop column if exists "status";`);
  }
}
