import { readFileSync } from 'node:fs';
import { InputError, UsageError } from '../../errors.js';
import { said } from '../../said.js';

/**
 * Variables from repeatable `--var key=value` flags and an optional JSON file holding an object
 * of strings. The flags win over the file, so that one value can be changed for one run.
 */
export function collectVariables(flags: readonly string[] = [], file?: string): Record<string, string> {
  return { ...(file ? readVariablesFile(file) : {}), ...parseVarFlags(flags) };
}

/** `key=value` pairs; the value may contain `=`; a bad pair is a usage error (exit 2). */
export function parseVarFlags(flags: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const key = eq > 0 ? flag.slice(0, eq).trim() : '';
    if (!key) throw new UsageError(said`--var expects key=value, got ${JSON.stringify(flag)}`);
    vars[key] = flag.slice(eq + 1);
  }
  return vars;
}

/** A JSON file holding an object of strings; anything else is invalid input (exit 3). */
export function readVariablesFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(said`cannot read variables file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new InputError(said`variables file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(
      said`variables file ${path} must hold a JSON object of strings, such as {"debt_amount": "1500000"}`,
    );
  }
  const bad = Object.entries(value)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k]) => k);
  if (bad.length > 0) {
    throw new InputError(said`variables file ${path}: every value must be a string; not: ${bad.join(', ')}`);
  }
  return value as Record<string, string>;
}
