// Shell completion scripts, made from the command table so they never drift from it.
import type { Command } from './command.js';
import { optionsOf } from './verb-options.js';

interface VerbWords {
  name: string;
  describe: string;
  options: string[];
  /** Whether its first argument is an item: completed with the slugs this clone knows. */
  item: boolean;
}

/** Each verb's name and the options it takes. */
function readVerbs(commands: readonly Command[]): VerbWords[] {
  return commands.map((c: Command) => {
    const words = String(c.command).split(' ');
    return { name: words[0]!, describe: c.describe, options: optionsOf(c), item: /^[<[]item[\]>]$/.test(words[1] ?? '') };
  });
}

export async function completionScript(shell: 'bash' | 'zsh', commands: readonly Command[]): Promise<string> {
  const verbs = readVerbs(commands);
  return shell === 'bash' ? bash(verbs) : zsh(verbs);
}

function bash(verbs: VerbWords[]): string {
  const cases = verbs.map((v) => `    ${v.name}) opts="${v.options.join(' ')}"; item=${v.item ? 1 : 0} ;;`).join('\n');
  return `# abcd completion for bash: source <(abcd completion bash)
_abcd() {
  local cur opts item
  cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${verbs.map((v) => v.name).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) opts=""; item=0 ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [ "$COMP_CWORD" -eq 2 ] && [ "$item" -eq 1 ]; then
    # The slugs this clone already knows (abcd reads its own cache: no network); never file names.
    compopt +o default 2>/dev/null
    COMPREPLY=($(compgen -W "$(abcd completion --items 2>/dev/null)" -- "$cur"))
  fi
}
complete -o default -F _abcd abcd
`;
}

function zsh(verbs: VerbWords[]): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // _describe splits name from description at the first unescaped colon.
  const list = verbs.map((v) => `    ${quote(`${v.name}:${v.describe.replace(/:/g, '\\:')}`)}`).join('\n');
  const cases = verbs.map((v) => `    ${v.name}) opts=(${v.options.join(' ')}); item=${v.item ? 1 : 0} ;;`).join('\n');
  return `#compdef abcd
# abcd completion for zsh: abcd completion zsh > "\${fpath[1]}/_abcd", or source <(abcd completion zsh)
_abcd() {
  local -a verbs opts
  local item=0
  verbs=(
${list}
  )
  if (( CURRENT == 2 )); then
    _describe 'verb' verbs
    return
  fi
  case $words[2] in
${cases}
  esac
  if [[ $PREFIX == -* ]]; then compadd -- $opts
  elif (( CURRENT == 3 && item )); then compadd -- \${(f)"$(abcd completion --items 2>/dev/null)"}
  else _files; fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _abcd "$@"; else compdef _abcd abcd; fi
`;
}
