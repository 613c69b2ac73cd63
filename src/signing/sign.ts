import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Plan and task notification `Sign`: lowercase hex MD5 of the UTF-8 text `value + KEY`
 * (`Timestamp` for plans, `TaskID` for tasks). It does not cover the body.
 */
export function md5Sign(value: string, key: string): string {
  return createHash('md5')
    .update(value + key, 'utf8')
    .digest('hex');
}

export const planSign = (timestamp: string | number, key: string) => md5Sign(String(timestamp), key);
export const taskSign = (taskId: string, key: string) => md5Sign(taskId, key);

/**
 * callctl's built-in default for `X-Service-Sign` (an assumption: the spec does not give the
 * computation): HMAC-SHA256 of the raw body keyed with the secret, lowercase hex.
 */
export function defaultServiceSign(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time comparison of two signatures; unequal lengths are checked first (timingSafeEqual throws on them). */
export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** The index of the key whose MD5 Sign matches, or -1: several keys at once allow rotation. */
export function matchMd5Sign(value: string, sign: string, keys: readonly string[]): number {
  if (!/^[0-9a-f]{32}$/.test(sign)) return -1;
  let found = -1;
  // Every key is tried, so the time taken does not tell which one matched.
  keys.forEach((key, i) => {
    if (signaturesEqual(md5Sign(value, key), sign) && found === -1) found = i;
  });
  return found;
}
