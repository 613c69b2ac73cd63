import { z } from 'zod';
import { ISO_TIME_RE } from './formats.js';

export const isoTime = z.string().regex(ISO_TIME_RE, 'expected YYYY-MM-DDTHH:MM:SSZ');

export const RING_TYPES = [
  'busy',
  'cantuse',
  'holdline',
  'switchoff',
  'outofarea',
  'unregister',
  'wrongnum',
  'notmatch',
  'normal',
  'null',
] as const;

export const HANGUP_TYPES = ['ByCallee', 'ByRobot', 'Canceled'] as const;

/**
 * A value the spec lists known values for, read from the service leniently: the service may add
 * values, and an operator's read must not fail on one. Senders (the sandbox) use the strict enum.
 */
export const known = <T extends readonly [string, ...string[]]>(_values: T) => z.string();

export const stringMap = z.record(z.string(), z.string());
