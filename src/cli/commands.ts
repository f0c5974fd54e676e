// The table of every verb, in the order help lists them.
import type { Command } from './command.js';
import { reserve } from './commands/reserve.js';
import { renew } from './commands/renew.js';
import { release } from './commands/release.js';
import { push } from './commands/push.js';
import { land } from './commands/land.js';
import { review } from './commands/review.js';
import { status } from './commands/status.js';
import { settings } from './commands/settings.js';
import { init } from './commands/init.js';
import { checkLogin } from './commands/check-login.js';
import { gate } from './commands/gate.js';
import { setupApp } from './commands/setup-app.js';
import { credential } from './commands/credential.js';
import { prime } from './commands/prime.js';
import { announce } from './commands/announce.js';
import { schema } from './commands/schema.js';
import { completion } from './commands/completion.js';
import { build } from './commands/build.js';
import { drain } from './commands/drain.js';
import { items } from './commands/items.js';
import { budget } from './commands/budget.js';
import { steer } from './commands/steer.js';
import { logs } from './commands/logs.js';
import { serve } from './commands/serve.js';

/**
 * Every verb, in the order `abcd --help` lists them: an agent's verbs first, in the order an
 * agent uses them (`abcd prime` lists them so), then the person's. One line per verb.
 */
export const commands: readonly Command[] = [
  reserve,
  renew,
  push,
  land,
  release,
  announce,
  status,
  gate,
  prime,
  schema,
  build,
  drain,
  steer,
  logs,
  serve,
  items,
  review,
  budget,
  settings,
  init,
  checkLogin,
  setupApp,
  completion,
  credential,
];
