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
  | 'sev';

const nextUlid = monotonicFactory();

/** A path-safe id: type prefix plus a ULID (time-ordered, 80 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
