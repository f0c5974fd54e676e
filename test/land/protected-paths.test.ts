// The two pure rules of containment: which paths of a change are protected (ADR 0103), and
// which keys of a config loosen the sandbox against a trusted one (ADR 0104).
import { describe, expect, it } from 'vitest';
import { isProtectedGlob, matchesGlob, protectedPathsOf } from '../../src/repo/protected-paths.js';
import { looseningsOf } from '../../src/repo/config-loosening.js';

describe('protected paths', () => {
  it('the built-in rules cover abcd, CI, agent settings and instructions, and git attribute files, at the root only', () => {
    const changed = [
      '.abcd/config.json',
      '.abcd/items/other.md',
      '.github/workflows/ci.yml',
      '.gitlab-ci.yml',
      '.claude/settings.json',
      '.codex/config.toml',
      '.mcp.json',
      'AGENTS.md',
      'CLAUDE.md',
      '.gitmodules',
      '.gitattributes',
      '.husky/pre-commit',
      'src/index.ts',
      'docs/AGENTS.md',
      'src/.github/x',
      '.abcdx',
      'README.md',
    ];
    expect(protectedPathsOf(changed)).toEqual(
      [
        '.abcd/config.json',
        '.abcd/items/other.md',
        '.claude/settings.json',
        '.codex/config.toml',
        '.gitattributes',
        '.github/workflows/ci.yml',
        '.gitlab-ci.yml',
        '.gitmodules',
        '.husky/pre-commit',
        '.mcp.json',
        'AGENTS.md',
        'CLAUDE.md',
      ].sort(),
    );
  });

  it("the item's own done mark is exempt when the caller says so, and nothing else is", () => {
    expect(protectedPathsOf(['.abcd/items/one.md', '.abcd/items/two.md'], { exempt: '.abcd/items/one.md' })).toEqual([
      '.abcd/items/two.md',
    ]);
  });

  it("the person's globs add to the built-in ones; a glob the setting could not hold is ignored", () => {
    const extra = ['infra/**', 'Makefile', '*.nix', '**/secrets.yaml', '/etc/passwd', '../x'];
    expect(
      protectedPathsOf(['infra/a/b.tf', 'Makefile', 'flake.nix', 'sub/flake.nix', 'a/b/secrets.yaml', 'secrets.yaml', 'x'], { extra }),
    ).toEqual(['Makefile', 'a/b/secrets.yaml', 'flake.nix', 'infra/a/b.tf', 'secrets.yaml']);
    expect(isProtectedGlob('/etc/passwd')).toBe(false);
    expect(isProtectedGlob('a/../b')).toBe(false);
    expect(isProtectedGlob('a b')).toBe(false);
    expect(isProtectedGlob('src/**/*.sql')).toBe(true);
  });

  it('globs: * stays in a segment, ? is one character, ** spans segments, everything else is literal', () => {
    expect(matchesGlob('src/*.ts', 'src/a.ts')).toBe(true);
    expect(matchesGlob('src/*.ts', 'src/a/b.ts')).toBe(false);
    expect(matchesGlob('src/**/*.ts', 'src/a.ts')).toBe(true);
    expect(matchesGlob('src/**/*.ts', 'src/a/b/c.ts')).toBe(true);
    expect(matchesGlob('a?c', 'abc')).toBe(true);
    expect(matchesGlob('a?c', 'a/c')).toBe(false);
    expect(matchesGlob('a.(b)+', 'a.(b)+')).toBe(true);
    expect(matchesGlob('a.(b)+', 'aX(b)')).toBe(false);
    // A symlink named like the folder leads into another one; a path in another case is the same file on macOS.
    expect(matchesGlob('.github/**', '.github')).toBe(true);
    expect(matchesGlob('.github/**', '.githubx')).toBe(false);
    expect(protectedPathsOf(['.Claude/settings.json', 'agents.md', '.claude'])).toEqual(
      ['.claude', '.Claude/settings.json', 'agents.md'].sort(),
    );
  });
});

describe('config loosening', () => {
  const trusted = { land: { checks: 'npm test', env: ['CI'], network: false }, lanes: { bind: ['/opt/agent'], env: ['LANG'] } };

  it('names each key that widens what agents and checks may see or run', () => {
    const now = {
      land: { checks: 'true', sandbox: 'none' as const, env: ['CI', 'AWS_SECRET_ACCESS_KEY'] },
      lanes: {
        sandbox: 'none' as const,
        bind: ['/opt/agent', '~/.ssh'],
        env: ['LANG', 'ANTHROPIC_API_KEY'],
        claude: { env: ['X'] },
        codex: { env: ['Y'] },
      },
    };
    expect(looseningsOf(trusted, now, { checksJudged: true })).toEqual([
      'land.sandbox',
      'lanes.sandbox',
      'lanes.bind',
      'land.env',
      'lanes.env',
      'lanes.claude.env',
      'lanes.codex.env',
      'land.network',
      'land.checks',
    ]);
  });

  it('a host added to a check’s or a lane’s network allow-list is a loosening; the same list is not', () => {
    const base = { land: { network: { allow: ['registry.npmjs.org:443'] } }, lanes: { network: { allow: ['127.0.0.1:8080'] } } };
    expect(looseningsOf(base, base, { checksJudged: true })).toEqual([]);
    const wider = {
      land: { network: { allow: ['registry.npmjs.org:443', 'attacker.example:443'] } },
      lanes: { network: { allow: ['127.0.0.1:8080', '*.example.com:443'] } },
    };
    expect(looseningsOf(base, wider, { checksJudged: true })).toEqual(['land.network.allow', 'lanes.network.allow']);
  });

  it('tightening, or the same config written another way, is no loosening', () => {
    const tighter = { land: { checks: ['npm test'], env: [], network: false, sandbox: 'bwrap' as const }, lanes: { bind: [] } };
    expect(looseningsOf(trusted, tighter, { checksJudged: true })).toEqual([]);
  });

  it('without a trusted config the checks are not judged, every other key is against the defaults', () => {
    expect(looseningsOf({}, { land: { checks: 'npm test' } }, { checksJudged: false })).toEqual([]);
    expect(looseningsOf({}, { land: { checks: 'npm test', env: ['CI'] } }, { checksJudged: false })).toEqual(['land.env']);
  });
});
