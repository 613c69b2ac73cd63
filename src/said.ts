/**
 * A message as callctl's own words and the text that came from outside, kept apart, so that
 * redaction (src/redact.ts) rewrites only the latter: a wrong secret `secret` must not turn the
 * flag `--app-secret-stdin` into `--app-***-stdin`.
 *
 * callctl's own words are the literal text of a `said` template: source code holds no secret.
 * Everything interpolated into one is outside text (a service's answer, a file's line, a value the
 * user gave, a number) unless it is itself a message built so (a `Said`, or an error holding one,
 * whose own words stay its own). Nothing else marks text as callctl's: a message given as a plain
 * string is outside text whole and is redacted whole, so a message written without `said` costs a
 * word shown as `***`, never a secret shown.
 */
/** The one way to a Said from stretches: this module's (the constructor is private). */
let make: (parts: readonly string[]) => Said;

export class Said {
  static {
    make = (parts) => new Said(parts);
  }

  /**
   * The text in stretches: callctl's words at the even places, outside text at the odd ones (the
   * shape of a template's strings and values); either kind may be empty.
   */
  private constructor(readonly parts: readonly string[]) {}

  /** A plain string is outside text whole; a `Said` is itself. */
  static of(message: string | Said): Said {
    return message instanceof Said ? message : make(['', message]);
  }

  /** Messages joined with `separator` (callctl's words) between them. */
  static join(items: ReadonlyArray<string | Said>, separator: Said): Said {
    const out = new Builder();
    items.forEach((item, i) => {
      if (i > 0) out.add(separator);
      out.add(item);
    });
    return out.done();
  }

  /** The whole text, nothing redacted: what `Error.message` holds; written out only through redact(). */
  toString(): string {
    return this.parts.join('');
  }
}

/** Appends stretches, merging neighbours of one kind (two outside values side by side are one stretch). */
class Builder {
  private readonly parts: string[] = [''];

  own(text: string): void {
    if (this.parts.length % 2 === 1) this.parts[this.parts.length - 1] += text;
    else this.parts.push(text);
  }

  outside(text: string): void {
    if (text === '') return;
    if (this.parts.length % 2 === 0) this.parts[this.parts.length - 1] += text;
    else this.parts.push(text);
  }

  /** A message keeps its stretches (an error's, its message's); anything else is outside text. */
  add(value: unknown): void {
    const message = value instanceof Said ? value : saidOf(value);
    if (message) message.parts.forEach((p, i) => (i % 2 ? this.outside(p) : this.own(p)));
    else this.outside(String(value));
  }

  done(): Said {
    return make(this.parts);
  }
}

/** The message an error holds as a Said (CliError's, in src/errors.ts, which builds on this module). */
function saidOf(value: unknown): Said | undefined {
  const held = value instanceof Error ? (value as { said?: unknown }).said : undefined;
  return held instanceof Said ? held : undefined;
}

/**
 * A message: the template's literal text is callctl's words, shown as written; each `${value}` is
 * outside text, redacted where the message is written, unless it is a `Said` or an error holding
 * one. Only a template's own strings are taken (frozen, with `raw`): an array built at run time
 * cannot pass for callctl's words.
 */
export function said(strings: TemplateStringsArray, ...values: unknown[]): Said {
  if (!Object.isFrozen(strings) || !Array.isArray(strings.raw)) throw new TypeError('said is a template tag');
  const out = new Builder();
  strings.forEach((text, i) => {
    // A template's text with an escape it cannot cook (`\d`) is its raw text.
    out.own(text ?? strings.raw[i]!);
    if (i < values.length) out.add(values[i]);
  });
  return out.done();
}

/**
 * One of callctl's names held in a variable (a setting's key or variable, read from a table): its
 * own word when it is one of `names`, which are literals of the source; outside text otherwise.
 */
export function named(value: string, names: ReadonlySet<string>): Said {
  return names.has(value) ? make([value]) : Said.of(value);
}
