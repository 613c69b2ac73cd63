/** Text formats and values of the spec, free of zod so that the command tree and the transport can use them at start-up. */

/** `YYYY-MM-DDTHH:MM:SSZ`, the spec's time format for most fields. */
export const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `YYYY-MM-DD HH:MM:SS`, used by the workflow call-task detail's call times. */
export const SPACE_TIME_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Success, as the spec defines it for cloud endpoints' envelope. */
export const ENVELOPE_OK = { status: 'OK', code: 200 } as const;
