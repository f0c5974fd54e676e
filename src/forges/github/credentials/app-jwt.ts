// The JSON Web Token a GitHub App signs with its private key to ask for an installation token
// (RS256, at most 10 minutes). node:crypto signs it; it takes GitHub's PKCS#1 PEM and PKCS#8 alike.
import { createPrivateKey, sign } from 'node:crypto';
import { UnsafeEnvironment } from '../../../core/refusals.js';

// GitHub refuses a JWT issued in its future: back-date by a minute for clock drift, as GitHub advises.
const BACKDATE_S = 60;
// GitHub's maximum lifetime is 10 minutes from issue; stay inside it after the back-dating.
const LIFETIME_S = 9 * 60;

export function signAppJwt(appId: number | string, privateKeyPem: string, nowMs: number): string {
  let key;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    // a single parse: the PEM text; whatever createPrivateKey could not read, the key is refused
    throw new UnsafeEnvironment(
      "the App's private key is not a PEM private key: download a new one from the App's settings page and run " +
        '"abcd setup-app --key-file <downloaded.pem>".',
      { reason: 'bad-key' },
    );
  }
  const iat = Math.floor(nowMs / 1000) - BACKDATE_S;
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat, exp: iat + LIFETIME_S, iss: Number(appId) })}`;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), key).toString('base64url')}`;
}
