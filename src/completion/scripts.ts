/**
 * Completion scripts: each asks `callctl __complete -- <words>` for the candidates, so that
 * commands, subcommands, flags and profile names always match the installed callctl.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function script(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# callctl completion for bash. Load with: source <(callctl completion bash)
_callctl_complete() {
  local IFS=$'\\n'
  COMPREPLY=( $(callctl __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _callctl_complete callctl
`;
    case 'zsh':
      // Autoloaded from fpath (the .deb's file), this file is the body of compinit's _callctl stub:
      // it defines _callctl and must then complete, or the first TAB of a shell completes nothing.
      return `#compdef callctl
# callctl completion for zsh. Load with: source <(callctl completion zsh)
# (after compinit), or save as _callctl in a folder of your fpath.
_callctl() {
  local -a candidates
  candidates=("\${(@f)$(callctl __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=(\${candidates:#})
  compadd -- "\${candidates[@]}"
}
if [[ \${funcstack[1]-} == _callctl ]]; then
  _callctl "$@"
elif (( \${+functions[compdef]} )); then
  compdef _callctl callctl
fi
`;
    case 'fish':
      return `# callctl completion for fish. Load with: callctl completion fish | source
complete -c callctl -f -a '(callctl __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`;
  }
}
