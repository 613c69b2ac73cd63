import type { z } from 'zod';

/**
 * What a quick check tests (src/schemas/quick-check.ts), read from a zod schema's definition: plain
 * data, so that it can be written into the source at build time and checked without zod. `never`
 * stands for every part the plan does not know (it vouches for nothing there).
 */
export type Plan =
  | 'never'
  | 'string'
  | 'boolean'
  | 'number'
  | 'safeint'
  | 'any'
  | { minLength: number }
  /** A string the pattern matches (a RegExp's source and flags; never `g` or `y`, which keep state). */
  | { pattern: string; flags: string }
  | { optional: Plan }
  | { nullable: Plan }
  | { array: Plan }
  | { record: Plan }
  /** Each declared key in the schema's order, its plan, and whether it may be absent. */
  | { object: Array<[key: string, plan: Plan, optional: boolean]>; loose: boolean };

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check?: string; format?: string; minimum?: number; pattern?: RegExp } } }>;
  coerce?: boolean;
  /** A format schema's own check (z.int(), z.email()...): the schema is the check, not in `checks`. */
  format?: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The plan of a schema: what of it a quick check can vouch for. */
export function planOf(schema: z.ZodType): Plan {
  const def = defOf(schema);
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  if (def.coerce) return 'never';
  // z.exactOptional() refuses a present undefined, which `optional` lets through.
  if ((schema as unknown as { _zod: { traits: Set<string> } })._zod.traits.has('$ZodExactOptional')) return 'never';
  // A format schema (z.int(), z.email(), z.iso.datetime()...) checks what its own format says: of
  // those, only a safe integer is known.
  if (def.format !== undefined)
    return def.type === 'number' && def.format === 'safeint' && !checks.length ? 'safeint' : 'never';
  switch (def.type) {
    case 'string': {
      if (checks.length === 0) return 'string';
      const only = checks.length === 1 ? checks[0]! : undefined;
      if (only?.check === 'min_length' && Number.isSafeInteger(only.minimum)) return { minLength: only.minimum! };
      // zod's regex check: the pattern's test() from lastIndex 0.
      if (only?.check === 'string_format' && only.format === 'regex' && only.pattern instanceof RegExp) {
        const { source, flags } = only.pattern;
        return /[gy]/.test(flags) ? 'never' : { pattern: source, flags };
      }
      return 'never';
    }
    case 'boolean':
      return checks.length ? 'never' : 'boolean';
    case 'number': {
      if (checks.length === 0) return 'number';
      const only = checks.length === 1 ? checks[0]! : undefined;
      return only?.check === 'number_format' && only.format === 'safeint' ? 'safeint' : 'never';
    }
    case 'unknown':
    case 'any':
      return checks.length ? 'never' : 'any';
    case 'optional':
    case 'nullable':
    case 'array':
      if (checks.length) return 'never';
      return def.type === 'array'
        ? { array: planOf(def.element!) }
        : ({ [def.type]: planOf(def.innerType!) } as { optional: Plan } | { nullable: Plan });
    case 'record': {
      const key = defOf(def.keyType!);
      if (checks.length || key.type !== 'string' || key.checks?.length || key.coerce) return 'never';
      return { record: planOf(def.valueType!) };
    }
    case 'object':
      return checks.length ? 'never' : objectPlan(def);
    default:
      return 'never';
  }
}

function objectPlan(def: Def): Plan {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // zod reads a declared key with `in`, which also finds Object.prototype's names: leave such
  // shapes to zod rather than tell an own key from an inherited one.
  if (keys.some((k) => k in Object.prototype || k === '__proto__')) return 'never';
  // Unknown keys are kept only by a loose object (catchall unknown); others strip or refuse them.
  const catchall = def.catchall && defOf(def.catchall);
  const loose = catchall !== undefined && ['unknown', 'any'].includes(catchall.type) && !catchall.checks?.length;
  return {
    object: keys.map((k) => [k, planOf(shape[k]!), defOf(shape[k]!).type === 'optional']),
    loose,
  };
}
