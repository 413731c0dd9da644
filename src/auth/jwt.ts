import { SignJWT, jwtVerify } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OperatorUser } from '../db/entities/index.js';

export type OperatorClaims = Pick<OperatorUser, 'id' | 'username' | 'role'> & {
  /**
   * When the operator's session ends (epoch seconds): the token's own expiry, or, for the console's short-lived
   * socket token (D23), the expiry of the session it was issued under (its `ses` claim). An open operator socket
   * lives until then (D24), however short the token that opened it.
   */
  sessionEnds?: number;
};

export const JWT_ISSUER = 'service-offer-broker';
export const JWT_AUDIENCE = 'operators';

/** `session`: a token for opening a socket only, carrying the session's end (`op.sessionEnds`) as its `ses` claim. */
export async function signOperatorToken(op: OperatorClaims, secret: string, expiresIn: string, o: { session?: boolean } = {}): Promise<string> {
  const claims = { username: op.username, role: op.role, ...(o.session && op.sessionEnds !== undefined ? { ses: op.sessionEnds } : {}) };
  return new SignJWT(claims)
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
    const sessionEnds = typeof payload.ses === 'number' ? payload.ses : payload.exp;
    return { id: Number(payload.sub), username: payload.username, role, sessionEnds };
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
  return op ? { id: op.id, username: op.username, role: op.role, sessionEnds: claims.sessionEnds } : null;
}

/** Whether the operator still exists under that name (an open socket's re-check, D24). */
export async function operatorStillExists(em: EntityManager, op: Pick<OperatorClaims, 'id' | 'username'>): Promise<boolean> {
  return (await em.count(OperatorUser, { id: op.id, username: op.username })) > 0;
}
