import { Migration } from '@mikro-orm/migrations';

/**
 * Retention of the customer's data (issue 29 item 9): the prune job deletes
 * SMS rows, chat messages and expired tracking tokens, and blanks survey
 * comments, by age, through these indexes (docs/security.md).
 */
export class Migration20261128120200_customer_retention extends Migration {
  override up(): void {
    this.addSql(`create index "chat_message_enviado_en_index" on "chat_message" ("enviado_en");`);
    this.addSql(`create index if not exists "tracking_token_expires_at_index" on "tracking_token" ("expires_at");`);
    this.addSql(`create index "service_survey_comment_created_index" on "service_survey" ("created_at") where "comment" is not null;`);
  }

  override down(): void {
    this.addSql(`drop index if exists "service_survey_comment_created_index";`);
    this.addSql(`drop index if exists "tracking_token_expires_at_index";`);
    this.addSql(`drop index if exists "chat_message_enviado_en_index";`);
  }
}
