// Preloaded with --import: appends every module URL that gets loaded to $TRACE_IMPORTS_FILE.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.TRACE_IMPORTS_FILE) appendFileSync(process.env.TRACE_IMPORTS_FILE, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
