import type { ParseArgsConfig } from 'node:util';
import type { Command } from './command.js';
import { UsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The word the shell scripts call back with; not listed in the help. */
export const COMPLETE_COMMAND = '__complete';

const BASH = `# bash completion for platform: source <(platform completion bash)
_platform_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(platform ${COMPLETE_COMMAND} "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _platform_complete platform
`;

const ZSH = `#compdef platform
# zsh completion for platform: source <(platform completion zsh), or save as _platform in $fpath
_platform() {
  local -a candidates
  candidates=("\${(@f)$(platform ${COMPLETE_COMMAND} "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -- \${candidates:#}
}
if [ "$funcstack[1]" = "_platform" ]; then
  _platform "$@"
else
  compdef _platform platform
fi
`;

/** The script of `platform completion bash|zsh`: the shell asks the CLI for the candidates. */
export function completionScript(shell: string | undefined): string {
  if (shell === 'bash') return BASH;
  if (shell === 'zsh') return ZSH;
  throw new UsageError('usage: platform completion bash|zsh');
}

function optionNames(options: Options): string[] {
  return Object.keys(options).map((name) => `--${name}`);
}

/** Whether `word` is an option that takes the next word as its value. */
function takesValue(word: string, options: Options): boolean {
  if (!word.startsWith('-') || word.includes('=')) return false;
  const name = word.startsWith('--')
    ? word.slice(2)
    : Object.keys(options).find((key) => options[key].short === word.slice(1));
  return name !== undefined && options[name]?.type === 'string';
}

/**
 * What may follow the words typed so far, the last of them being the word under the cursor:
 * the next word of a command, a command's options, or a value of `--output`.
 */
export function completions(
  typed: string[],
  commands: readonly Command[],
  globalOptions: Options,
): string[] {
  const current = typed.at(-1) ?? '';
  const before = typed.slice(0, -1);
  const all: Options = { ...globalOptions };
  for (const command of commands) Object.assign(all, command.options);
  const previous = before.at(-1);
  if (previous === '--output' || previous === '-o') return ['json', 'table'];
  const words: string[] = [];
  for (let index = 0; index < before.length; index++) {
    if (takesValue(before[index], all)) index++;
    else if (!before[index].startsWith('-')) words.push(before[index]);
  }
  const command = commands.find((candidate) => candidate.name === words.join(' '));
  const candidates = command
    ? optionNames({ ...globalOptions, ...command.options })
    : [
        ...new Set(
          commands
            .map((candidate) => candidate.name.split(' '))
            .filter((name) => words.every((word, index) => name[index] === word))
            .map((name) => name[words.length])
            .filter((word): word is string => word !== undefined),
        ),
      ];
  return candidates.filter((candidate) => candidate.startsWith(current));
}
