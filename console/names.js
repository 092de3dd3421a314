// Names beside ids: every principal and world object id a page shows is resolved in one
// request (GET /v1/external-actions/names) and remembered until the page is reloaded.
import { h, idCode } from './dom.js';

const PRINCIPAL = /^prn_[0-9A-Za-z]{10,40}$/;
const OBJECT = /^obj_[0-9A-Za-z]{10,40}$/;
/** The most ids of one kind the route answers at once. */
const BATCH = 100;

export function createNames(api) {
  /** id → name, or null once the API said it names nothing. */
  const known = new Map();

  /** Asks for the ids not known yet, `BATCH` of each kind per request. */
  async function resolve({ principals = [], objects = [] }) {
    const wanted = (ids, pattern) =>
      [...new Set(ids)].filter((id) => pattern.test(id ?? '') && !known.has(id));
    const p = wanted(principals, PRINCIPAL);
    const o = wanted(objects, OBJECT);
    while (p.length || o.length) {
      const ps = p.splice(0, BATCH);
      const os = o.splice(0, BATCH);
      const query = new URLSearchParams();
      if (ps.length) query.set('principal_ids', ps.join(','));
      if (os.length) query.set('object_ids', os.join(','));
      try {
        const found = await api('GET', `/v1/external-actions/names?${query}`);
        for (const id of [...ps, ...os]) known.set(id, null);
        for (const { principal_id, name } of found.principals) known.set(principal_id, name);
        for (const { object_id, name } of found.objects) known.set(object_id, name);
      } catch (error) {
        // Without names the page still works: it shows the ids alone. A refused key is not that.
        if (error.name === 'KeyRefused') throw error;
        return;
      }
    }
  }

  /** `Ada Ops prn_…`: the name, then the id (whole and copiable); the id alone when unknown. */
  function tag(id) {
    const name = known.get(id);
    if (!name) return idCode(id);
    return h('span', { class: 'named' }, h('span', { class: 'name' }, name), ' ', idCode(id));
  }

  return { resolve, tag, nameOf: (id) => known.get(id) ?? null };
}
