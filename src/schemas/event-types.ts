/*
 * Free of zod, so that a command's declaration can name the types (shell completion of `hooks
 * trigger <type>`) without loading the schemas.
 */

/**
 * The notification types callctl tells apart (README, "How callctl reads the spec's gaps"), in the order
 * they are listed there. `unknown` is anything else: still recorded, never dropped.
 */
export const EVENT_TYPES = [
  'plan.end',
  'task.end',
  'workflow.api_push',
  'template.status',
  'chatbot.session_closed',
  'chatbot.transfer',
  'unknown',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
