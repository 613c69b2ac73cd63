import type { z } from 'zod';

/**
 * A fast check compiled from a zod schema, to stand in front of it where many values are checked
 * (the records of a large task: zod's parse, which copies every object it checks, was a fifth of a
 * report's CPU time).
 *
 * `true` means: the schema accepts the value AND its output would be the value itself (the same
 * keys in the same order at every level, the same values), so the value can be used without
 * parsing. `false` means only "cannot vouch": the caller hands the value to zod, which decides and
 * words the problem. The schema stays the one source of truth: this reads its definition, and
 * any part it does not know (checks other than safe integers, enums, unions, transforms, strict
 * objects...) makes it vouch for nothing there.
 *
 * What it vouches for, node by node (each matches zod 4's parse, test/schemas/quick-check.test.ts
 * holds it to that on generated values):
 * - string without checks: any string; number: finite, and a safe integer with `.int()`;
 *   boolean; unknown/any: anything (zod hands it out as it is).
 * - optional / nullable: undefined / null, or the inner type.
 * - array without checks: an array whose every element passes (zod's output is a new array of
 *   the same elements).
 * - record of string keys: a plain object, no `__proto__` key, every value passing.
 * - object: a plain object whose declared keys come first, in the schema's order (zod writes its
 *   output in that order), each passing, every required one present; then, for a loose object,
 *   any other keys (zod appends them in the input's order). An object zod would strip or refuse
 *   unknown keys from, or one with a `__proto__` key (zod drops it), is left to zod.
 */
export type QuickCheck = (value: unknown) => boolean;

const never: QuickCheck = () => false;
const cache = new WeakMap<object, QuickCheck>();

/** The quick check of a schema (compiled once per schema object). */
export function quickCheckOf(schema: z.ZodType): QuickCheck {
  let check = cache.get(schema);
  if (!check) {
    check = compile(schema);
    cache.set(schema, check);
  }
  return check;
}

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string } } }>;
  coerce?: boolean;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function plainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

function compile(schema: z.ZodType): QuickCheck {
  const def = defOf(schema);
  const checks = def.checks ?? [];
  if (def.coerce) return never;
  switch (def.type) {
    case 'string':
      return checks.length ? never : (v) => typeof v === 'string';
    case 'boolean':
      return checks.length ? never : (v) => typeof v === 'boolean';
    case 'number': {
      if (checks.length === 0) return (v) => typeof v === 'number' && Number.isFinite(v);
      const only = checks.length === 1 ? checks[0]!._zod.def : undefined;
      if (only?.check === 'number_format' && only.format === 'safeint') return (v) => Number.isSafeInteger(v);
      return never;
    }
    case 'unknown':
    case 'any':
      return checks.length ? never : () => true;
    case 'optional': {
      if (checks.length) return never;
      const inner = quickCheckOf(def.innerType!);
      return (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      if (checks.length) return never;
      const inner = quickCheckOf(def.innerType!);
      return (v) => v === null || inner(v);
    }
    case 'array': {
      if (checks.length) return never;
      const element = quickCheckOf(def.element!);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'record': {
      const key = defOf(def.keyType!);
      if (checks.length || key.type !== 'string' || key.checks?.length || key.coerce) return never;
      const value = quickCheckOf(def.valueType!);
      return (v) => {
        if (!plainObject(v)) return false;
        for (const k in v) if (k === '__proto__' || !value(v[k])) return false;
        return true;
      };
    }
    case 'object':
      return checks.length ? never : objectCheck(def);
    default:
      return never;
  }
}

function objectCheck(def: Def): QuickCheck {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // zod reads a declared key with `in`, which also finds Object.prototype's names: leave such
  // shapes to zod rather than tell an own key from an inherited one here.
  if (keys.some((k) => k in Object.prototype || k === '__proto__')) return never;
  // Unknown keys are kept only by a loose object (catchall unknown); others strip or refuse them.
  const loose =
    def.catchall !== undefined &&
    ['unknown', 'any'].includes(defOf(def.catchall).type) &&
    !defOf(def.catchall).checks?.length;
  const checks = keys.map((k) => quickCheckOf(shape[k]!));
  const optional = keys.map((k) => defOf(shape[k]!).type === 'optional');
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
