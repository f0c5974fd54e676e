#!/usr/bin/env node
// A fleet under one team budget: H hosts, each in its own network namespace with its own
// machine folder, each running `abcd drain --lanes L` against one smart-HTTP remote whose team
// pool every cycle reserves from; the same N items drained by one host as the baseline. Reports
// landed items per minute and the coordination cost per landed item: HTTP round trips, pushes,
// ledger writes, and wall time. Checks that every item landed exactly once and that the ledger
// counted every cycle once.
//   sudo node bench/fleet.mjs                          (Linux, root, after npm run build)
//   node bench/fleet.mjs --hosts 4 --lanes 2 --items 40 (the defaults)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ABCD, abcd, cleanupAll, cloneFor, git, makeRemote, ms, NODE, run, sandbox, table } from './lib.mjs';

/** @import { Env } from './lib.mjs' */

const arg = (/** @type {string} */ name, /** @type {number} */ dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const HOSTS = arg('hosts', 4);
const LANES = arg('lanes', 2);
const ITEMS = arg('items', 40);
const RESERVE = 100;
const LEDGER_REF = 'refs/heads/abcd/budget/ledger';
const AGENT =
  `echo '{"tokens":${RESERVE}}' >> "$ABCD_USAGE"; ` +
  'f="out-$(printf %s "$ABCD_ITEM" | tr : -).txt"; echo "$ABCD_ITEM" > "$f" && git add "$f" && git commit -qm "agent: $ABCD_ITEM"';

// Node strips the harness's types when it loads it (a path tsc does not follow).
const { makeNetnsLab, netnsUnavailable } = await import(resolve(import.meta.dirname, '../test/harness/netns.ts'));
const { startHttpGitServer } = await import(resolve(import.meta.dirname, '../test/harness/http-server.ts'));

/**
 * A remote whose main holds the items, and the person's signed team pool on it.
 * @param {string} name
 */
function fleetRemote(name) {
  const { root, env } = sandbox(name);
  const bare = makeRemote(root, env);
  const seed = cloneFor(bare, join(root, 'owner'), env);
  mkdirSync(join(seed, '.abcd/items'), { recursive: true });
  for (let i = 0; i < ITEMS; i++)
    writeFileSync(join(seed, `.abcd/items/item-${i}.md`), `---\ntitle: item ${i}\nstatus: ready\n---\nbench\n`);
  writeFileSync(join(seed, '.abcd/config.json'), JSON.stringify({ lanes: { cycleReserve: RESERVE } }));
  git(seed, ['add', '.'], env);
  git(seed, ['commit', '-q', '-m', 'items'], env);
  git(seed, ['push', '-q', 'origin', 'main'], env);
  // The person: an ssh signing key their own allowed-signers list names (every host reads it).
  const key = join(root, 'owner-key');
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'owner', '-f', key]);
  const pub = run('cat', [`${key}.pub`])
    .stdout.trim()
    .split(/\s+/)
    .slice(0, 2)
    .join(' ');
  const configDir = join(env.HOME, '.config', 'abcd');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(configDir, 'allowed-signers'), `bench@example.com ${pub}\n`, { mode: 0o644 });
  git(seed, ['config', 'gpg.format', 'ssh'], env);
  git(seed, ['config', 'user.signingkey', key], env);
  // Far beyond what the items use: this measures the coordination, not the refusal.
  const set = abcd(seed, ['budget', 'set', String(RESERVE * ITEMS * 100), '--team', '--json'], env, { ok: [0, 1, 2, 3, 4, 5, 6, 7, 8] });
  if (set.code !== 0) throw new Error(`budget set --team failed: ${set.stdout}${set.stderr}`);
  return { root, env, bare };
}

/**
 * One drain as a process of namespace `ns`.
 * @param {string} ns
 * @param {string} cwd
 * @param {Env} env
 * @returns {Promise<{ code: number | null, stdout: string }>}
 */
function drainIn(ns, cwd, env) {
  return new Promise((done) => {
    const child = spawn('ip', ['netns', 'exec', ns, NODE, ABCD, 'drain', '--json', '--lanes', String(LANES), '--agent', AGENT], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('close', (code) => done({ code, stdout }));
  });
}

/** @param {number} hosts */
async function fleet(hosts) {
  const r = fleetRemote(`fleet-${hosts}`);
  const lab = await makeNetnsLab(hosts);
  const server = await startHttpGitServer({ root: dirname(r.bare), host: '0.0.0.0', netns: lab.server });
  try {
    const sessions = Array.from({ length: hosts }, (_, i) => {
      const dir = cloneFor(r.bare, join(r.root, `host-${i}`), r.env);
      git(dir, ['remote', 'set-url', 'origin', `http://${lab.serverAddress(i)}:${server.port}/${basename(r.bare)}`], r.env);
      return { dir, env: { ...r.env, ABCD_SESSION: `host-${i}`, ABCD_MACHINE_DIR: join(r.root, `machine-${i}`), ABCD_GATE_SLOTS: '4' } };
    });
    const before = (await server.requests()).length;
    const t0 = performance.now();
    const runs = await Promise.all(sessions.map((s, i) => drainIn(lab.hosts[i], s.dir, s.env)));
    const wallMs = performance.now() - t0;
    /** @type {{ method: string, path: string }[]} */
    const requests = (await server.requests()).slice(before);
    const subjects = git(r.bare, ['log', '--format=%B', 'main'], r.env)
      .stdout.split('\n')
      .filter((l) => /^(- )?agent: local:item:/.test(l));
    const items = new Set(subjects.map((l) => l.replace(/^- /, '')));
    const ledger = JSON.parse(git(r.bare, ['show', `${LEDGER_REF}:record.json`], r.env).stdout);
    const ledgerWrites = Number(git(r.bare, ['rev-list', '--count', LEDGER_REF], r.env).stdout.trim());
    const landed = items.size;
    return {
      hosts,
      codes: runs.map((x) => x.code).join(','),
      landed,
      once: subjects.length === landed && landed === ITEMS,
      ledgerOk: ledger.open.length === 0 && ledger.spent === ledger.settled * RESERVE,
      wallMs,
      perMinute: (landed / wallMs) * 60_000,
      roundTrips: requests.filter((q) => q.method === 'POST').length / landed,
      pushes: requests.filter((q) => q.method === 'POST' && q.path.endsWith('git-receive-pack')).length / landed,
      ledgerWrites: ledgerWrites / landed,
      msPerItem: (wallMs * hosts * LANES) / landed,
    };
  } finally {
    await server.stop();
    await lab.destroy();
  }
}

const why = await netnsUnavailable();
if (why) {
  console.log(`fleet bench skipped: ${why}`);
  process.exit(0);
}
try {
  const rows = [];
  for (const hosts of [1, HOSTS]) {
    const f = await fleet(hosts);
    rows.push([
      `${f.hosts} x ${LANES} lanes`,
      f.codes,
      `${f.landed}/${ITEMS}`,
      f.once ? 'yes' : '**NO**',
      f.ledgerOk ? 'yes' : '**NO**',
      ms(f.wallMs),
      f.perMinute.toFixed(1),
      f.roundTrips.toFixed(1),
      f.pushes.toFixed(1),
      f.ledgerWrites.toFixed(1),
      ms(f.msPerItem),
    ]);
  }
  console.log(
    table(
      [
        'fleet',
        'exit codes',
        'landed',
        'each once',
        'ledger counted once',
        'wall',
        'items/min',
        'HTTP round trips/item',
        'pushes/item',
        'ledger writes/item',
        'lane-time/item',
      ],
      rows,
    ),
  );
} finally {
  cleanupAll();
}
