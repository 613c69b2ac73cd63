import type { Sandbox } from '../../src/sandbox/server.js';
import { serviceSign } from '../../src/sandbox/spec/sign.js';
import { sampleBody, type SampleType } from '../../src/hooks/samples.js';

/** The types a test sends through the sandbox's notifier: those the spec ties to no operation it simulates. */
type OnDemandType = Extract<
  SampleType,
  'workflow.api_push' | 'chatbot.session_closed' | 'chatbot.transfer' | 'template.status'
>;

type Json = Record<string, unknown>;

/**
 * Sends a sample of `type` (with `patch`'s fields over it) through a sandbox's notifier, which
 * retries it as the spec says; a chatbot one with the `X-Service-Sign` of its exact bytes (callctl's
 * assumed default, HMAC-SHA256 with `secret`, by default the sandbox's notify KEY). Returns the body.
 */
export function sendSample(sb: Sandbox, type: OnDemandType, patch: Json = {}, secret = sb.notifyKey): Json {
  const body = { ...sampleBody(type), ...patch };
  const raw = JSON.stringify(body);
  const sign = type.startsWith('chatbot.') ? { raw, headers: { 'x-service-sign': serviceSign(raw, secret) } } : {};
  sb.notifier!.send({ kind: type, body, ...sign });
  return body;
}
