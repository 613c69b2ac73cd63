import { z } from 'zod';

/** `data` of the token endpoint's answer (POST /service/cloud/auth). */
export const tokenDataSchema = z.looseObject({ token: z.string().min(1) });
