import { digestChars } from '../../lib/ids';
import type { Repos } from '../../store';

/** `obj_`/`evt_` ids of a run's fixture: the run's time, then a digest of run and name. */
function fixtureId(prefix: 'obj' | 'evt', runId: string, name: string): string {
  // A ULID's first 10 characters are its time.
  return `${prefix}_${runId.slice(4, 14)}${digestChars(`scenario/${runId}/${prefix}/${name}`, 16)}`;
}

/**
 * A world object the run owns (version 1, with its `object.created` history event), written
 * once under an id derived from the run and the name, so a retried step finds it again.
 * No public route creates world objects; the run's actions on it all go through the api.
 */
export async function seedScenarioObject(
  repos: Pick<Repos, 'worldObjects' | 'worldHistory'>,
  runId: string,
  name: string,
  attributes: Record<string, unknown>,
): Promise<string> {
  const now = new Date().toISOString();
  const id = fixtureId('obj', runId, name);
  await repos.worldObjects.insertOnce({
    _id: id,
    kind: 'document',
    name,
    attributes,
    external_state: {},
    version: 1,
    created_at: now,
    updated_at: now,
  });
  await repos.worldHistory.insertOnce({
    _id: fixtureId('evt', runId, name),
    kind: 'object.created',
    object_id: id,
    at: now,
    change: { after: { kind: 'document', name, attributes }, version: 1 },
  });
  return id;
}
