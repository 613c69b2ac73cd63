/**
 * The listener's own choices (not the spec's, which live in src/limits.ts), one place each.
 */

export const DEFAULT_HOOK_HOST = '127.0.0.1';
export const DEFAULT_HOOK_PORT = 8787;

/** Bodies above this are answered 413. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Bodies nesting deeper than this are answered 400 (the service's notifications nest a few levels). */
export const MAX_JSON_DEPTH = 64;
/** Request headers above this are answered 431 (Node's own default). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** A client must send its headers within this time, and the whole request within the next. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** `--forward-to`: retries after a failed attempt (the transport's back-off) and the timeout of each. */
export const FORWARD_RETRIES = 3;
export const FORWARD_TIMEOUT_MS = 10_000;

/**
 * With a shared store, a forward claimed by a receiver that stops before finishing it is taken
 * over by another once this has passed: longer than a forward's attempts and their back-off.
 */
export const FORWARD_LEASE_MS = 120_000;

/** On SIGINT/SIGTERM, in-flight requests and forwards get this long to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** `--forward-queue`: forwards waiting or under way at most, by count and by bytes of body. */
export const FORWARD_QUEUE = 1_000;
export const FORWARD_QUEUE_BYTES = 64 * 1024 * 1024;
/** Forwards under way at once (the rest wait in the queue). */
export const FORWARD_CONCURRENCY = 16;
/** Abandoned forwards (and failed ones due again) taken over per query of the store. */
export const TAKE_OVER_BATCH = 100;
/** A shared store's forwards waiting for a receiver are counted this often at most (a count of a long backlog costs). */
export const COUNT_WAITING_EVERY_MS = 30_000;
/** Events past the queue kept by their place in the log; past this many, 503 (the service retries). */
export const MAX_DEFERRED = 1_000_000;

/** `--max-connections` and `--max-connections-per-peer`. */
export const MAX_CONNECTIONS = 512;
export const MAX_CONNECTIONS_PER_PEER = 64;

/** Sign commands (serve-hooks --sign-command) running at once at most; past it, 503. */
export const SIGN_CONCURRENCY = 8;
