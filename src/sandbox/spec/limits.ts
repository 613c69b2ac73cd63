/** The spec's limits (section Limits), as the sandbox enforces them. */

/** Numbers per list update request: at most 10,000. */
export const MAX_ENTRIES_PER_UPDATE = 10_000;
/** A list entry's `platform`: at most 40 characters. */
export const PLATFORM_MAX_LENGTH = 40;
/**
 * A list entry's `callee`: `+` then the international dialing code and number. The spec gives no
 * length; E.164 allows at most 15 digits, and 7 is the shortest the sandbox takes as a number.
 */
export const CALLEE_RE = /^\+\d{7,15}$/;
/** Verification history: the last three months. */
export const VERIFY_HISTORY_MONTHS = 3;
/** Task end notification retries: every minute, at most 5. */
export const NOTIFY_RETRY_INTERVAL_MS = 60_000;
export const NOTIFY_MAX_RETRIES = 5;
