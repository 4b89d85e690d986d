/**
 * Shell completion scripts for `pkg completion <shell>`: commands and their flags are written
 * into the script from the command list; package names come, when completing, from
 * `pkg completion --packages` (the names in the manifest of the project around the directory).
 */
export interface CompletionCommand {
  name: string;
  summary: string;
  flags: string[];
  /** Its arguments are package names (completed from the project's manifest). */
  takesPackages: boolean;
  /** Fixed values of its first argument. */
  values?: readonly string[];
}

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

const GLOBAL_FLAGS = ['--help', '--version'];

function quoteSingle(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function bash(commands: CompletionCommand[]): string {
  const flagCases = commands.map((c) => `      ${c.name}) flags=${quoteSingle(c.flags.join(' '))} ;;`).join('\n');
  const packageCommands = commands
    .filter((c) => c.takesPackages)
    .map((c) => c.name)
    .join('|');
  const valueCases = commands
    .filter((c) => c.values)
    .map((c) => `    ${c.name}) COMPREPLY=($(compgen -W ${quoteSingle(c.values!.join(' '))} -- "$cur")) ;;`)
    .join('\n');
  return `# pkg completion for bash. Install: add to ~/.bashrc
#   eval "$(pkg completion bash)"
_pkg_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W ${quoteSingle([...commands.map((c) => c.name), ...GLOBAL_FLAGS].join(' '))} -- "$cur"))
    return
  fi
  local command="\${COMP_WORDS[1]}" flags=''
  if [[ "$cur" == -* ]]; then
    case "$command" in
${flagCases}
    esac
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  case "$command" in
    ${packageCommands}) COMPREPLY=($(compgen -W "$(pkg completion --packages 2>/dev/null)" -- "$cur")) ;;
${valueCases}
  esac
}
complete -o default -F _pkg_completion pkg
`;
}

function zsh(commands: CompletionCommand[]): string {
  const described = commands.map((c) => `    ${quoteSingle(`${c.name}:${c.summary.replace(/:/g, '\\:')}`)}`).join('\n');
  const flagCases = commands.map((c) => `      ${c.name}) compadd -- ${c.flags.join(' ')} ;;`).join('\n');
  const packageCommands = commands
    .filter((c) => c.takesPackages)
    .map((c) => c.name)
    .join('|');
  const valueCases = commands
    .filter((c) => c.values)
    .map((c) => `    ${c.name}) compadd -- ${c.values!.join(' ')} ;;`)
    .join('\n');
  return `#compdef pkg
# pkg completion for zsh. Install: add to ~/.zshrc (after compinit)
#   source <(pkg completion zsh)
_pkg() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local command=\${words[2]}
  if [[ \${words[CURRENT]} == -* ]]; then
    case $command in
${flagCases}
    esac
    return
  fi
  case $command in
    ${packageCommands}) compadd -- \${(f)"$(pkg completion --packages 2>/dev/null)"} ;;
${valueCases}
  esac
}
compdef _pkg pkg
`;
}

function fish(commands: CompletionCommand[]): string {
  const lines = [
    '# pkg completion for fish. Install:',
    '#   pkg completion fish > ~/.config/fish/completions/pkg.fish',
    'complete -c pkg -f',
  ];
  for (const c of commands) {
    lines.push(`complete -c pkg -n __fish_use_subcommand -a ${c.name} -d ${quoteSingle(c.summary)}`);
    for (const flag of c.flags)
      lines.push(`complete -c pkg -n '__fish_seen_subcommand_from ${c.name}' -l ${flag.replace(/^--/, '')}`);
    if (c.values) lines.push(`complete -c pkg -n '__fish_seen_subcommand_from ${c.name}' -a ${quoteSingle(c.values.join(' '))}`);
  }
  const packageCommands = commands
    .filter((c) => c.takesPackages)
    .map((c) => c.name)
    .join(' ');
  lines.push(`complete -c pkg -n '__fish_seen_subcommand_from ${packageCommands}' -a '(pkg completion --packages 2>/dev/null)'`);
  return `${lines.join('\n')}\n`;
}

function powershell(commands: CompletionCommand[]): string {
  const table = commands.map((c) => `    '${c.name}' = @(${c.flags.map((f) => `'${f}'`).join(', ')})`).join('\n');
  const packageCommands = commands
    .filter((c) => c.takesPackages)
    .map((c) => `'${c.name}'`)
    .join(', ');
  const values = commands
    .filter((c) => c.values)
    .map((c) => `    '${c.name}' = @(${c.values!.map((v) => `'${v}'`).join(', ')})`)
    .join('\n');
  return `# pkg completion for PowerShell. Install: add to $PROFILE
#   pkg completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName pkg -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $flags = @{
${table}
  }
  $values = @{
${values}
  }
  $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
  if ($words.Count -le 1 -or ($words.Count -eq 2 -and $wordToComplete -ne '')) {
    $candidates = @($flags.Keys) + @(${GLOBAL_FLAGS.map((f) => `'${f}'`).join(', ')})
  } else {
    $command = $words[1]
    if ($wordToComplete -like '-*') { $candidates = $flags[$command] }
    elseif (@(${packageCommands}) -contains $command) { $candidates = @(pkg completion --packages 2>$null) }
    else { $candidates = $values[$command] }
  }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | Sort-Object | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`;
}

export function completionScript(shell: Shell, commands: CompletionCommand[]): string {
  switch (shell) {
    case 'bash':
      return bash(commands);
    case 'zsh':
      return zsh(commands);
    case 'fish':
      return fish(commands);
    case 'powershell':
      return powershell(commands);
  }
}
