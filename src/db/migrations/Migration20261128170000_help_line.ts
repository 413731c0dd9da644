import { Migration } from '@mikro-orm/migrations';

/**
 * The help line a generator (an insurer) gives its customers (issue 31,
 * decisions CUS-3): shown on the customer page beside the insurer's name.
 */
export class Migration20261128170000_help_line extends Migration {
  override up(): void {
    this.addSql(`alter table "api_user" add column if not exists "help_line" varchar(32) null;`);
  }

  override down(): void {
    this.addSql(`alter table "api_user" drop column if exists "help_line";`);
  }
}
