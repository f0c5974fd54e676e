// Gemini CLI's private home for one cycle. The CLI keeps its settings, its project list and the
// session a resume reads back under `<GEMINI_CLI_HOME>/.gemini`, and will not run with that
// folder read-only; the sandbox shows HOME read-only and hides a team's GEMINI_CLI_HOME (its
// settings may hold MCP servers' env and keys). So each cycle gets `<cycle>/gemini-home`,
// writable, kept for the cycle's resumes and gone with the cycle, holding only abcd's own
// settings: the API key as the way in (the CLI refuses to start headless without a chosen
// auth type) and nothing that calls home (usage statistics, telemetry, update checks).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The settings every lane's Gemini CLI runs with. */
export const GEMINI_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { disableAutoUpdate: true, disableUpdateNag: true },
} as const;

/** Makes `<cycleDir>/gemini-home` with abcd's settings; the folder GEMINI_CLI_HOME names. */
export async function makeGeminiHome(cycleDir: string): Promise<string> {
  const dir = join(cycleDir, 'gemini-home');
  await mkdir(join(dir, '.gemini'), { recursive: true, mode: 0o700 });
  await writeFile(join(dir, '.gemini', 'settings.json'), `${JSON.stringify(GEMINI_SETTINGS, null, 2)}\n`, { mode: 0o600 });
  return dir;
}
