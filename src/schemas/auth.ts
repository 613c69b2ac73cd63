import { z } from 'zod';

/** Body of POST /service/cloud/auth. */
export const authRequestSchema = z.object({
  APPKey: z.string().min(1),
  APPSecret: z.string().min(1),
});
export type AuthRequest = z.infer<typeof authRequestSchema>;

/** The token endpoint's `code` takes one of these values. */
export const AUTH_CODES = [200, 403, 500, 401] as const;

export const tokenDataSchema = z.looseObject({ token: z.string().min(1) });
export type TokenData = z.infer<typeof tokenDataSchema>;
