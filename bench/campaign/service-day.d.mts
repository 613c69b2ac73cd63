/** Types of bench/campaign/service-day.mjs for the tests (test/campaign/). */
import type { Sandbox } from '../../src/sandbox/server.js';

/** One call the service made: a contact of a workflow, a pushed caller, or a plan's or task's callee. */
export interface TruthCall {
  kind: 'workflow' | 'push' | 'task';
  callId: string;
  callee: string;
  taskId?: string;
  workflowId?: string;
  caseId?: string;
  planName?: string;
  facts?: Record<string, string | number>;
}

/** One notification and its attempts: answer statuses (a number) or failures (`error`). */
export interface TruthNotification {
  seq: number;
  kind: string;
  id: string;
  attempts: Array<number | 'error'>;
  delivered: boolean;
  gaveUp: boolean;
}

export interface Truth {
  calls: TruthCall[];
  notifications: TruthNotification[];
  summary(): {
    calls: number;
    callsByKind: Record<string, number>;
    notifications: number;
    byKind: Record<string, number>;
    attempts: number;
    delivered: number;
    gaveUp: number;
    pending: number;
    answers: Record<string, number>;
  };
}

export interface Day {
  truth: Truth;
  flush(): void;
  progress(): { waiting: number; calling: number; notifying: number };
  close(): void;
}

export const dayScenario: { parse(input: unknown): Record<string, unknown> & { concurrency: number } };
export function startDay(
  sandbox: Sandbox,
  scenario: Record<string, unknown>,
  options?: { seed?: number; chatbotSecret?: string },
): Day;
