/**
 * Operators' credentials (D15): argon2 hashes, never SHA-256. An unknown
 * username is checked against a dummy hash so both failures take as long.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import argon2 from 'argon2';
import { OperatorUser } from '../../db/entities/index.js';

let dummyHash: Promise<string> | undefined;

/** The operator these credentials belong to, or null. */
export async function checkOperatorPassword(em: EntityManager, username: string, password: string): Promise<OperatorUser | null> {
  dummyHash ??= argon2.hash('not-a-real-password-0000');
  const op = await em.findOne(OperatorUser, { username });
  const ok = await argon2.verify(op?.passwordHash ?? (await dummyHash), password);
  return op && ok ? op : null;
}
