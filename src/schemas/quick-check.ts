import type { z } from 'zod';
import { planOf, type Plan } from './quick-plan.js';

export type { Plan } from './quick-plan.js';

/**
 * A fast check derived from a zod schema, to stand in front of it: where many values are checked
 * (the records of a large task: zod's parse, which copies every object it checks, was a fifth of a
 * report's CPU time), and where loading zod at all would cost more than the command (a read
 * command's answer, checked by a plan compiled at build time: src/schemas/answers.ts).
 *
 * `true` means: the schema accepts the value AND its output would be the value itself (the same
 * keys in the same order at every level, the same values), so the value can be used without
 * parsing. `false` means only "cannot vouch": the caller hands the value to zod, which decides and
 * words the problem. The schema stays the one source of truth: the plan is read from its
 * definition (src/schemas/quick-plan.ts), and any part the plan does not know vouches for nothing.
 *
 * What each plan node vouches for (each matches zod 4's parse, test/schemas/quick-check.test.ts
 * holds it to that on generated values):
 * - string: any string, one at least `minLength` long (in code points, as zod counts), or one `pattern` matches; number: finite, and a safe integer for
 *   `safeint`; boolean; any: anything (zod hands it out as it is).
 * - optional / nullable: undefined / null, or the inner type.
 * - array: an array whose every element passes (zod's output is a new array of the same elements).
 * - record of string keys: a plain object, no `__proto__` key, every value passing.
 * - object: a plain object whose declared keys come first, in the schema's order (zod writes its
 *   output in that order), each passing, every required one present; then, for a loose object,
 *   any other keys (zod appends them in the input's order). An object zod would strip or refuse
 *   unknown keys from, or one with a `__proto__` key (zod drops it), is left to zod.
 */
export type QuickCheck = (value: unknown) => boolean;

const cache = new WeakMap<object, QuickCheck>();

/** The quick check of a schema (compiled once per schema object). */
export function quickCheckOf(schema: z.ZodType): QuickCheck {
  let check = cache.get(schema);
  if (!check) {
    check = checkOf(planOf(schema));
    cache.set(schema, check);
  }
  return check;
}

const never: QuickCheck = () => false;
const isString: QuickCheck = (v) => typeof v === 'string';
const isBoolean: QuickCheck = (v) => typeof v === 'boolean';
const isNumber: QuickCheck = (v) => typeof v === 'number' && Number.isFinite(v);
const anything: QuickCheck = () => true;

function plainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Code points in `s`, as zod counts a length: a surrogate pair once, a lone surrogate as itself. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/** The check a plan describes; needs no zod. */
export function checkOf(plan: Plan): QuickCheck {
  switch (plan) {
    case 'never':
      return never;
    case 'string':
      return isString;
    case 'boolean':
      return isBoolean;
    case 'number':
      return isNumber;
    case 'safeint':
      return Number.isSafeInteger;
    case 'any':
      return anything;
  }
  if ('pattern' in plan) {
    const re = new RegExp(plan.pattern, plan.flags);
    return (v) => typeof v === 'string' && re.test(v);
  }
  if ('minLength' in plan) {
    const min = plan.minLength;
    // zod counts code points; fewer units than `min`, or twice as many, settle it without counting.
    return (v) => typeof v === 'string' && v.length >= min && (v.length >= 2 * min || codePoints(v) >= min);
  }
  if ('optional' in plan) {
    const inner = checkOf(plan.optional);
    return (v) => v === undefined || inner(v);
  }
  if ('nullable' in plan) {
    const inner = checkOf(plan.nullable);
    return (v) => v === null || inner(v);
  }
  if ('array' in plan) {
    const element = checkOf(plan.array);
    return (v) => {
      if (!Array.isArray(v)) return false;
      for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
      return true;
    };
  }
  if ('record' in plan) {
    const value = checkOf(plan.record);
    return (v) => {
      if (!plainObject(v)) return false;
      for (const k in v) if (k === '__proto__' || !value(v[k])) return false;
      return true;
    };
  }
  return objectCheck(plan);
}

function objectCheck(plan: Extract<Plan, { object: unknown }>): QuickCheck {
  const keys = plan.object.map(([k]) => k);
  const checks = plan.object.map(([, p]) => checkOf(p));
  const optional = plan.object.map(([, , o]) => o);
  const loose = plan.loose;
  const index = new Map(keys.map((k, i) => [k, i]));
  const n = keys.length;
  return (v) => {
    if (!plainObject(v)) return false;
    // The next declared key expected, in the schema's order; skipped ones must be optional.
    let next = 0;
    let unknownSeen = false;
    for (const k in v) {
      if (next < n && k === keys[next]) {
        if (unknownSeen || !checks[next]!(v[k])) return false;
        next++;
        continue;
      }
      const at = index.get(k);
      if (at === undefined) {
        if (!loose || k === '__proto__') return false;
        unknownSeen = true;
        continue;
      }
      // A declared key later in the order (the ones between are absent), or out of order.
      if (unknownSeen || at < next) return false;
      for (let s = next; s < at; s++) if (!optional[s]) return false;
      if (!checks[at]!(v[k])) return false;
      next = at + 1;
    }
    for (let s = next; s < n; s++) if (!optional[s]) return false;
    return true;
  };
}
