import type { EventType } from '../schemas/events.js';
import { runSignCommand } from '../signing/sign-command.js';
import { defaultServiceSign, matchMd5Sign, signaturesEqual } from '../signing/sign.js';
import type { VerdictState } from '../store/events.js';

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
  signCommandTimeoutMs: number;
  /**
   * Sign commands running at once at most: past it a chatbot event is
   * answered 503 at once (the service sends it again), so forged requests cannot start processes
   * without bound.
   */
  signConcurrency: number;
  /**
   * Plan end: how far `Timestamp` may be from now, either way (0 turns the freshness check off). The plan Sign covers only Timestamp + KEY, so a fresh Timestamp is the
   * only thing that limits how long a captured notification can be sent again.
   */
  maxAgeMs: number;
  now?: () => number;
}

/** Before 2001-09-09 (1e9 s) or after 2100: not the time of a request, whatever the unit. */
const EARLIEST_MS = 1e12;
const LATEST_MS = Date.UTC(2100, 0, 1);

/**
 * A plan-end `Timestamp` as ms since the epoch, or undefined when it is not a time. The spec
 * says "string of the request time (integer in one variant)" without a unit: digits (as text or
 * an integer) are Unix seconds, or milliseconds when 13 digits long; an ISO 8601 time with a
 * zone is read as such. Anything else (empty, `not-a-time`, 0, the year 3000) is not a time.
 */
export function timestampMs(value: unknown): number | undefined {
  let ms: number | undefined;
  const digits =
    typeof value === 'number'
      ? Number.isSafeInteger(value) && value >= 0
        ? String(value)
        : undefined
      : typeof value === 'string'
        ? value.trim()
        : undefined;
  if (digits === undefined) return undefined;
  if (/^\d{1,13}$/.test(digits)) {
    const n = Number(digits);
    ms = digits.length >= 13 ? n : n * 1000;
  } else if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(digits)) {
    ms = Date.parse(digits);
  }
  return ms !== undefined && Number.isFinite(ms) && ms >= EARLIEST_MS && ms < LATEST_MS ? ms : undefined;
}

type Obj = Record<string, unknown>;

/** Builds the check for one run. Sync for everything but the external sign command. */
export function createVerifier(options: VerifyOptions) {
  const { keys } = options;

  function md5(value: unknown, sign: unknown, field: string): Verdict {
    if (options.skipVerify) return { state: 'skipped', reason: '--skip-verify' };
    if (typeof value !== 'string' && typeof value !== 'number')
      return { state: 'rejected', reason: `no ${field} to check Sign against` };
    if (sign === undefined || sign === null || sign === '') return { state: 'rejected', reason: 'missing Sign' };
    if (typeof sign !== 'string' || !/^[0-9a-f]{32}$/.test(sign)) {
      return { state: 'rejected', reason: 'Sign is not 32 lowercase hex characters' };
    }
    const index = matchMd5Sign(String(value), sign, keys);
    return index >= 0
      ? { state: 'verified', by: `key ${index + 1}` }
      : { state: 'rejected', reason: 'Sign matches no key' };
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
      if (running >= concurrency) {
        return { state: 'unavailable', reason: `${running} sign commands already running` };
      }
      running += 1;
      return withDeadline(runSignCommand(options.signCommand, raw, timeoutMs), timeoutMs + 250)
        .then(
          (expected) => compare(expected, 'command'),
          // Callctl could not check it: not the sender's fault, so not rejected, but never let
          // through either (fail closed); the service will send it again.
          (error: Error): Verdict => ({ state: 'unavailable', reason: error.message }),
        )
        .finally(() => (running -= 1));
    }
    return compare(defaultServiceSign(raw, options.chatbotSecret!), 'secret');
  }

  const { signCommandTimeoutMs: timeoutMs, signConcurrency: concurrency, maxAgeMs: maxAge } = options;
  let running = 0;
  const now = options.now ?? Date.now;
  /** Undefined when a signed plan-end Timestamp is a time within the window; else why not. */
  function fresh(value: unknown): Verdict | undefined {
    const at = timestampMs(value);
    if (at === undefined) return { state: 'rejected', reason: 'Timestamp is not a time' };
    if (maxAge > 0 && Math.abs(now() - at) > maxAge) {
      const minutes = Math.round(Math.abs(now() - at) / 60_000);
      const when = at < now() ? `${minutes} min old` : `${minutes} min ahead`;
      return {
        state: 'rejected',
        reason: `Timestamp is ${when}, outside ±${Math.round(maxAge / 60_000)} min (stale or replayed)`,
      };
    }
    return undefined;
  }

  /** The verdict on one event, from its type, parsed body, `X-Service-Sign` header and raw bytes. */
  return function verify(
    type: EventType,
    body: unknown,
    serviceSign: string | undefined,
    raw: Buffer,
  ): Verdict | Promise<Verdict> {
    const o = (typeof body === 'object' && body !== null ? body : {}) as Obj;
    switch (type) {
      case 'plan.end': {
        const verdict = md5(o.Timestamp, o.Sign, 'Timestamp');
        return verdict.state === 'verified' ? (fresh(o.Timestamp) ?? verdict) : verdict;
      }
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

/**
 * The sign command's answer, or a failure once `ms` have passed: a command whose own children
 * keep its output open outlives its timeout, and the request must not wait for them.
 */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`sign command gave no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
