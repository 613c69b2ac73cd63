// Generated from the zod schemas by test/schemas/answer-plans.test.ts; do not edit (UPDATE_ANSWER_PLANS=1 rewrites it).
import type { Plan } from './quick-plan.js';

/** The plan of each answer's quick check (src/schemas/answers.ts), read from its schema. */
export const ANSWER_PLANS: Record<string, Plan> = {
  token: { object: [['token', { minLength: 1 }, false]], loose: true },
  robotList: {
    array: {
      object: [
        ['RobotMethod', 'string', false],
        ['RobotID', 'string', false],
        ['RobotName', { optional: { nullable: 'string' } }, true],
        ['RobotDescription', { optional: { nullable: 'string' } }, true],
        ['Link', { optional: { nullable: 'string' } }, true],
        ['Tone', { optional: { nullable: 'string' } }, true],
        ['Voice', { optional: { nullable: 'string' } }, true],
      ],
      loose: true,
    },
  },
  callingTask: {
    object: [
      ['TaskID', 'string', false],
      ['TaskName', 'string', false],
      ['RobotMethod', 'string', false],
      ['RobotID', 'string', false],
      ['SIPLine', 'string', false],
      ['Status', 'string', false],
      ['ScheduleStartTime', { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$', flags: '' }, false],
      ['ScheduleEndTime', { pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$', flags: '' }, false],
      ['RepeatInterval', 'safeint', false],
      ['RepeatNumber', 'safeint', false],
      [
        'detail',
        {
          array: {
            object: [
              ['id', 'safeint', false],
              ['RobotID', { optional: { nullable: 'string' } }, true],
              ['CalleeName', { optional: { nullable: 'string' } }, true],
              ['CalleeGender', { optional: { nullable: 'string' } }, true],
              ['CalleeNumber', 'string', false],
              ['CallStartTime', { optional: { nullable: 'string' } }, true],
              ['CallEndTime', { optional: { nullable: 'string' } }, true],
              ['Status', { optional: { nullable: 'string' } }, true],
              ['Intention', { optional: { nullable: 'string' } }, true],
              ['intention_description', { optional: { nullable: 'string' } }, true],
              ['CallID', { optional: { nullable: 'string' } }, true],
              ['CallTimes', { optional: { nullable: 'safeint' } }, true],
              ['Comments', { optional: { nullable: 'string' } }, true],
              ['BorrowedDate', { optional: { nullable: 'string' } }, true],
              ['DueDate', { optional: { nullable: 'string' } }, true],
              ['BorrowedAmount', { optional: { nullable: 'string' } }, true],
              ['TotalOwingAmount', { optional: { nullable: 'string' } }, true],
              ['CurrencyUnit', { optional: { nullable: 'string' } }, true],
              ['PlatformName', { optional: { nullable: 'string' } }, true],
              ['RingType', { optional: { nullable: 'string' } }, true],
              ['HangupType', { optional: { nullable: 'string' } }, true],
              ['ExtraA', { optional: { nullable: 'string' } }, true],
              ['ExtraB', { optional: { nullable: 'string' } }, true],
              ['ExtraC', { optional: { nullable: 'string' } }, true],
              [
                'AsrResult',
                {
                  optional: {
                    nullable: {
                      array: {
                        object: [
                          ['time', 'string', false],
                          ['robottext', 'string', false],
                          ['text', 'string', false],
                        ],
                        loose: true,
                      },
                    },
                  },
                },
                true,
              ],
              ['EventLabel', { optional: { nullable: { record: 'string' } } }, true],
              ['RingTime', { optional: { nullable: 'safeint' } }, true],
              ['TalkRound', { optional: { nullable: 'safeint' } }, true],
              [
                'RedailCall',
                {
                  optional: {
                    nullable: {
                      array: {
                        object: [
                          ['CallID', { optional: { nullable: 'string' } }, true],
                          ['CallStartTime', { optional: { nullable: 'string' } }, true],
                          ['RingType', { optional: { nullable: 'string' } }, true],
                          ['RingTime', { optional: { nullable: 'safeint' } }, true],
                          ['HangupType', { optional: { nullable: 'string' } }, true],
                          ['ResultLabel', { optional: { nullable: 'string' } }, true],
                          ['caller_number', { optional: { nullable: 'string' } }, true],
                          ['callee_number', { optional: { nullable: 'string' } }, true],
                        ],
                        loose: true,
                      },
                    },
                  },
                },
                true,
              ],
              ['NerSlots', { optional: { nullable: { record: 'string' } } }, true],
              ['call_notes', { optional: { nullable: 'string' } }, true],
              ['caller_number', { optional: { nullable: 'string' } }, true],
            ],
            loose: true,
          },
        },
        false,
      ],
    ],
    loose: true,
  },
  planStatus: {
    object: [
      ['PlanName', 'string', false],
      ['PlanStatus', 'string', false],
    ],
    loose: true,
  },
  planDetail: {
    object: [
      ['PlanName', 'string', false],
      [
        'PlanDetails',
        {
          array: {
            object: [
              ['Rounds', 'string', false],
              ['TaskName', 'string', false],
              ['TaskID', 'string', false],
              ['Status', 'string', false],
            ],
            loose: true,
          },
        },
        false,
      ],
    ],
    loose: true,
  },
  workflowList: {
    object: [
      [
        'lists',
        {
          array: {
            object: [
              ['workflow_id', 'string', false],
              ['name', 'string', false],
              ['template_name', 'string', false],
              ['start_time', { nullable: 'string' }, false],
              ['end_time', { optional: { nullable: 'string' } }, true],
              ['total', 'safeint', false],
              ['status', 'string', false],
              ['create_time', 'string', false],
            ],
            loose: true,
          },
        },
        false,
      ],
      ['count', 'safeint', false],
    ],
    loose: true,
  },
  updateDetails: {
    object: [
      ['workflow_id', 'string', false],
      ['count', 'safeint', false],
    ],
    loose: true,
  },
  verifyPush: {
    object: [
      ['workflow_id', 'string', false],
      ['workflow_name', 'string', false],
      ['node_id', 'string', false],
      ['node_name', 'string', false],
      [
        'callee',
        {
          object: [
            ['case_id', { optional: { nullable: 'string' } }, true],
            ['callee_name', { optional: { nullable: 'string' } }, true],
            ['callee_gender', { optional: { nullable: 'string' } }, true],
            ['callee_number', { optional: { nullable: 'string' } }, true],
            ['platform_name', { optional: { nullable: 'string' } }, true],
            ['extra_a', { optional: { nullable: 'string' } }, true],
            ['extra_b', { optional: { nullable: 'string' } }, true],
            ['extra_c', { optional: { nullable: 'string' } }, true],
            ['comments', { optional: { nullable: 'string' } }, true],
            ['borrowed_date', { optional: { nullable: 'string' } }, true],
            ['due_date', { optional: { nullable: 'string' } }, true],
            ['borrowed_amount', { optional: { nullable: 'string' } }, true],
            ['total_owing_amount', { optional: { nullable: 'string' } }, true],
            ['currency_unit', { optional: { nullable: 'string' } }, true],
            [
              'extra',
              {
                optional: {
                  nullable: {
                    array: {
                      object: [
                        ['Content', 'string', false],
                        ['Question', 'string', false],
                      ],
                      loose: true,
                    },
                  },
                },
              },
              true,
            ],
            [
              'extend',
              {
                optional: {
                  nullable: {
                    object: [['variables', { optional: { nullable: { record: 'string' } } }, true]],
                    loose: true,
                  },
                },
              },
              true,
            ],
            ['location', { optional: { nullable: 'string' } }, true],
          ],
          loose: true,
        },
        false,
      ],
      ['custom_attribute', { record: 'string' }, false],
      [
        'call',
        {
          object: [
            ['task_id', { optional: { nullable: 'string' } }, true],
            ['call_id', { optional: { nullable: 'string' } }, true],
            ['call_start_time', { optional: { nullable: 'string' } }, true],
            ['call_end_time', { optional: { nullable: 'string' } }, true],
            ['call_times', { optional: { nullable: 'safeint' } }, true],
            ['ring_type', { optional: { nullable: 'string' } }, true],
            ['hangup_type', { optional: { nullable: 'string' } }, true],
            ['intention', 'string', false],
            ['slots', { optional: { nullable: 'string' } }, true],
            ['multi_label', { optional: { nullable: { record: 'any' } } }, true],
            ['asr_ptp', { optional: { nullable: 'string' } }, true],
            [
              'asr_result',
              {
                optional: {
                  nullable: {
                    array: {
                      object: [
                        ['time', 'string', false],
                        ['robottext', 'string', false],
                        ['text', 'string', false],
                      ],
                      loose: true,
                    },
                  },
                },
              },
              true,
            ],
            ['robot_id', { optional: { nullable: 'string' } }, true],
          ],
          loose: true,
        },
        false,
      ],
    ],
    loose: true,
  },
  workflowTaskDetail: {
    object: [
      ['task_id', 'string', false],
      ['task_name', 'string', false],
      ['status', 'string', false],
      ['created_at', { optional: { nullable: 'string' } }, true],
      ['repeat_interval', { optional: { nullable: 'safeint' } }, true],
      ['repeat_number', { optional: { nullable: 'safeint' } }, true],
      ['robot_hash', { optional: { nullable: 'string' } }, true],
      ['robot_method', { optional: { nullable: 'string' } }, true],
      ['sip_line', { optional: { nullable: 'string' } }, true],
      ['schedule_start_time', { optional: { nullable: 'string' } }, true],
      ['schedule_end_time', { optional: { nullable: 'string' } }, true],
      ['workflow_id', 'string', false],
      ['workflow_name', 'string', false],
      ['nodetask_id', 'string', false],
      ['nodetask_name', 'string', false],
      [
        'details',
        {
          array: {
            object: [
              ['id', 'safeint', false],
              ['callee', 'string', false],
              ['result', { optional: { nullable: 'string' } }, true],
              ['result_label', { optional: { nullable: 'string' } }, true],
              ['duration', { optional: { nullable: 'safeint' } }, true],
              ['hangup_type', { optional: { nullable: 'string' } }, true],
              ['ring_type', { optional: { nullable: 'string' } }, true],
              [
                'question_answer',
                {
                  optional: {
                    nullable: {
                      array: {
                        object: [
                          ['question_name', { optional: { nullable: 'string' } }, true],
                          ['answer', { optional: { nullable: 'string' } }, true],
                          ['answer_text', { optional: { nullable: 'string' } }, true],
                          ['status', { optional: { nullable: 'string' } }, true],
                          ['answer_text_slot', { optional: { nullable: 'string' } }, true],
                          ['var', { optional: { nullable: 'string' } }, true],
                          ['verification_results', { optional: { nullable: 'string' } }, true],
                          ['question_content', { optional: { nullable: 'string' } }, true],
                          ['question_type', { optional: { nullable: 'string' } }, true],
                          ['whether_answer', { optional: { nullable: 'string' } }, true],
                        ],
                        loose: true,
                      },
                    },
                  },
                },
                true,
              ],
              ['NerSlots', { optional: { nullable: { record: 'string' } } }, true],
              ['robot_hash', { optional: { nullable: 'string' } }, true],
              ['call_id', { optional: { nullable: 'string' } }, true],
              ['call_times', { optional: { nullable: 'safeint' } }, true],
              ['call_start_time', { optional: { nullable: 'string' } }, true],
              ['call_end_time', { optional: { nullable: 'string' } }, true],
              ['ring_time', { optional: { nullable: 'safeint' } }, true],
              ['talk_round', { optional: { nullable: 'safeint' } }, true],
              ['redail_call', { optional: { nullable: { array: { object: [], loose: true } } } }, true],
              ['intention_description', { optional: { nullable: 'string' } }, true],
              ['EventLabel', { optional: { nullable: { record: 'string' } } }, true],
              ['caller_number', { optional: { nullable: 'string' } }, true],
              ['case_id', { optional: { nullable: 'string' } }, true],
            ],
            loose: true,
          },
        },
        false,
      ],
    ],
    loose: true,
  },
  unknown: 'any',
};
