/**
 * HTML text from anything: the five characters that can open markup or end an attribute are
 * written as entities, so a value (a label from the service, a body received by serve-hooks) is
 * shown as text and never read as markup. Every page callctl writes goes through this.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A tagged template whose `${values}` are escaped; a value made by `markup` itself (Markup) is kept as it is. */
export function markup(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let text = strings[0]!;
  values.forEach((v, i) => {
    text += (Array.isArray(v) ? v : [v]).map((x) => (x instanceof Markup ? x.text : escapeHtml(x))).join('');
    text += strings[i + 1]!;
  });
  return new Markup(text);
}

/** Text that is already HTML (made by `markup`). */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}
