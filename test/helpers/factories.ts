/**
 * Factories with overrides: each builds one row with sensible defaults and
 * returns it (STYLE 13). Passwords are returned in clear for the tests.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { ApiUser, BusinessLine, OperatorUser, ServiceType } from '../../src/db/entities/index.js';
import { sha256Hex } from '../../src/http/auth/passwords.js';

let seq = 0;
const next = () => `${Date.now().toString(36)}${(++seq).toString(36)}`;

export interface ApiUserOverrides extends Partial<Omit<ApiUser, 'id'>> {
  password?: string;
}

export async function makeApiUser(em: EntityManager, o: ApiUserOverrides = {}): Promise<{ user: ApiUser; password: string }> {
  const password = o.password ?? `pw-${randomBytes(6).toString('hex')}`;
  const { password: _pw, ...rest } = o;
  const user = em.create(ApiUser, {
    username: `user-${next()}`,
    passwordSha256: sha256Hex(password),
    status: 'ACTIVO',
    endpoints: ['*'],
    businessName: 'Empresa de Prueba S.A.S.',
    nit: null,
    apiKey: null,
    urlApi: null,
    apiEndpoint: {},
    webhookSecret: null,
    requiresPaymentConfirmation: false,
    ...rest,
  });
  await em.flush();
  return { user, password };
}

export async function makeServiceType(em: EntityManager, o: Partial<ServiceType> = {}): Promise<ServiceType> {
  const t = em.create(ServiceType, {
    id: o.id ?? 1,
    type: 'GRUA',
    requiredOrigin: true,
    requiredDestination: true,
    line: null,
    ...o,
  });
  await em.flush();
  return t;
}

export async function makeBusinessLine(em: EntityManager, o: Partial<BusinessLine> = {}): Promise<BusinessLine> {
  const l = em.create(BusinessLine, { code: 'VEH', name: 'ASISTENCIA VEHICULAR', ...o });
  await em.flush();
  return l;
}

export async function makeOperator(
  em: EntityManager,
  o: { username?: string; password?: string; role?: 'admin' | 'operator' } = {},
): Promise<{ operator: OperatorUser; password: string }> {
  const password = o.password ?? `op-${randomBytes(6).toString('hex')}`;
  const operator = em.create(OperatorUser, {
    username: o.username ?? `op-${next()}`,
    passwordHash: await argon2.hash(password),
    role: o.role ?? 'operator',
  });
  await em.flush();
  return { operator, password };
}
