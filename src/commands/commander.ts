/**
 * commander, imported in one place: the command tree and the parsers use these. Its typings are
 * commander's own @commander-js/extra-typings (at run time, commander's classes): a command's
 * `.opts()` and its action's arguments are inferred from its `.argument()`, `.option()` and
 * `.addOption()` declarations, so a verb's options type is proven by tsc, not cast. (The build
 * bundles it, so loading it costs no CommonJS export scan at start-up.)
 */
export { Argument, Command, Help, InvalidArgumentError, Option } from '@commander-js/extra-typings';
export type { CommandUnknownOpts, OptionValues } from '@commander-js/extra-typings';

/**
 * The flags tsc infers from a verb's declaration (what commander's `.opts()` returns): a function
 * that declares the command, such as `declare(parent) { return parent.command('x').option(...) }`.
 */
export type FlagsOf<D extends (...args: never[]) => { opts(): object }> = ReturnType<ReturnType<D>['opts']>;
