// Names for the temporary files abcd writes beside a file it replaces, without node:crypto:
// loading it only for a random name cost a read that hashes nothing (`status`) 13 M instructions.

let made = 0;

/**
 * A name part no other live process on this computer makes (its pid and a counter), with a
 * random tail (about 41 bits) against a process of another computer sharing the folder. Not a
 * secret: only unique, as the 48 random bits it replaces were.
 */
export function tempTag(): string {
  made += 1;
  return `${process.pid.toString(36)}-${made.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
