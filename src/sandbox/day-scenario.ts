/** A campaign day's scenario, as the sandbox reads it (day.ts runs it). */
import { z } from 'zod';

const share = z.number().min(0).max(1);

/** One workflow of the day: its contacts come by list updates and are called in tasks of `taskSize`. */
const dayWorkflow = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1).optional(),
  scenario: z.enum(['debt', 'telemarketing', 'info-check']).default('debt'),
  /** The custom API node that pushes each call's result. */
  nodeId: z.string().min(1).default('node-api-01'),
  /** Callees per calling task at most. */
  taskSize: z.number().int().min(1).default(500),
  /** Contacts waiting this long (simulated minutes) are called even when fewer than `taskSize`. */
  flushMinutes: z.number().positive().default(10),
  /** Simulated ms between two calls of a task (the task's lines work in parallel). */
  callSlotMs: z.number().int().min(1).default(1_000),
  /** Share of calls followed by a template message (its status callbacks: wait, send, delivery, read). */
  templateShare: share.default(0),
  /** Share of calls followed by a chatbot session closed; of transfers to an agent. */
  chatbotClosedShare: share.default(0),
  chatbotTransferShare: share.default(0),
});

/** The service's side of a day scenario (a runner may read other sections of the same file). */
export const dayScenario = z.object({
  name: z.string().min(1),
  workflows: z.array(dayWorkflow).default([]),
  plans: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        rounds: z.number().int().min(1).max(20).default(2),
        calleeCount: z.number().int().min(1).default(20),
        roundIntervalMinutes: z.number().min(0).default(30),
        startInMinutes: z.number().min(0).default(2),
        callSlotMs: z.number().int().min(1).default(1_000),
      }),
    )
    .default([]),
  /** Pushed callers: each is called, and the call's result is pushed by this workflow's node. */
  pushes: z.strictObject({ workflowId: z.string().min(1), nodeId: z.string().min(1) }).optional(),
  /** Notification attempts under way at once at most. */
  concurrency: z.number().int().min(1).default(64),
});

export type DayScenario = z.infer<typeof dayScenario>;
/** A scenario as written (defaults not yet filled in). */
export type DayScenarioInput = z.input<typeof dayScenario>;
