import { z } from 'zod';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
};

/**
 * The one-line shape of a schema's JSON for a help page, from zod's JSON Schema of it: an object
 * lists its keys, `"key": shape` where the value is an object or an array of objects (two levels
 * deep, then `{...}`), an array is `[shape]`, a record `{key: shape}`, a key with a few values lists
 * them in brackets. Keys the service may add beside
 * the spec's are not listed.
 */
export function jsonShape(schema: z.ZodType): string {
  return shapeOf(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema, 0);
}

function shapeOf(s: JsonSchema, depth: number): string {
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const structured = variants.find((v) => v.properties || v.items);
    if (structured) return shapeOf(structured, depth);
    const values = variants.flatMap((v) => v.enum ?? []);
    return values.length ? `(${values.join(', ')})` : '';
  }
  if (s.enum) return `(${s.enum.join(', ')})`;
  if (s.properties) {
    if (depth >= 3) return '{...}';
    const keys = Object.entries(s.properties).map(([key, value]) => {
      const inner = shapeOf(value, depth + 1);
      return inner ? `"${key}"${inner.startsWith('(') ? ' ' : ': '}${inner}` : `"${key}"`;
    });
    return `{${keys.join(', ')}}`;
  }
  if (typeof s.additionalProperties === 'object') {
    // A record: any key, each value of one shape.
    const inner = shapeOf(s.additionalProperties, depth + 1);
    return `{key: ${inner || 'value'}}`;
  }
  if (s.items) {
    const inner = shapeOf(s.items, depth + 1);
    return `[${inner || '...'}]`;
  }
  return '';
}

/** A shape broken after its commas into lines of at most `width` columns, each indented by `indent`. */
export function wrapShape(shape: string, width = 80, indent = '  '): string {
  const lines: string[] = [];
  let line = indent;
  for (const part of shape.split(/(?<=, )/)) {
    if (line.length + part.trimEnd().length > width && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = indent + ' ';
    }
    line += part;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}
