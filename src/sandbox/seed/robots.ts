import type { Robot } from '../spec/shapes.js';

/** The seeded robots: single and group, every tone, both voices and an empty one. */
export const ROBOTS: readonly Robot[] = [
  {
    RobotMethod: 'single',
    RobotID: 'rb-1001',
    RobotName: 'Collections reminder (polite)',
    RobotDescription: 'Early stage, 1 to 7 days past due',
    Link: 'https://recordings.sandbox.invalid/robots/rb-1001.wav',
    Tone: 'Polite',
    Voice: 'female',
  },
  {
    RobotMethod: 'single',
    RobotID: 'rb-1002',
    RobotName: 'Collections escalation',
    RobotDescription: 'Late stage, 30 or more days past due',
    Link: null,
    Tone: 'Pressing',
    Voice: 'male',
  },
  {
    RobotMethod: 'group',
    RobotID: 'rg-2001',
    RobotName: 'Collections group ID/PH',
    RobotDescription: 'Rotates rb-1001 and rb-1002 by stage',
    Link: null,
    Tone: null,
    Voice: 'female',
  },
  {
    RobotMethod: 'single',
    RobotID: 'rb-1003',
    RobotName: 'Flash sale announcer',
    RobotDescription: 'E-commerce cart reminders and promotions',
    Link: 'https://recordings.sandbox.invalid/robots/rb-1003.wav',
    Tone: 'Natural',
    Voice: 'male',
  },
  {
    RobotMethod: 'single',
    RobotID: 'rb-1004',
    RobotName: 'KYC information check',
    RobotDescription: 'Verifies applicant identity, birth date and employer',
    Link: null,
    Tone: 'Natural',
    Voice: '',
  },
  {
    RobotMethod: 'group',
    RobotID: 'rg-2002',
    RobotName: 'Final notice group',
    RobotDescription: '',
    Link: null,
    Tone: 'Harsh',
    Voice: 'male',
  },
  {
    RobotMethod: 'single',
    RobotID: 'rb-1005',
    RobotName: 'Legal notice',
    RobotDescription: 'Pre-litigation notice, 90 or more days past due',
    Link: null,
    Tone: 'Fierce',
    Voice: 'female',
  },
];

/** The robot each scenario calls with, by default. */
export const SCENARIO_ROBOT = {
  debt: 'rb-1001',
  telemarketing: 'rb-1003',
  'info-check': 'rb-1004',
} as const;

export function robotById(id: string): Robot | undefined {
  return ROBOTS.find((r) => r.RobotID === id);
}
