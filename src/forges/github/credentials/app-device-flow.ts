// The device flow that gives abcd the person's first token pair: GitHub shows the person a code
// page, abcd polls until they approve. abcd runs the loop itself rather than through
// @octokit/auth-oauth-device, whose loop has no deadline of its own (every wait of abcd ends by a stated time), forgets a
// slow_down after one poll and sleeps on the real clock, which tests could not drive.
import type { Clock } from '../../../core/deps.js';
import { DeadlineReached, UnsafeEnvironment } from '../../../core/refusals.js';
import { callTokenEndpoint, oauthError, oauthRefusal, tokenGarbage } from './token-http.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
// RFC 8628 §3.5: on slow_down the interval grows by 5 s for this and every later poll.
const SLOW_DOWN_STEP_S = 5;
// GitHub's documented default when the answer omits an interval.
const DEFAULT_INTERVAL_S = 5;

export interface DeviceCode {
  userCode: string;
  verificationUri: string;
  /** When the code stops working (ms since the epoch): the wait's own deadline. */
  expiresAt: number;
}

export interface DevicePair {
  token: string;
  expiresAt: number;
  refreshToken: string;
  refreshTokenExpiresAt?: number;
}

export interface DeviceFlowInput {
  webUrl: string;
  clientId: string;
  clock: Clock;
  /** Shows the person the code and where to enter it; called once, before polling. */
  onCode(code: DeviceCode): void;
  httpTimeoutMs?: number;
}

export async function runDeviceFlow(input: DeviceFlowInput): Promise<DevicePair> {
  const { clock } = input;
  const post = (path: string, body: Record<string, string>, call: string) =>
    callTokenEndpoint({
      base: input.webUrl,
      method: 'POST',
      path,
      call,
      // Nothing is spent by a lost answer: a device code or a poll is simply asked again.
      write: false,
      body,
      clock,
      ...(input.httpTimeoutMs ? { timeoutMs: input.httpTimeoutMs } : {}),
    });
  const startCall = 'asking GitHub for a device code (POST /login/device/code)';
  const start = await post('/login/device/code', { client_id: input.clientId }, startCall);
  const startErr = oauthError(start);
  if (startErr) throw oauthRefusal(startCall, startErr);
  const { device_code, user_code, verification_uri, expires_in } = start;
  if (
    typeof device_code !== 'string' ||
    typeof user_code !== 'string' ||
    typeof verification_uri !== 'string' ||
    typeof expires_in !== 'number'
  ) {
    throw tokenGarbage(startCall, 'a device code, user code, verification URL and expiry', false);
  }
  const startedAt = clock.now();
  const deadline = startedAt + expires_in * 1000;
  let intervalS = typeof start.interval === 'number' && start.interval > 0 ? start.interval : DEFAULT_INTERVAL_S;
  input.onCode({ userCode: user_code, verificationUri: verification_uri, expiresAt: deadline });

  const pollCall = "polling for the person's approval (POST /login/oauth/access_token)";
  for (;;) {
    if (clock.now() + intervalS * 1000 > deadline) break;
    await clock.sleep(intervalS * 1000);
    const r = await post('/login/oauth/access_token', { client_id: input.clientId, device_code, grant_type: DEVICE_GRANT }, pollCall);
    const err = oauthError(r);
    if (err === 'authorization_pending') continue;
    if (err === 'slow_down') {
      intervalS = typeof r.interval === 'number' && r.interval > intervalS ? r.interval : intervalS + SLOW_DOWN_STEP_S;
      continue;
    }
    if (err === 'expired_token') break;
    if (err === 'access_denied') {
      throw new UnsafeEnvironment('the person declined to authorize abcd on GitHub; run "abcd setup-app" again to retry.', {
        reason: 'access-denied',
      });
    }
    if (err !== undefined) throw oauthRefusal(pollCall, err);
    return toPair(r, clock.now(), pollCall);
  }
  const waitedMs = clock.now() - startedAt;
  throw new DeadlineReached(
    `nobody entered the code ${user_code} at ${verification_uri} before it expired (${expires_in} s); ` +
      'run "abcd setup-app" again for a new code.',
    { waitedOn: 'device-flow-authorization', waitedMs, deadlineMs: expires_in * 1000 },
  );
}

function toPair(r: Record<string, unknown>, now: number, call: string): DevicePair {
  const { access_token, expires_in, refresh_token, refresh_token_expires_in } = r;
  if (typeof access_token !== 'string' || access_token === '') throw tokenGarbage(call, 'an access token', false);
  if (typeof refresh_token !== 'string' || typeof expires_in !== 'number') {
    throw new UnsafeEnvironment(
      'GitHub gave a token that never expires and no refresh token: turn on "Expire user authorization tokens" ' +
        'in the App\'s settings (Optional features), then run "abcd setup-app" again.',
      { reason: 'expiry-off' },
    );
  }
  const pair: DevicePair = { token: access_token, expiresAt: now + expires_in * 1000, refreshToken: refresh_token };
  if (typeof refresh_token_expires_in === 'number') pair.refreshTokenExpiresAt = now + refresh_token_expires_in * 1000;
  return pair;
}
