import { randomBytes } from 'node:crypto';
import { sameSecret as signaturesEqual } from '../spec/sign.js';
import { objectBody, type Handler, type Reply } from '../http.js';
import type { ReceivedPush } from '../state.js';
import { reachSuccess } from '../variants.js';

/**
 * The direct call-push answer: `{code, message, show_err, timestamp, body, trace_id}`; a refusal's
 * HTTP status is its code (the router applies reach-refusal-200).
 */
function answer(code: number, message: string, traceId: string, body: Record<string, unknown> = {}): Reply {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    status: code,
    body: { code, message, show_err: code !== 200, timestamp, body, trace_id: traceId },
    ...(code === 200 ? {} : { refusal: 'reach' as const }),
  };
}

function problem(body: Record<string, unknown>): string | undefined {
  if (typeof body.caller_id !== 'string' || body.caller_id.trim() === '')
    return 'caller_id is required (a non-empty string)';
  if (body.client_name !== undefined && typeof body.client_name !== 'string') return 'client_name must be a string';
  const v = body.variables;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'variables is required (a JSON object)';
  const debt = (v as Record<string, unknown>).debt_amount;
  if (debt !== undefined && typeof debt !== 'string') return 'variables.debt_amount must be a string';
  return undefined;
}

/**
 * POST {flexUrl}/api/push/<token> (live) and {flexTestUrl}/api/push/<token> (test). Success:
 * HTTP 200, code 200. A token that is not the environment's: HTTP 404, code 404 (the token is
 * never echoed). An invalid body: HTTP 400, code 400. Each accepted push is recorded with its
 * environment.
 */
export function pushHandler(environment: 'live' | 'test'): Handler {
  return (ctx) => {
    const traceId = randomBytes(8).toString('hex');
    const { options, state, events } = ctx.engine;
    const expected = environment === 'live' ? options.pushToken : options.pushTestToken;
    if (!signaturesEqual(expected, ctx.params.token ?? '')) {
      return answer(404, `unknown push token for the ${environment} environment`, traceId);
    }
    const body = objectBody(ctx);
    const bad = problem(body);
    if (bad) return answer(400, bad, traceId);
    const push: ReceivedPush = {
      id: ++state.ids.push,
      environment,
      caller_id: body.caller_id as string,
      client_name: body.client_name as string | undefined,
      variables: body.variables as Record<string, unknown>,
      trace_id: traceId,
      call_id: `push-call-${String(state.ids.push).padStart(6, '0')}`,
      receivedAt: Date.now(),
    };
    state.received.pushes.push(push);
    events.emit('push.received', push);
    const ok = answer(200, 'success', traceId, {
      call_id: push.call_id,
      caller_id: push.caller_id,
      environment,
      status: 'queued',
    });
    return { status: 200, ...reachSuccess(ctx.engine.variants, 'push', ok.body as Record<string, unknown>) };
  };
}
