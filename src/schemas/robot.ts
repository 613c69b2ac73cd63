import { z } from 'zod';
import { known } from './common.js';

export const ROBOT_METHODS = ['single', 'group'] as const;
export const TONES = ['Polite', 'Natural', 'Pressing', 'Harsh', 'Fierce'] as const;
export const VOICES = ['male', 'female'] as const;

/**
 * Robot: an item of the `data` array of GET /service/cloud/robot. The enumerations are read
 * leniently (a value outside the spec's list, or empty, is shown as it is); Voice is required
 * but "an empty value can occur", so a missing or null Voice is read as empty too.
 */
export const robotSchema = z.looseObject({
  RobotMethod: known(ROBOT_METHODS),
  RobotID: z.string(),
  RobotName: z.string().nullish(),
  RobotDescription: z.string().nullish(),
  Link: z.string().nullish(),
  Tone: known(TONES).nullish(),
  Voice: known(VOICES).nullish(),
});
export type Robot = z.infer<typeof robotSchema>;

export const robotListSchema = z.array(robotSchema);
