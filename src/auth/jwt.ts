import { SignJWT, jwtVerify } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OperatorUser } from '../db/entities/index.js';

export type OperatorClaims = Pick<OperatorUser, 'id' | 'username' | 'role'>;

export const JWT_ISSUER = 'service-offer-broker';
export const JWT_AUDIENCE = 'operators';

export async function signOperatorToken(op: OperatorClaims, secret: string, expiresIn: string): Promise<string> {
  return new SignJWT({ username: op.username, role: op.role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(op.id))
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

/** The operator a token speaks for, or null when it is invalid or expired. */
export async function verifyOperatorToken(token: string, secret: string): Promise<OperatorClaims | null> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      algorithms: ['HS256'],
    });
    const role = payload.role === 'admin' ? 'admin' : 'operator';
    if (typeof payload.username !== 'string' || !payload.sub) return null;
    return { id: Number(payload.sub), username: payload.username, role };
  } catch {
    return null;
  }
}

/**
 * The operator a token speaks for, provided that operator still exists under
 * that name (deleting or renaming an operator revokes its tokens); its role is
 * the stored one. Null otherwise.
 */
export async function operatorOfToken(em: EntityManager, token: string, secret: string): Promise<OperatorClaims | null> {
  const claims = await verifyOperatorToken(token, secret);
  if (!claims) return null;
  const op = await em.findOne(OperatorUser, { id: claims.id, username: claims.username }, { fields: ['id', 'username', 'role'] });
  return op ? { id: op.id, username: op.username, role: op.role } : null;
}
