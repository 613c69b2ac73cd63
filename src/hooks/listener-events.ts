import type { EventSummary } from '../schemas/detect.js';
import type { HookRecord } from '../store/events.js';

/** What the listener tells whoever renders it; it never prints. */
export type ListenerEvent =
  | { kind: 'event'; seq: number; record: HookRecord; summary: EventSummary; forwarding: boolean }
  | { kind: 'refused'; seq: number; record: HookRecord }
  /** `ms`: how long the attempt took; `waitMs` (not final): how long until the next one. */
  | {
      kind: 'forward';
      seq: number;
      attempt: number;
      final: boolean;
      status?: number;
      ms?: number;
      waitMs?: number;
      error?: string;
    }
  | { kind: 'error'; message: string }
  /** Refused requests not recorded since the last such notice (over --refused-log-rate). */
  | { kind: 'unlogged'; count: number; total: number }
  /** Requests whose sender went away before its body was all in, since the last such notice. */
  | { kind: 'cut'; count: number; total: number };
