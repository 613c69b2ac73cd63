import type { EventType } from '../schemas/events.js';
import { runSignCommand } from '../signing/sign-command.js';
import { defaultServiceSign, matchMd5Sign, signaturesEqual } from '../signing/sign.js';

/**
 * What callctl can say about an event's authenticity:
 * - `verified`: a signature matched (`by` says which key, or `secret` / `command`);
 * - `rejected`: a signature was required and is missing or wrong;
 * - `unverified`: signed by the sender, but callctl has nothing to check it with;
 * - `unsigned`: the spec does not sign this type;
 * - `skipped`: `--skip-verify` was given.
 */
export type VerdictState = 'verified' | 'rejected' | 'unverified' | 'unsigned' | 'skipped';

export interface Verdict {
  state: VerdictState;
  /** For `verified`: `key 1`, `key 2`, ... (the order keys were given in), `secret` or `command`. */
  by?: string;
  /** Why it is not verified; never holds a secret. */
  reason?: string;
}

export interface VerifyOptions {
  /** KEYs for plan and task `Sign`, in the order given; several allow rotation. */
  keys: readonly string[];
  /** Plan and task `Sign` are not checked (only allowed to start without keys on purpose). */
  skipVerify?: boolean;
  /** Secret for the chatbot `X-Service-Sign` (callctl's assumed default: HMAC-SHA256 hex). */
  chatbotSecret?: string;
  /** External command printing the chatbot `X-Service-Sign` of the body on its stdin. */
  signCommand?: string;
}

type Obj = Record<string, unknown>;

/** Builds the check for one run. Sync for everything but the external sign command. */
export function createVerifier(options: VerifyOptions) {
  const { keys } = options;

  function md5(value: unknown, sign: unknown, field: string): Verdict {
    if (options.skipVerify) return { state: 'skipped', reason: '--skip-verify' };
    if (typeof value !== 'string' && typeof value !== 'number') return { state: 'rejected', reason: `no ${field} to check Sign against` };
    if (sign === undefined || sign === null || sign === '') return { state: 'rejected', reason: 'missing Sign' };
    if (typeof sign !== 'string' || !/^[0-9a-f]{32}$/.test(sign)) {
      return { state: 'rejected', reason: 'Sign is not 32 lowercase hex characters' };
    }
    const index = matchMd5Sign(String(value), sign, keys);
    return index >= 0 ? { state: 'verified', by: `key ${index + 1}` } : { state: 'rejected', reason: 'Sign matches no key' };
  }

  function chatbot(given: string | undefined, raw: Buffer): Verdict | Promise<Verdict> {
    if (!options.signCommand && !options.chatbotSecret) {
      return { state: 'unverified', reason: given ? 'no chatbot secret or sign command' : 'no X-Service-Sign header' };
    }
    if (!given) return { state: 'rejected', reason: 'missing X-Service-Sign header' };
    const compare = (expected: string, by: string): Verdict =>
      signaturesEqual(expected, given.trim())
        ? { state: 'verified', by }
        : { state: 'rejected', reason: 'X-Service-Sign does not match' };
    if (options.signCommand) {
      return runSignCommand(options.signCommand, raw).then(
        (expected) => compare(expected, 'command'),
        // Callctl could not check it; that is not the sender's fault, so it is not rejected.
        (error: Error) => ({ state: 'unverified', reason: error.message }),
      );
    }
    return compare(defaultServiceSign(raw, options.chatbotSecret!), 'secret');
  }

  /** The verdict on one event, from its type, parsed body, `X-Service-Sign` header and raw bytes. */
  return function verify(type: EventType, body: unknown, serviceSign: string | undefined, raw: Buffer): Verdict | Promise<Verdict> {
    const o = (typeof body === 'object' && body !== null ? body : {}) as Obj;
    switch (type) {
      case 'plan.end':
        return md5(o.Timestamp, o.Sign, 'Timestamp');
      case 'task.end':
        return md5(o.TaskID, o.Sign, 'TaskID');
      case 'chatbot.session_closed':
      case 'chatbot.transfer':
        return chatbot(serviceSign, raw);
      default:
        return { state: 'unsigned' };
    }
  };
}

export type Verify = ReturnType<typeof createVerifier>;
