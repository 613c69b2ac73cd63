// Preloaded with --import: appends every module URL that gets loaded to $TRACE_IMPORTS_FILE:
// ES modules through a loader hook, CommonJS files (bin/callctl.js, dist/quick.cjs) as compiled.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.TRACE_IMPORTS_FILE) appendFileSync(process.env.TRACE_IMPORTS_FILE, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (process.env.TRACE_IMPORTS_FILE)
    appendFileSync(process.env.TRACE_IMPORTS_FILE, `${pathToFileURL(filename).href}\n`);
  return compile.call(this, content, filename);
};
