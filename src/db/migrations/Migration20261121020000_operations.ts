import { Migration } from '@mikro-orm/migrations';

/**
 * Service operations after acceptance: state notifications delivered in order
 * per offer and receiver, the outbox sweeper's lookups, and the history filters.
 */
export class Migration20261121020000_operations extends Migration {
  override up(): void {
    // Order of creation, used to send the deliveries of one offer to one URL in transition order.
    this.addSql(`alter table "webhook_delivery" add column "seq" bigserial not null;`);
    // The API user a delivery goes to (its x-apikey and webhookSecret are read at send time, never stored).
    this.addSql(`alter table "webhook_delivery" add column "receiver_id" int null references "api_user" ("id") on delete set null;`);
    this.addSql(
      `create index "webhook_delivery_unfinished_order_index" on "webhook_delivery" ("offer_uuid", "url", "seq") where "state" in ('pending', 'sending');`,
    );
    this.addSql(`create index "webhook_delivery_unfinished_created_index" on "webhook_delivery" ("created_at") where "state" in ('pending', 'sending');`);

    // Sweeper: open offers past their deadline, unanswered offers past their expiry.
    this.addSql(`create index "offer_open_deadline_index" on "offer" ("deadline_at") where "state" = 'ABIERTA';`);
    this.addSql(`create index "offer_unanswered_expiry_index" on "offer" ("expires_at") where "state" = 'SIN_RESPUESTA';`);

    // History (D7): the caller's offers by state or service type (business line), newest first.
    this.addSql(`create index "offer_generator_state_created_index" on "offer" ("generator_id", "state", "created_at" desc);`);
    this.addSql(`create index "offer_generator_type_created_index" on "offer" ("generator_id", "service_type_id", "created_at" desc);`);
  }
}
