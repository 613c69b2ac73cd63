import { z } from 'zod';
import { known } from './common.js';

export const PLAN_STATUSES = ['planned', 'calling', 'finished', 'canceled'] as const;
/** Read leniently: a status outside the spec's list is shown as it is. */
export const planStatusSchema = known(PLAN_STATUSES);
export type PlanStatus = z.infer<typeof planStatusSchema>;

/** One round of a plan: a task named by the plan name plus a round suffix. */
export const planRoundSchema = z.looseObject({
  Rounds: z.string(),
  TaskName: z.string(),
  TaskID: z.string(),
  Status: z.string(),
});

/** `data` of GET /service/cloud/planstatus. */
export const planStatusDataSchema = z.looseObject({
  PlanName: z.string(),
  PlanStatus: planStatusSchema,
});

/** `data` of GET /service/cloud/plandetail. */
export const planDetailDataSchema = z.looseObject({
  PlanName: z.string(),
  PlanDetails: z.array(planRoundSchema),
});
