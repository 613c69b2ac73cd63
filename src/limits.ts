/**
 * The spec's limits and callctl's reading of its gaps, each in one place so that it can change
 * when the service's owner tells more (README, "How callctl reads the spec's gaps").
 */

/** "At most 10,000 numbers" in list updates, read as per request. */
export const MAX_ENTRIES_PER_UPDATE = 10_000;

/** A list entry's `platform`: 1 to 40 characters. */
export const PLATFORM_MAX_LENGTH = 40;

/** A callee as sent: `+` then 7 to 15 digits, the first not 0 (E.164; src/person.ts reads other spellings into it). */
export const CALLEE_RE = /^\+[1-9]\d{6,14}$/;

/** Task-end notifications: retried (at 1-minute intervals) at most 5 times. */
export const NOTIFY_MAX_RETRIES = 5;

/** Push and template-send answers: HTTP 2xx with one of these codes is success. */
export const SEND_SUCCESS_CODES: readonly number[] = [0, 200];

/** Default request timeout, seconds (undici's own default is 300 s). */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** Retries of reads and list updates on network errors, 429 and 5xx. */
export const MAX_RETRIES = 3;
export const RETRY_BASE_MS = 500;
export const RETRY_MAX_MS = 8_000;
/** Retry-After values above this are not honoured (the retry gives up instead). */
export const RETRY_AFTER_MAX_MS = 60_000;
