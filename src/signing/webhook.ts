import { createHmac } from 'node:crypto';
import { said, type Said } from '../said.js';

/** Standard Webhooks' secret: `whsec_` and the key in base64 (standard alphabet, padded). */
const SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;
/** The shortest key Standard Webhooks allows, in bytes. */
const WEBHOOK_KEY_MIN_BYTES = 24;

/** The key of a `whsec_` secret, or why it is not one. */
export function webhookKey(secret: string): Buffer | { problem: Said } {
  const m = SECRET.exec(secret);
  if (!m) return { problem: said`not a Standard Webhooks secret (whsec_ followed by base64)` };
  const key = Buffer.from(m[1]!, 'base64');
  if (key.length < WEBHOOK_KEY_MIN_BYTES)
    return {
      problem: said`its key is ${key.length} bytes; Standard Webhooks asks for ${WEBHOOK_KEY_MIN_BYTES} at least`,
    };
  return key;
}

/**
 * Standard Webhooks' headers for one delivery of `body`: `webhook-signature` is `v1,` and the
 * base64 HMAC-SHA256, keyed with `key`, of `id.timestamp.body` (timestamp in Unix seconds).
 */
export function webhookHeaders(key: Buffer, id: string, body: Buffer, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const hmac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${hmac}` };
}
