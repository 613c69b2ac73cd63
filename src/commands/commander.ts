/**
 * commander, imported in one place: the command tree and the parsers use these. (The build
 * bundles it, so loading it costs no CommonJS export scan at start-up.)
 */
export { Argument, Command, Help, InvalidArgumentError, Option } from 'commander';
