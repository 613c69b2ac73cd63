import { z } from 'zod';
import { HANGUP_TYPES, RING_TYPES, isoTime, known, stringMap } from './common.js';

export const TASK_STATUSES = ['created', 'pending', 'finished', 'calling', 'canceled', 'paused'] as const;
/** Read leniently: a status outside the spec's list is shown as it is. */
export const taskStatusSchema = known(TASK_STATUSES);
export type TaskStatus = z.infer<typeof taskStatusSchema>;

export const asrEntrySchema = z.looseObject({
  time: z.string(),
  robottext: z.string(),
  text: z.string(),
});
export type AsrEntry = z.infer<typeof asrEntrySchema>;

export const redialCallSchema = z.looseObject({
  CallID: z.string().nullish(),
  CallStartTime: z.string().nullish(),
  RingType: known(RING_TYPES).nullish(),
  RingTime: z.number().int().nullish(),
  HangupType: known(HANGUP_TYPES).nullish(),
  ResultLabel: z.string().nullish(),
  caller_number: z.string().nullish(),
  callee_number: z.string().nullish(),
});

/**
 * A call record of a calling task: the 32 fields the spec names. The spec declares 34; the two it
 * does not name pass through as unknown fields.
 */
export const callRecordSchema = z.looseObject({
  id: z.number().int(),
  RobotID: z.string().nullish(),
  CalleeName: z.string().nullish(),
  CalleeGender: z.string().nullish(),
  CalleeNumber: z.string(),
  CallStartTime: z.string().nullish(),
  CallEndTime: z.string().nullish(),
  Status: z.string().nullish(),
  Intention: z.string().nullish(),
  intention_description: z.string().nullish(),
  CallID: z.string().nullish(),
  CallTimes: z.number().int().nullish(),
  Comments: z.string().nullish(),
  BorrowedDate: z.string().nullish(),
  DueDate: z.string().nullish(),
  BorrowedAmount: z.string().nullish(),
  TotalOwingAmount: z.string().nullish(),
  CurrencyUnit: z.string().nullish(),
  PlatformName: z.string().nullish(),
  RingType: known(RING_TYPES).nullish(),
  HangupType: known(HANGUP_TYPES).nullish(),
  ExtraA: z.string().nullish(),
  ExtraB: z.string().nullish(),
  ExtraC: z.string().nullish(),
  AsrResult: z.array(asrEntrySchema).nullish(),
  EventLabel: stringMap.nullish(),
  RingTime: z.number().int().nullish(),
  TalkRound: z.number().int().nullish(),
  RedailCall: z.array(redialCallSchema).nullish(),
  NerSlots: stringMap.nullish(),
  call_notes: z.string().nullish(),
  caller_number: z.string().nullish(),
});
export type CallRecord = z.infer<typeof callRecordSchema>;

/** The calling task: `data` of GET /service/cloud/detail. */
export const callingTaskSchema = z.looseObject({
  TaskID: z.string(),
  TaskName: z.string(),
  RobotMethod: z.string(), // single or group; read as text
  RobotID: z.string(),
  SIPLine: z.string(),
  Status: taskStatusSchema,
  ScheduleStartTime: isoTime,
  ScheduleEndTime: isoTime,
  RepeatInterval: z.number().int(),
  RepeatNumber: z.number().int(),
  detail: z.array(callRecordSchema),
});
export type CallingTask = z.infer<typeof callingTaskSchema>;
