import { Migration } from '@mikro-orm/migrations';

/**
 * The initial schema: reference data (business lines, service types), API
 * users, centrals with their coverage areas (PostGIS), technicians with their
 * positions (PostGIS), operator users, offers, responses, the audit trail,
 * webhook deliveries and the offline gazetteer.
 */
export class Migration20261121000000_initial extends Migration {
  override up(): void {
    this.addSql(`create extension if not exists postgis;`);

    this.addSql(`create table "business_line" ("code" varchar(255) not null, "name" varchar(255) not null, primary key ("code"));`);

    this.addSql(`create table "service_type" ("id" int not null, "type" varchar(255) not null, "required_origin" boolean not null, "required_destination" boolean not null, "line_code" varchar(255) null references "business_line" ("code") on delete set null, primary key ("id"));`);
    this.addSql(`create index "service_type_line_code_index" on "service_type" ("line_code");`);

    this.addSql(`create table "api_user" ("id" serial primary key, "username" varchar(255) not null, "password_sha256" varchar(64) not null, "status" text not null, "endpoints" jsonb not null, "business_name" varchar(255) not null, "nit" varchar(255) null, "api_key" varchar(255) null, "url_api" varchar(255) null, "api_endpoint" jsonb not null, "webhook_secret" varchar(255) null, "requires_payment_confirmation" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "api_user" add constraint "api_user_username_unique" unique ("username");`);
    this.addSql(`create index "api_user_nit_index" on "api_user" ("nit");`);
    this.addSql(`create index "api_user_api_key_index" on "api_user" ("api_key");`);
    this.addSql(`alter table "api_user" add constraint "api_user_status_check" check ("status" in ('ACTIVO', 'INACTIVO'));`);

    this.addSql(`create table "central" ("id" serial primary key, "nit" varchar(255) not null, "name" varchar(255) not null, "phone" varchar(255) null, "api_user_id" int null references "api_user" ("id") on delete set null, "service_types" jsonb not null);`);
    this.addSql(`alter table "central" add constraint "central_nit_unique" unique ("nit");`);
    this.addSql(`create index "central_api_user_id_index" on "central" ("api_user_id");`);

    // One row per central and service type: "who covers this point for this type" is one GiST lookup.
    this.addSql(`create table "central_area" ("id" serial primary key, "central_id" int not null references "central" ("id") on delete cascade, "service_type_id" int not null references "service_type" ("id") on delete cascade, "area" geometry(MultiPolygon, 4326) not null);`);
    this.addSql(`create index "central_area_area_gist" on "central_area" using gist ("area");`);
    this.addSql(`create index "central_area_service_type_index" on "central_area" ("service_type_id");`);
    this.addSql(`create unique index "central_area_central_type_unique" on "central_area" ("central_id", "service_type_id");`);

    this.addSql(`create table "technician" ("id" serial primary key, "dni" varchar(255) not null, "central_id" int not null references "central" ("id"), "names" varchar(255) not null, "phone" varchar(255) null, "identifier" varchar(255) null, "rate" double precision not null default 5, "available" boolean not null default true, "lat" double precision null, "lng" double precision null, "position" geography(Point, 4326) null, "position_at" timestamptz null, "service_types" jsonb not null);`);
    this.addSql(`alter table "technician" add constraint "technician_dni_unique" unique ("dni");`);
    this.addSql(`create index "technician_central_id_index" on "technician" ("central_id");`);
    this.addSql(`create index "technician_position_gist" on "technician" using gist ("position");`);

    this.addSql(`create table "operator_user" ("id" serial primary key, "username" varchar(255) not null, "password_hash" varchar(255) not null, "role" text not null default 'operator');`);
    this.addSql(`alter table "operator_user" add constraint "operator_user_username_unique" unique ("username");`);
    this.addSql(`alter table "operator_user" add constraint "operator_user_role_check" check ("role" in ('admin', 'operator'));`);

    this.addSql(`create table "offer" ("uuid" uuid not null, "generator_id" int not null references "api_user" ("id"), "service_type_id" int not null references "service_type" ("id"), "state" varchar(32) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deadline_at" timestamptz null, "expires_at" timestamptz null, "origin_lat" double precision not null, "origin_lng" double precision not null, "origin" geography(Point, 4326) generated always as (ST_SetSRID(ST_MakePoint("origin_lng", "origin_lat"), 4326)::geography) stored, "direccion_origen" text null, "punto_referencia_origen" text null, "ciudad" varchar(255) null, "departamento" varchar(255) null, "dest_lat" double precision null, "dest_lng" double precision null, "direccion_destino" text null, "punto_referencia_destino" text null, "descripcion_servicio" text not null, "fecha_cita" varchar(255) null, "hora_cita" varchar(255) null, "scheduled_at" timestamptz not null, "observaciones" text null, "vehiculo" jsonb null, "priority" boolean not null default false, "ofertante" varchar(255) not null, "internal" bigint null, "global" bigint null, "socket_id" varchar(255) null, "stops" jsonb not null default '[]', "codigo_servicio" varchar(255) null, "codigo_solicitud" varchar(255) null, "assigned_central_id" int null references "central" ("id") on delete set null, "assigned_technician_id" int null references "technician" ("id") on delete set null, "accepted_response" int null, "ranking" jsonb null, "placa" varchar(255) null, "observaciones_asignacion" text null, "motivo" text null, primary key ("uuid"));`);
    this.addSql(`alter table "offer" add constraint "offer_state_check" check ("state" in ('ABIERTA', 'SIN_RESPUESTA', 'EXPIRADA', 'ACEPTADA', 'ASIGNADA', 'EN_CAMINO', 'EN_SITIO', 'FINALIZADA', 'CANCELADA', 'NO_ASIGNADA', 'INACTIVA'));`);
    this.addSql(`alter table "offer" add constraint "offer_codigo_servicio_unique" unique ("codigo_servicio");`);
    this.addSql(`alter table "offer" add constraint "offer_codigo_solicitud_unique" unique ("codigo_solicitud");`);
    this.addSql(`create index "offer_generator_created_index" on "offer" ("generator_id", "created_at" desc);`);
    this.addSql(`create index "offer_generator_internal_index" on "offer" ("generator_id", "internal") where "internal" is not null;`);
    this.addSql(`create index "offer_generator_global_index" on "offer" ("generator_id", "global") where "global" is not null;`);
    this.addSql(`create index "offer_assigned_central_index" on "offer" ("assigned_central_id") where "assigned_central_id" is not null;`);

    this.addSql(`create table "offer_response" ("id" serial primary key, "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade, "central_id" int not null references "central" ("id"), "technician_id" int not null references "technician" ("id"), "distance_km" double precision not null, "time_min" double precision not null, "time_given" boolean not null, "rate" double precision not null, "tech_lat" double precision null, "tech_lng" double precision null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "offer_response" add constraint "offer_response_offer_uuid_central_id_unique" unique ("offer_uuid", "central_id");`);

    this.addSql(`create table "offer_transition" ("id" bigserial primary key, "offer_uuid" uuid not null references "offer" ("uuid") on delete cascade, "from_state" varchar(32) null, "to_state" varchar(32) not null, "actor" varchar(255) not null, "at" timestamptz not null, "tech_lat" double precision null, "tech_lng" double precision null, "detail" jsonb null);`);
    this.addSql(`create index "offer_transition_offer_uuid_index" on "offer_transition" ("offer_uuid", "id");`);

    this.addSql(`create table "webhook_delivery" ("id" uuid not null, "offer_uuid" uuid null references "offer" ("uuid") on delete set null, "kind" varchar(32) not null, "event_id" varchar(255) not null, "url" text not null, "method" varchar(16) not null default 'PUT', "request_headers" jsonb not null, "request_body" jsonb not null, "state" varchar(16) not null default 'pending', "attempts" int not null default 0, "status_code" int null, "latency_ms" int null, "reply_body" text null, "error" text null, "created_at" timestamptz not null, "sent_at" timestamptz null, "completed_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_delivery_offer_uuid_index" on "webhook_delivery" ("offer_uuid", "created_at");`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_unique" unique ("event_id");`);

    this.addSql(`create table "gazetteer" ("id" serial primary key, "address" text not null, "address_key" text not null, "lat" double precision not null, "lng" double precision not null, "ciudad" varchar(255) null, "departamento" varchar(255) null);`);
    this.addSql(`alter table "gazetteer" add constraint "gazetteer_address_key_unique" unique ("address_key");`);
  }
}
