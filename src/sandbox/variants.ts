/**
 * Variants: the sandbox answering each point the spec leaves open in another way the spec allows.
 * With none, the sandbox follows the spec literally (outcomes in the envelope's `status` and
 * `code` on HTTP 200). Switched on at start (`SandboxOptions.variants`), in-process
 * (`sandbox.setVariants`), over HTTP (`POST /__sandbox/variants`) and by `callctl sandbox --variant`.
 *
 * Each variant's decision lives in one function of this file (or of notifier.ts for the
 * notification variants); the routes ask, they do not test names themselves.
 */

/** Every variant, name -> what it changes (one line). */
export const SANDBOX_VARIANTS = {
  'errors-http': 'refusals come with an HTTP 4xx/5xx status equal to the envelope code (and still the envelope)',
  'error-message': 'refusals say status "ERROR" and give the reason in an extra message field',
  'auth-401-http': 'a rejected token or wrong app credentials: HTTP 401 with envelope code 401',
  'auth-401-code': 'a rejected token or wrong app credentials: HTTP 200 with envelope code 401',
  'auth-403-http': 'a rejected token or wrong app credentials: HTTP 403 with envelope code 403',
  'auth-403-code': 'a rejected token or wrong app credentials: HTTP 200 with envelope code 403',
  'auth-500': 'the token endpoint answers code 500 (service trouble) to every request',
  'page-cap': 'the workflow instance list serves at most 5 items per page whatever size asks',
  'page-ignored': 'the workflow instance list ignores page and always serves the first page',
  'count-sent': "list update's data.count counts the entries sent (the default)",
  'count-matched': "list update's data.count counts the entries that matched a contact the workflow already had",
  'count-new': "list update's data.count counts the entries that were new to the workflow",
  'update-error-200': 'list update refusals: HTTP 200, code 200, the reason in status (not OK), no data',
  'verify-exception-200':
    'verify-push refusals (none found, bad request): HTTP 200, code 200, the reason in status, data null',
  'odd-values':
    'BEYOND THE SPEC: enumerated values outside its closed lists, and empty strings (Tone, Voice, statuses, ring/hangup types, question answers)',
  'optional-missing':
    'optional fields absent, and BEYOND THE SPEC null for plain strings (robot name/link/tone, call record fields, api push call.task_id/call_id...)',
  'reach-code-0': 'push and template success answered with code 0',
  'reach-odd-shape':
    'push/template success with fields missing or null (body null, no show_err or trace_id; template without request_id and data)',
  'reach-non-json': 'push/template success as HTTP 200 with a body that is not JSON',
  'reach-refusal-200':
    'push/template refusals (unknown token, bad body, bad signature) on HTTP 200 with their non-success code',
  'plan-end-int-timestamp': 'plan-end notifications carry Timestamp as an integer',
  'plan-end-task-fields': 'plan-end notifications also carry the task-level fields and details',
  'retry-new-sign': 'notification retries carry a new Timestamp (plan end, template status) and Sign',
  'no-user-agent': 'notifications are sent without a User-Agent header',
} as const satisfies Record<string, string>;

export type VariantName = keyof typeof SANDBOX_VARIANTS;

/**
 * Variants that answer beyond what the spec allows (values outside its closed lists, null for a
 * plain string), to show what a client does with a service that strays; every other variant
 * answers a point the spec leaves open in a way it allows.
 */
export const BEYOND_SPEC: readonly VariantName[] = ['odd-values', 'optional-missing'];

/** The names, in the order of SANDBOX_VARIANTS. */
export const VARIANT_NAMES = Object.keys(SANDBOX_VARIANTS) as VariantName[];

/** Variants that answer the same point in different ways: at most one of each group at a time. */
const EXCLUSIVE: ReadonlyArray<readonly VariantName[]> = [
  ['auth-401-http', 'auth-401-code', 'auth-403-http', 'auth-403-code'],
  ['count-sent', 'count-matched', 'count-new'],
  ['reach-code-0', 'reach-odd-shape', 'reach-non-json'],
];

export function isVariantName(name: string): name is VariantName {
  return Object.hasOwn(SANDBOX_VARIANTS, name);
}

/**
 * Checks a list of names: each must be a variant, and two of one exclusive group cannot be on
 * together. Throws a RangeError with a one-line reason (listing the valid names for an unknown one).
 */
export function checkVariants(names: readonly string[]): VariantName[] {
  const unknown = names.filter((n) => !isVariantName(n));
  if (unknown.length > 0) {
    throw new RangeError(
      `unknown sandbox variant${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; valid: ${VARIANT_NAMES.join(', ')}`,
    );
  }
  const list = [...new Set(names as VariantName[])];
  for (const group of EXCLUSIVE) {
    const on = group.filter((n) => list.includes(n));
    if (on.length > 1) throw new RangeError(`sandbox variants ${on.join(' and ')} answer the same point; choose one`);
  }
  return list;
}

/** The live set of a running sandbox. */
export class Variants {
  private on = new Set<VariantName>();

  constructor(names: readonly string[] = []) {
    this.set(names);
  }

  has(name: VariantName): boolean {
    return this.on.has(name);
  }

  /** Replaces the set (checked first: a bad list changes nothing). */
  set(names: readonly string[]): VariantName[] {
    this.on = new Set(checkVariants(names));
    return this.list();
  }

  list(): VariantName[] {
    return VARIANT_NAMES.filter((n) => this.on.has(n));
  }
}

// ---- Envelope refusals --------------------------------------------------------------------

export type RefusalKind = 'refusal' | 'token' | 'credentials' | 'missing-credentials' | 'transport' | 'reach';

/**
 * HTTP status and envelope code of a refusal. `code` is the spec-literal code the route chose;
 * `httpStatus` the HTTP status it chose (200 for envelope outcomes, 4xx/5xx for transport trouble).
 */
export function refusalStatus(
  v: Variants,
  kind: RefusalKind,
  code: number,
  httpStatus: number,
): { httpStatus: number; code: number } {
  if (kind === 'token' || kind === 'credentials') {
    const auth = authRejection(v);
    if (auth) return auth;
  }
  if (kind === 'transport') return { httpStatus, code };
  if (v.has('errors-http') && code >= 400 && code <= 599) return { httpStatus: code, code };
  return { httpStatus, code };
}

/** The auth-* variant in force: how a rejected token or wrong app credentials are answered. */
function authRejection(v: Variants): { httpStatus: number; code: number } | undefined {
  if (v.has('auth-401-http')) return { httpStatus: 401, code: 401 };
  if (v.has('auth-401-code')) return { httpStatus: 200, code: 401 };
  if (v.has('auth-403-http')) return { httpStatus: 403, code: 403 };
  if (v.has('auth-403-code')) return { httpStatus: 200, code: 403 };
  return undefined;
}

/**
 * error-message: the envelope's `status` is a generic `ERROR` and the reason moves to a `message`
 * field the spec does not name (an extra field is allowed; the reason must still reach the user).
 */
export function reasonInMessage(v: Variants): boolean {
  return v.has('error-message');
}

/** auth-500: the token endpoint is in trouble, whatever it is sent. */
export function tokenEndpointTrouble(v: Variants): boolean {
  return v.has('auth-500');
}

/**
 * update-error-200 and verify-exception-200: the spec's second "200" answers of the list update
 * (labelled error) and of verification (labelled exception), shape not shown. The sandbox's
 * reading: HTTP 200, code 200, the reason in `status`; no `data` (update) or `data: null` (verify).
 */
export function twoHundredRefusal(v: Variants, route: 'update' | 'verify'): { data: 'absent' | 'null' } | undefined {
  if (route === 'update' && v.has('update-error-200')) return { data: 'absent' };
  if (route === 'verify' && v.has('verify-exception-200')) return { data: 'null' };
  return undefined;
}

// ---- Paging and counting -------------------------------------------------------------------

export const PAGE_CAP = 5;

/** The page and size the instance list really serves for what was asked. */
export function servedPage(v: Variants, asked: { page: number; size: number }): { page: number; size: number } {
  return {
    page: v.has('page-ignored') ? 1 : asked.page,
    size: v.has('page-cap') ? Math.min(asked.size, PAGE_CAP) : asked.size,
  };
}

/** What list update's `data.count` counts. */
export function updateCount(v: Variants, n: { sent: number; matched: number; fresh: number }): number {
  if (v.has('count-matched')) return n.matched;
  if (v.has('count-new')) return n.fresh;
  return n.sent;
}

/** Whether the list update needs to tell matched from new entries at all. */
export function countsMatches(v: Variants): boolean {
  return v.has('count-matched') || v.has('count-new');
}

// ---- Push and template success -------------------------------------------------------------

/** How a push or template success is answered: as built, or bent by a reach-* variant. */
export function reachSuccess(
  v: Variants,
  what: 'push' | 'template',
  body: Record<string, unknown>,
): { body?: Record<string, unknown>; raw?: string } {
  if (v.has('reach-non-json')) return { raw: what === 'push' ? 'success' : '<html><body>OK</body></html>' };
  if (v.has('reach-code-0')) return { body: { ...body, code: 0 } };
  if (v.has('reach-odd-shape')) {
    if (what === 'push') {
      const { show_err: _s, trace_id: _t, ...rest } = body;
      return { body: { ...rest, body: null } };
    }
    const { request_id: _r, data: _d, ...rest } = body;
    return { body: rest };
  }
  return { body };
}
