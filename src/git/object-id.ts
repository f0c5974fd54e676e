// What an object id looks like: 40 hex digits (SHA-1) or 64 (SHA-256), lower case, as git prints them.

export const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export function isObjectId(s: string): boolean {
  return OBJECT_ID.test(s);
}
