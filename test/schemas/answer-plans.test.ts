/**
 * A read command checks the service's answer with a plan read from its zod schema at build time
 * (src/schemas/answer-plans.ts), so that zod is loaded only for an answer the plan cannot vouch
 * for. The file is generated from the schemas here (`UPDATE_ANSWER_PLANS=1 npx vitest run
 * test/schemas/answer-plans.test.ts` rewrites it); this test fails when a schema changed and the
 * file did not. What a plan vouches for is held to zod's parse in quick-check.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { ANSWER_PLANS } from '../../src/schemas/answer-plans.js';
import { ANSWER_SCHEMAS, answerSchema, type AnswerName } from '../../src/schemas/answers.js';
import { checkOf } from '../../src/schemas/quick-check.js';
import { planOf } from '../../src/schemas/quick-plan.js';

const FILE = fileURLToPath(new URL('../../src/schemas/answer-plans.ts', import.meta.url));
const names = Object.keys(ANSWER_SCHEMAS) as AnswerName[];

async function generated(): Promise<string> {
  const plans = Object.fromEntries(await Promise.all(names.map(async (n) => [n, planOf(await ANSWER_SCHEMAS[n]())])));
  const text = `// Generated from the zod schemas by test/schemas/answer-plans.test.ts; do not edit (UPDATE_ANSWER_PLANS=1 rewrites it).
import type { Plan } from './quick-plan.js';

/** The plan of each answer's quick check (src/schemas/answers.ts), read from its schema. */
export const ANSWER_PLANS: Record<string, Plan> = ${JSON.stringify(plans)};
`;
  const options = await prettier.resolveConfig(FILE);
  return prettier.format(text, { ...options, filepath: FILE });
}

describe('answer plans', () => {
  it('are the plans of the zod schemas (the generated file is current)', async () => {
    const text = await generated();
    if (process.env.UPDATE_ANSWER_PLANS) writeFileSync(FILE, text);
    expect(readFileSync(FILE, 'utf8')).toBe(text);
  });

  it('every answer has a plan, and the common ones vouch for something', () => {
    expect(Object.keys(ANSWER_PLANS).sort()).toEqual([...names].sort());
    // The read commands' answers (robots, plan status, the token) are checked without zod.
    for (const n of ['token', 'robotList', 'planStatus', 'unknown'] as const) expect(ANSWER_PLANS[n]).not.toBe('never');
  });

  it('a check built from the generated plan agrees with one built from the schema', async () => {
    const samples: Record<AnswerName, unknown[]> = {
      token: [{ token: 'tk' }, { token: '' }, { token: 1 }, {}],
      robotList: [
        [{ RobotMethod: 'single', RobotID: 'r1', RobotName: 'a', Tone: null }],
        [{ RobotID: 'r1', RobotMethod: 'single' }],
        [{ RobotMethod: 'single' }],
        {},
      ],
      callingTask: [{}, { TaskID: 't' }],
      planStatus: [{ PlanName: 'p', PlanStatus: 'running' }, { PlanStatus: 1 }],
      planDetail: [{ PlanName: 'p', PlanDetails: [] }, null],
      workflowList: [{ lists: [], count: 0 }, { count: '0' }],
      updateDetails: [{ count: 1 }, {}],
      verifyPush: [{}, null],
      workflowTaskDetail: [{}, []],
      unknown: [null, 1, 'x', { a: [1] }],
    };
    for (const n of names) {
      const fromSchema = checkOf(planOf(await ANSWER_SCHEMAS[n]()));
      for (const v of samples[n]) expect(answerSchema(n).check(v), `${n} ${JSON.stringify(v)}`).toBe(fromSchema(v));
    }
  });
});
