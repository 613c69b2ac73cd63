import { z } from 'zod';
import { HANGUP_TYPES, RING_TYPES } from '../../src/schemas/common.js';

/** The spec's ring and hangup types, strictly (callctl reads them leniently). */
export const ringTypeSchema = z.enum(RING_TYPES);
export const hangupTypeSchema = z.enum(HANGUP_TYPES);

/** The envelope every `/service/cloud/` endpoint answers with. Unknown fields pass through. */
export const envelopeSchema = <T extends z.ZodType>(data: T) =>
  z.looseObject({ data, status: z.string(), code: z.number().int() });
