import { randomBytes } from 'node:crypto';
import { sameSecret as signaturesEqual, serviceSign as defaultServiceSign } from '../spec/sign.js';
import { unitcastCustom as customSchema, unitcastRequest as unitcastSchema } from '../spec/requests.js';
import { describeIssue, objectBody, type Handler, type Reply } from '../http.js';
import type { ReceivedTemplate } from '../state.js';
import { reachSuccess } from '../variants.js';

/** The template answer; a refusal's HTTP status is its code (the router applies reach-refusal-200). */
function answer(code: number, message: string, data: Record<string, unknown> = {}): Reply {
  const body = { request_id: `req-${randomBytes(8).toString('hex')}`, code, message, data };
  return code === 200 ? { status: 200, body } : { status: code, body, refusal: 'reach' };
}

/**
 * Recipients whose simulated fate is fixed, as Twilio's magic test numbers are: a message whose
 * `channel_id` or `user_id` is one of these ends `failed` after `send`, or is `replied` to after
 * `read`. Every other message goes the ordinary way (the notifier's path).
 */
export const TEMPLATE_MAGIC_RECIPIENTS = { failed: '+15005550001', replied: '+15005550002' } as const;

/** The template-status callbacks a received message goes through, in order. */
export function templatePath(
  t: Pick<ReceivedTemplate, 'channel_id' | 'user_id'>,
  ordinary: readonly string[],
): readonly string[] {
  const is = (n: string) => t.channel_id === n || t.user_id === n;
  if (is(TEMPLATE_MAGIC_RECIPIENTS.failed)) return ['wait', 'send', 'failed'];
  if (is(TEMPLATE_MAGIC_RECIPIENTS.replied)) return [...ordinary, 'replied'];
  return ordinary;
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * POST /api/v1/template/unitcast. `X-Service-Sign-Key` must be the sign key and `X-Service-Sign`
 * the default signature of the raw body (HMAC-SHA256, hex): otherwise HTTP 401, code 401.
 * An invalid body: HTTP 400, code 400. Success: HTTP 200, code 200, `data.task_id`.
 */
export const unitcastHandler: Handler = (ctx) => {
  const { options, state, events } = ctx.engine;
  const key = header(ctx.req.headers['x-service-sign-key']);
  const sign = header(ctx.req.headers['x-service-sign']);
  if (!key) return answer(401, 'missing X-Service-Sign-Key header');
  if (!signaturesEqual(options.signKey, key)) return answer(401, 'unknown X-Service-Sign-Key');
  if (!sign) return answer(401, 'missing X-Service-Sign header');
  if (!signaturesEqual(defaultServiceSign(ctx.rawBody, options.signSecret), sign)) {
    return answer(401, 'X-Service-Sign does not match the body');
  }
  const parsed = unitcastSchema.safeParse(objectBody(ctx));
  if (!parsed.success) return answer(400, describeIssue(parsed.error.issues));
  const msg = parsed.data;
  let custom: unknown;
  try {
    custom = JSON.parse(msg.custom);
  } catch {
    return answer(400, 'custom must be a JSON text holding reply_url');
  }
  const c = customSchema.safeParse(custom);
  if (!c.success) return answer(400, `custom: ${describeIssue(c.error.issues)}`);
  const taskId = `tpl-task-${String(++state.ids.template).padStart(6, '0')}`;
  const reply = answer(200, 'success', { task_id: taskId });
  const received: ReceivedTemplate = {
    request_id: (reply.body as { request_id: string }).request_id,
    task_id: taskId,
    template_id: msg.template_id,
    timestamp: msg.timestamp,
    channel: msg.channel,
    channel_id: msg.channel_id,
    user_id: msg.user_id,
    variable: msg.variable,
    custom: msg.custom,
    reply_url: c.data.reply_url,
    receivedAt: Date.now(),
  };
  state.received.templates.push(received);
  events.emit('template.received', received);
  return { status: 200, ...reachSuccess(ctx.engine.variants, 'template', reply.body as Record<string, unknown>) };
};
