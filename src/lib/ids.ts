import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of server-issued ids (DESIGN.md section 4). */
export type IdPrefix =
  | 'ses'
  | 'obj'
  | 'rel'
  | 'tsk'
  | 'evt'
  | 'rec'
  | 'act'
  | 'dep'
  | 'art'
  | 'rep'
  | 'chk'
  | 'thr'
  | 'org'
  | 'prj'
  | 'prn'
  | 'pol'
  | 'aud'
  | 'req'
  | 'sev'
  | 'dec'
  | 'apr'
  | 'sub'
  | 'ntf'
  | 'asy'
  | 'prf'
  | 'scn'
  | 'dos';

const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * Cryptographic randomness for ULIDs from a refilled pool: the library's default asks the
 * OS for one byte per character, which showed up in the request path's profile.
 */
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++] / 0x100;
}

const nextUlid = monotonicFactory(pooledRandom);

/** A path-safe id: type prefix plus a ULID (time-ordered, 80 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
