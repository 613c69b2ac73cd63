import { z } from 'zod';

export const ROBOT_METHODS = ['single', 'group'] as const;
export const TONES = ['Polite', 'Natural', 'Pressing', 'Harsh', 'Fierce'] as const;
export const VOICES = ['male', 'female'] as const;

/** Robot: an item of the `data` array of GET /service/cloud/robot. */
export const robotSchema = z.looseObject({
  RobotMethod: z.enum(ROBOT_METHODS),
  RobotID: z.string(),
  RobotName: z.string().nullish(),
  RobotDescription: z.string().nullish(),
  Link: z.string().nullish(),
  Tone: z.enum(TONES).nullish(),
  // The spec: "an empty value can occur".
  Voice: z.union([z.enum(VOICES), z.literal('')]),
});
export type Robot = z.infer<typeof robotSchema>;

export const robotListSchema = z.array(robotSchema);
