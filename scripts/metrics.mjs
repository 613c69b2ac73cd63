// Figures about src/ for the issue notes: files, lines, files over 200 lines, and import circles
// between src files (strongly connected components of the static import graph, `import type`
// included; dynamic `import()` is reported on its own line because it is not a load-time edge).
// Usage: node scripts/metrics.mjs [--list]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');
const list = process.argv.includes('--list');

/** Every .ts file under a folder. */
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const files = walk(src).sort();
const lines = new Map(files.map((f) => [f, (readFileSync(f, 'utf8').match(/\n/g) ?? []).length]));
const total = [...lines.values()].reduce((a, b) => a + b, 0);
const big = files.filter((f) => lines.get(f) > 200);

/** Resolves a relative specifier to a src file, or undefined. */
function target(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const c of [`${base}.ts`, join(base, 'index.ts')]) if (lines.has(c)) return c;
  return undefined;
}

const staticEdges = new Map(files.map((f) => [f, new Set()]));
const typeOnly = new Map(files.map((f) => [f, new Set()]));
const dynamicEdges = new Map(files.map((f) => [f, new Set()]));
for (const f of files) {
  const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const t = target(f, node.moduleSpecifier.text);
      if (t) {
        staticEdges.get(f).add(t);
        const clause = ts.isImportDeclaration(node) ? node.importClause : node;
        const allTypes = ts.isImportDeclaration(node)
          ? clause &&
            (clause.isTypeOnly ||
              (!clause.name &&
                clause.namedBindings &&
                ts.isNamedImports(clause.namedBindings) &&
                clause.namedBindings.elements.length > 0 &&
                clause.namedBindings.elements.every((e) => e.isTypeOnly)))
          : node.isTypeOnly;
        if (allTypes) typeOnly.get(f).add(t);
      }
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const t = target(f, node.arguments[0].text);
      if (t) dynamicEdges.get(f).add(t);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** Tarjan's strongly connected components of size > 1 (or a self-import). */
function circles(edges) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    stack = [],
    on = new Set(),
    out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || edges.get(v).has(v)) out.push(comp.map((c) => relative(root, c)).sort());
    }
  };
  for (const v of files) if (!idx.has(v)) strong(v);
  return out;
}

const valueEdges = new Map(
  files.map((f) => [f, new Set([...staticEdges.get(f)].filter((t) => !typeOnly.get(f).has(t)))]),
);
const all = circles(staticEdges);
const value = circles(valueEdges);
const withDynamic = circles(new Map(files.map((f) => [f, new Set([...staticEdges.get(f), ...dynamicEdges.get(f)])])));
console.log(`src: ${files.length} files, ${total} lines, ${big.length} files over 200 lines`);
console.log(
  `import circles (static, type-only edges included): ${all.length}; of them with value imports only: ${value.length}; adding dynamic import(): ${withDynamic.length}`,
);
for (const c of all) console.log(`  circle: ${c.join(' <-> ')}`);
if (list) for (const c of withDynamic) console.log(`  with dynamic import(): ${c.join(' <-> ')}`);
if (list)
  for (const f of big.sort((a, b) => lines.get(b) - lines.get(a)))
    console.log(`  ${lines.get(f)}\t${relative(root, f)}`);
