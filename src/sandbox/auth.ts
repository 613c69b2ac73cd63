import { randomBytes } from 'node:crypto';
import { sameSecret as signaturesEqual } from './spec/sign.js';

export type TokenProblem = 'missing' | 'scheme' | 'unknown' | 'expired';

export const TOKEN_PROBLEM_MESSAGES: Record<TokenProblem, string> = {
  missing: 'missing Authorization header; expected "Token <token>"',
  scheme: 'malformed Authorization header; expected "Token <token>"',
  unknown: 'invalid token',
  expired: 'token expired',
};

/**
 * The token store. Lifetimes are in real seconds (not simulated time) so that a slow test is
 * never surprised by an expiry; `ttlSeconds()` is read at every check, so changing it (the
 * `tokenTtlSeconds` fault) affects tokens already issued.
 */
export class TokenStore {
  private readonly tokens = new Map<string, number>();

  constructor(private readonly ttlSeconds: () => number) {}

  get size(): number {
    return this.tokens.size;
  }

  issue(): string {
    if (this.tokens.size > 10_000) this.prune();
    const token = `sbx.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, Date.now());
    return token;
  }

  /** Checks an `Authorization` header value. */
  check(header: string | undefined): TokenProblem | undefined {
    if (!header) return 'missing';
    const m = /^Token\s+(\S+)\s*$/i.exec(header);
    if (!m) return 'scheme';
    const issued = this.tokens.get(m[1] as string);
    if (issued === undefined) return 'unknown';
    return this.expired(issued) ? 'expired' : undefined;
  }

  /** Expires every token issued so far (they answer "token expired" from now on). */
  expireAll(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, -Infinity);
  }

  private expired(issued: number): boolean {
    return Date.now() - issued >= this.ttlSeconds() * 1000;
  }

  private prune(): void {
    for (const [token, issued] of this.tokens)
      if (issued !== -Infinity && this.expired(issued)) this.tokens.delete(token);
  }
}

/** Constant-time check of the app credentials. */
export function credentialsMatch(
  given: { key: string; secret: string },
  expected: { key: string; secret: string },
): boolean {
  const keyOk = signaturesEqual(expected.key, given.key);
  const secretOk = signaturesEqual(expected.secret, given.secret);
  return keyOk && secretOk;
}
