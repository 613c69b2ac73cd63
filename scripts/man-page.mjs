// callctl(1), the man page, made from the help pages the build rendered (dist/help.json, one page
// per command, src/help/pages.ts): the program's page is the description, and each command's page
// a subsection, printed as the help prints it. The man page cannot then say other than --help.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A help page as roff text, kept as laid out (no filling): groff's escapes and control lines neutralised. */
function verbatim(page) {
  const lines = page
    .trimEnd()
    .split('\n')
    .map((line) => line.replaceAll('\\', '\\e').replaceAll('-', '\\-'))
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line));
  return ['.nf', ...lines, '.fi'].join('\n');
}

/** The man page of callctl `version`, from the rendered help pages (keys: '' for the program, 'workflow update'...). */
export function renderManPage(pages, version) {
  const program = pages[''];
  if (typeof program !== 'string') throw new Error('help.json has no page of the program');
  const summary = program.split('\n\n')[1]?.replace(/\s+/g, ' ').trim() ?? 'robot outbound-calling campaigns';
  const commands = Object.keys(pages)
    .filter((key) => key !== '')
    .sort();
  return [
    `.TH CALLCTL 1 "" "callctl ${version}" "User Commands"`,
    '.SH NAME',
    `callctl \\- ${(summary[0].toLowerCase() + summary.slice(1)).replace(/\.$/, '').replaceAll('-', '\\-')}`,
    '.SH SYNOPSIS',
    '.B callctl',
    '.I command',
    '[\\fIoptions\\fR]',
    '.SH DESCRIPTION',
    "The text of \\fBcallctl \\-\\-help\\fR, then of each command's \\fB\\-\\-help\\fR.",
    '.PP',
    verbatim(program),
    '.SH COMMANDS',
    ...commands.flatMap((key) => [`.SS "callctl ${key}"`, verbatim(pages[key])]),
    '.SH FILES',
    '.TP',
    '.I /etc/callctl/serve\\-hooks.env',
    'settings of the callctl\\-serve\\-hooks service (Debian package)',
    '.TP',
    '.I /var/lib/callctl',
    'state of the callctl\\-serve\\-hooks service: its event log',
    '',
  ].join('\n');
}

/** The man page of the build in dist/. */
export function manPageOfBuild() {
  const root = new URL('..', import.meta.url);
  const pages = JSON.parse(readFileSync(new URL('dist/help.json', root), 'utf8'));
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  return renderManPage(pages, version);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(manPageOfBuild());
