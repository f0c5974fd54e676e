// Shell completion scripts, made from the command table so they never drift from it.
import yargs from 'yargs';
import type { Command } from './command.js';

interface VerbWords {
  name: string;
  describe: string;
  options: string[];
}

/** Each verb's name and the options its builder declares (plus the ones every verb takes). */
function readVerbs(commands: readonly Command[]): VerbWords[] {
  return commands.map((c: Command) => {
    const declared = Object.keys((c.builder(yargs([])) as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
    const positionals = new Set(
      String(c.command)
        .split(' ')
        .slice(1)
        .map((w) => w.replace(/[<>[\].]/g, '')),
    );
    const options = [...new Set([...declared, 'json', 'help', ...(c.usesRemote ? ['remote'] : [])])]
      .filter((o) => !positionals.has(o))
      // yargs also lists camelCase aliases and its own keys: offer only the spelled-out options.
      .filter((o) => o.length > 1 && !/[A-Z]/.test(o) && o !== 'version' && o !== '$0')
      .map((o) => `--${o}`);
    return { name: String(c.command).split(' ')[0]!, describe: c.describe, options };
  });
}

export async function completionScript(shell: 'bash' | 'zsh', commands: readonly Command[]): Promise<string> {
  const verbs = readVerbs(commands);
  return shell === 'bash' ? bash(verbs) : zsh(verbs);
}

function bash(verbs: VerbWords[]): string {
  const cases = verbs.map((v) => `    ${v.name}) opts="${v.options.join(' ')}" ;;`).join('\n');
  return `# abcd completion for bash: source <(abcd completion bash)
_abcd() {
  local cur opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${verbs.map((v) => v.name).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); fi
}
complete -o default -F _abcd abcd
`;
}

function zsh(verbs: VerbWords[]): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  // _describe splits name from description at the first unescaped colon.
  const list = verbs.map((v) => `    ${quote(`${v.name}:${v.describe.replace(/:/g, '\\:')}`)}`).join('\n');
  const cases = verbs.map((v) => `    ${v.name}) opts=(${v.options.join(' ')}) ;;`).join('\n');
  return `#compdef abcd
# abcd completion for zsh: abcd completion zsh > "\${fpath[1]}/_abcd", or source <(abcd completion zsh)
_abcd() {
  local -a verbs opts
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
  if [[ $PREFIX == -* ]]; then compadd -- $opts; else _files; fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _abcd "$@"; else compdef _abcd abcd; fi
`;
}
