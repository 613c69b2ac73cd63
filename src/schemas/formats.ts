/** Text formats of the spec, free of zod so that the command tree can use them at start-up. */

/** `YYYY-MM-DDTHH:MM:SSZ`, the spec's time format for most fields. */
export const ISO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `YYYY-MM-DD HH:MM:SS`, used by the workflow call-task detail's call times. */
export const SPACE_TIME_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
