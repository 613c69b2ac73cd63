import type { Delivery } from '../api/deliver.js';

/**
 * Where a credential came from, as messages name it: an environment variable, a profile's key, a
 * flag or stdin. A refusal names it and the fix that works for that source (an environment
 * variable wins over the profile: logging in again or `config set` would not help).
 */
export interface CredentialSource {
  /** What it is: "the push token", "X-Service-Sign-Key". */
  what: string;
  /** `CALLCTL_PUSH_TOKEN`, `profile default's push-token`, `--push-token-stdin`... */
  from: string;
  /** The profile key that holds it (`push-token`), for the fix of a profile's value. */
  key?: string;
  /** It is a segment of the request's path (the push token). */
  inPath?: boolean;
}

/** The fix for a refused credential, by where it came from. */
function fixFor(c: CredentialSource): string {
  if (/^CALLCTL_[A-Z_]+$/.test(c.from)) return `set the right one in ${c.from}, or unset it to use the profile's`;
  if (c.from.startsWith('profile') && c.key)
    return `set it again: printf %s "$VALUE" | callctl config set ${c.key} --stdin`;
  return `give the right one (${c.from})`;
}

/**
 * 401 or 403, as HTTP status or as the answer's code: the credentials were refused; for a token
 * carried in the path (a push token), 404 too: an unknown token is an unknown address.
 */
function refusesCredentials(d: Delivery, sources: readonly CredentialSource[]): boolean {
  const codes = sources.some((c) => c.inPath) ? [401, 403, 404] : [401, 403];
  return d.outcome === 'failed' && (codes.includes(d.httpStatus) || codes.includes(d.code ?? 0));
}

/**
 * A delivery whose credentials were refused, its message naming where each came from and what to
 * do; any other delivery as it is.
 */
export function withCredentialHint(d: Delivery, sources: readonly CredentialSource[]): Delivery {
  if (d.outcome !== 'failed' || !refusesCredentials(d, sources)) return d;
  const said = sources.map((c) => `${c.what} (from ${c.from}: ${fixFor(c)})`).join(', or ');
  return { ...d, message: `${d.message || `HTTP ${d.httpStatus}`}; refused: ${said}` };
}
