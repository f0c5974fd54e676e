// The agent command's program is its first word as the shell reads it: quotes and backslashes
// removed, NAME=value prefixes skipped, and nothing guessed for a word only the shell can expand.
import { describe, expect, it } from 'vitest';
import { firstWord } from '../../src/machine/sandbox/program.js';

describe('the first word of an agent command, read as the shell would', () => {
  it.each([
    ['claude -p', 'claude'],
    ['"/path with space/node" -e "x"', '/path with space/node'],
    ["'/a b/c' x", '/a b/c'],
    ['/a\\ b/c x', '/a b/c'],
    ['"/a/\\"q\\"/node" x', '/a/"q"/node'],
    ['FOO="a b" BAR=1 claude -p', 'claude'],
    ['a"b c"d e', 'ab cd'],
    ['node;echo x', 'node'],
    ['./agent.sh --go', './agent.sh'],
    ['"cd" x', 'cd'],
  ])('%s starts %s', (command, word) => {
    expect(firstWord(command)).toBe(word);
  });

  it.each([
    ['exit 1'],
    ['cd sub && ./x'],
    ['(cd x)'],
    ['$HOME/bin/agent'],
    ['"$AGENT" -p'],
    ['`which claude`'],
    ['~/bin/agent'],
    ['ag*nt'],
    ['"unterminated'],
    ["'unterminated"],
    ['< in agent'],
    ['# a comment'],
    [''],
    ['echo built > out.txt'],
    ['printf "%s" x > y'],
    ['get() { curl -sS "$1"; }\nget http://x/'],
    ['run () { ./agent; }; run'],
  ])('%s names no program abcd can find before the shell runs', (command) => {
    expect(firstWord(command)).toBeUndefined();
  });
});
