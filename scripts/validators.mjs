// The answer checks, generated at build time (scripts/build.mjs calls this before bundling): for
// each schema of ANSWER_SCHEMAS (src/schemas/answers.ts), ajv's standalone code compiled from the
// schema's JSON Schema (zod's z.toJSONSchema) into generated/answer-checks/NAME.js, which
// src/schemas/answers.ts loads with the answer and the build bundles like any other module, with
// the few runtime helpers of ajv that the code requires (ucs2length...). Not committed.
//
// A check says yes only where zod would accept the value AND hand it out unchanged (a read then
// needs no zod: src/api/client.ts); no means "ask zod", which decides and words the problem. The
// values checked are parsed JSON. What JSON Schema says and zod does not, or the reverse, is
// handled here; a schema with anything else is left to zod whole (its check always says no):
// - key order: zod's output has the declared keys present in the schema's order, then the others
//   in the input's order; the `keyOrder` keyword (defined below) asks for exactly that order, and
//   no `__proto__` key (zod drops it), on every object;
// - what z.toJSONSchema leaves out without a word: refinements (.refine, .superRefine, .check),
//   rewrites (.trim(), .toLowerCase()...), a pattern's flags: the override below refuses any check
//   but those JSON Schema carries, and a pattern whose flag would change what it matches;
// - input and output: the value must fit both (a .pipe() checks its input side, a .default()
//   fills an absent key): both schemas are checked when they differ;
// - keywords: only those below, read as zod reads them (no `format`, `default`, `multipleOf`,
//   `allOf`...); a union only of branches of different types (at most one can match, so zod's
//   first match is ajv's); a record only of string keys.
// test/schemas/answer-checks.test.ts holds every check to zod's parse on generated values.
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { _, stringify } = Ajv2020;
const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = fileURLToPath(new URL('../generated/answer-checks/', import.meta.url));

/** Keywords read alike by zod and ajv: of values, of subschemas (one, a list, a map), and annotations. */
const words = (text) => new Set(text.split(' '));
const LEAF = words(
  'type required enum const pattern minLength maxLength minItems maxItems minimum maximum exclusiveMinimum ' +
    'exclusiveMaximum $ref $schema title description examples deprecated $comment',
);
const SCHEMA = words('items additionalProperties');
const SCHEMA_LIST = words('anyOf oneOf prefixItems');
const SCHEMA_MAP = words('properties $defs');

class LeftToZod extends Error {}

const typesOf = (node) => {
  const t = typeof node === 'object' && node.type;
  if (!t) return undefined;
  const list = Array.isArray(t) ? t : [t];
  return list.includes('number') ? [...list, 'integer'] : list;
};

/** Checks a JSON Schema node (as z.toJSONSchema writes it) and adds `keyOrder` to its objects. */
function prepare(node, where) {
  if (typeof node === 'boolean') return;
  if (typeof node !== 'object' || node === null) throw new LeftToZod(`${where}: not a schema`);
  nullableAsType(node);
  for (const [key, value] of Object.entries(node)) {
    if (LEAF.has(key)) continue;
    if (SCHEMA.has(key)) prepare(value, `${where}/${key}`);
    else if (SCHEMA_MAP.has(key)) for (const [k, v] of Object.entries(value)) prepare(v, `${where}/${key}/${k}`);
    else if (SCHEMA_LIST.has(key)) value.forEach((v, i) => prepare(v, `${where}/${key}/${i}`));
    else if (key === 'propertyNames') {
      if (JSON.stringify(value) !== '{"type":"string"}') throw new LeftToZod(`${where}: keys other than strings`);
    } else throw new LeftToZod(`${where}: ${key}`);
  }
  for (const key of ['anyOf', 'oneOf']) {
    if (!node[key]) continue;
    const seen = new Set();
    for (const type of node[key].flatMap((branch) => typesOf(branch) ?? [undefined])) {
      if (type === undefined || seen.has(type)) throw new LeftToZod(`${where}: a union of branches that may overlap`);
      seen.add(type);
    }
  }
  if (!typesOf(node)?.includes('object')) {
    if (node.properties || node.additionalProperties || node.propertyNames)
      throw new LeftToZod(`${where}: object keywords without type object`);
    return;
  }
  const declared = Object.keys(node.properties ?? {});
  // zod reads a declared key with `in`, which finds Object.prototype's names too.
  if (declared.some((k) => k in Object.prototype || k === '__proto__'))
    throw new LeftToZod(`${where}: a declared key named as a property of every object`);
  node.keyOrder = declared;
}

/**
 * `anyOf: [{type: T, ...}, {type: "null"}]` (zod's nullable of anything but a bare type) becomes
 * `type: [T, "null"]`, the same schema (every keyword but enum and const applies to its own type
 * only) that ajv checks without building an error for each null.
 */
function nullableAsType(node) {
  const bare = (branch) => JSON.stringify(branch) === '{"type":"null"}';
  const [a, b, ...more] = node.anyOf ?? [];
  const other = bare(b) ? a : bare(a) ? b : undefined;
  if (more.length || typeof other?.type !== 'string') return;
  const keys = Object.keys(other);
  if (keys.some((k) => ['anyOf', 'oneOf', 'enum', 'const', '$ref'].includes(k) || (k in node && k !== 'anyOf'))) return;
  delete node.anyOf;
  Object.assign(node, other, { type: [other.type, 'null'] });
}

/**
 * `keyOrder: [declared keys]`: the object's keys are the declared ones present, in this order,
 * then any others, none of them `__proto__`. Each key in the input's order must be the next
 * declared key present until all are seen (JSON has no undefined: a key is present when its value
 * is not undefined); the keys after that are the others.
 */
const keyOrder = {
  keyword: 'keyOrder',
  type: 'object',
  schemaType: 'array',
  code(cxt) {
    const { gen, data, schema } = cxt;
    const keys = gen.scopeValue('obj', { key: JSON.stringify(schema), ref: schema, code: stringify(schema) });
    const n = schema.length;
    const next = gen.let('next', 0);
    const ordered = gen.let('ordered', true);
    const key = gen.name('key');
    gen.code(
      _`for (const ${key} in ${data}) { while (${next} < ${n} && ${data}[${keys}[${next}]] === undefined) ${next}++; if (${next} < ${n} ? ${key} !== ${keys}[${next}++] : ${key} === "__proto__") { ${ordered} = false; break; } }`,
    );
    cxt.pass(ordered);
  },
};

/**
 * Refuses, in z.toJSONSchema's override, a schema node with a check that its JSON Schema does not
 * carry. Only z's own exported check classes are named (zod/v4/core), and a regex check's pattern.
 */
function refuseUncarried(z) {
  const core = z.core;
  const carried = [
    core.$ZodCheckLessThan,
    core.$ZodCheckGreaterThan,
    core.$ZodCheckNumberFormat,
    core.$ZodCheckMinLength,
    core.$ZodCheckMaxLength,
    core.$ZodCheckLengthEquals,
    core.$ZodCheckRegex,
  ];
  return ({ zodSchema, path }) => {
    for (const check of zodSchema._zod.def.checks ?? []) {
      const where = `/${path.join('/')}`;
      if (!carried.some((c) => check instanceof c)) throw new LeftToZod(`${where}: a check JSON Schema does not carry`);
      // zod resets lastIndex before each test, so `g` changes nothing; without i, m or s a pattern
      // matches less, never more; `u`, `v` and `y` change what it matches.
      if (check instanceof core.$ZodCheckRegex && /[uvy]/.test(check._zod.def.pattern.flags))
        throw new LeftToZod(`${where}: a pattern with the flags ${check._zod.def.pattern.flags}`);
    }
  };
}

/** The JSON Schemas (output, and input where it differs) to check a value against, or why none. */
function jsonSchemas(z, schema) {
  const override = refuseUncarried(z);
  const json = (io) => {
    try {
      const s = z.toJSONSchema(schema, { io, unrepresentable: 'throw', cycles: 'ref', reused: 'inline', override });
      prepare(s, '');
      return s;
    } catch (error) {
      if (error instanceof LeftToZod) throw error;
      throw new LeftToZod(error.message);
    }
  };
  const output = json('output');
  const input = json('input');
  return JSON.stringify(input) === JSON.stringify(output) ? [output] : [output, input];
}

/**
 * The module of the answer check of `schema` (a zod schema made with `z`): ES module source that
 * exports `check` (and requires ajv's runtime helpers it uses), and why the schema is left to zod,
 * if it is.
 */
export function answerCheckModule(schema, z) {
  const ajv = new Ajv2020({
    code: { source: true, esm: true, lines: false },
    strict: true,
    strictNumbers: true,
    allowUnionTypes: true, // ["string", "number"]: different types, at most one matches
    unicodeRegExp: false, // as zod's patterns (a flag that changes that is refused above)
    messages: false,
    keywords: [keyOrder],
  });
  let source;
  let leftToZod;
  try {
    const ids = jsonSchemas(z, schema).map((json, i) => {
      const $id = i ? 'input' : 'output';
      ajv.compile({ ...json, $id });
      return $id;
    });
    source = `${standaloneCode(ajv, Object.fromEntries(ids.map((id) => [id, id])))}
export const check = (value) => ${ids.map((id) => `${id}(value)`).join(' && ')};\n`;
  } catch (error) {
    if (!(error instanceof LeftToZod) && !/^strict mode/.test(error.message)) throw error;
    leftToZod = error.message;
    source = `// Left to zod: ${leftToZod.replace(/\n/g, ' ')}\nexport const check = () => false;\n`;
  }
  return { code: `// Generated by scripts/validators.mjs; do not edit.\n${source}`, leftToZod };
}

/** Writes generated/answer-checks/NAME.js for each answer schema of the source tree. */
export async function generateAnswerChecks() {
  // The schemas, bundled with their zod by esbuild (they are TypeScript) and loaded here. The
  // checks' folder must exist for src/schemas/answers.ts's import of them to be bundled.
  mkdirSync(OUT, { recursive: true });
  const bundle = await build({
    stdin: {
      contents: "export { ANSWER_SCHEMAS } from './src/schemas/answers.ts'; export { z } from 'zod';",
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'warning',
    logOverride: { 'empty-glob': 'silent' },
  });
  const url = `data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`;
  const { ANSWER_SCHEMAS, z } = await import(url);
  const files = new Set();
  for (const [name, load] of Object.entries(ANSWER_SCHEMAS)) {
    files.add(`${name}.js`);
    writeFileSync(join(OUT, `${name}.js`), answerCheckModule(await load(), z).code);
  }
  for (const file of readdirSync(OUT)) if (!files.has(file)) rmSync(join(OUT, file));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await generateAnswerChecks();
