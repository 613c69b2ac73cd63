import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Plan and task notification `Sign` (spec, Authentication 6): lowercase hex MD5 of the UTF-8 text
 * of the value joined with the KEY; the value is `Timestamp` for plans, `TaskID` for tasks.
 */
export function md5Sign(value: string | number, key: string): string {
  return createHash('md5')
    .update(String(value) + key, 'utf8')
    .digest('hex');
}

/**
 * `X-Service-Sign` of template sending and chatbot callbacks. The spec does not show its
 * computation (Authentication 4); the sandbox's reading, shared with callctl's default: HMAC-SHA256
 * of the exact body bytes keyed with the secret, lowercase hex.
 */
export function serviceSign(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time comparison; unequal lengths answer false first (timingSafeEqual throws on them). */
export function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
