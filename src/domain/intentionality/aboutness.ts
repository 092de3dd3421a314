import type { DomainInfra } from '../infra';
import { Invalid, notFound } from '../../lib/errors';
import { loadContext } from '../shared-contexts/records';
import { aboutnessOf, contextHeader } from '../shared-contexts/views';
import { inputsOf, type WitnessInput } from '../witnesses/inputs';
import { threadIdOf } from './threads';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** What a handle is about: objects, each with its weight and the records that link it. */
interface About {
  kind: string;
  read: WitnessInput[];
  links: { object_id: string; via: { kind: string; id: string } }[];
}

const HANDLE_KINDS = ['ses', 'act', 'tsk', 'evt', 'dep', 'obj'] as const;

/** The records a handle names, and the objects they refer to; null when it names nothing. */
async function resolve(deps: Deps, handle: string): Promise<About | null> {
  const prefix = handle.slice(0, 3);
  switch (prefix) {
    case 'obj': {
      const object = await deps.repos.worldObjects.findById(handle);
      return (
        object && {
          kind: 'object',
          read: [{ kind: 'object', id: object._id, version: object.version }],
          links: [{ object_id: object._id, via: { kind: 'object', id: object._id } }],
        }
      );
    }
    case 'act': {
      const action = await deps.repos.externalActions.findById(handle);
      const target = action?.target.world_object_ref;
      return (
        action && {
          kind: 'action',
          read: [{ kind: 'action', id: action._id, version: action.seq }],
          links: target ? [{ object_id: target, via: { kind: 'action', id: action._id } }] : [],
        }
      );
    }
    case 'tsk': {
      const task = await deps.repos.worldTasks.findById(handle);
      return (
        task && {
          kind: 'task',
          read: [{ kind: 'task', id: task._id, version: task.version }],
          links: task.object_refs.map((ref) => ({
            object_id: ref,
            via: { kind: 'task', id: task._id },
          })),
        }
      );
    }
    case 'evt': {
      const event = await deps.repos.externalEvents.findByEventId(handle);
      if (event) {
        const ref = event.world_object_ref;
        return {
          kind: 'event',
          read: [{ kind: 'event', id: event.event_id, version: 1 }],
          links: ref ? [{ object_id: ref, via: { kind: 'event', id: event.event_id } }] : [],
        };
      }
      const history = await deps.repos.worldHistory.findById(handle);
      if (!history) return null;
      const refs = new Set([
        ...(history.object_id ? [history.object_id] : []),
        ...(history.object_refs ?? []),
      ]);
      return {
        kind: 'history_event',
        read: [{ kind: 'history', id: history._id, version: 1 }],
        links: [...refs].map((ref) => ({
          object_id: ref,
          via: { kind: 'history', id: history._id },
        })),
      };
    }
    case 'ses': {
      const session = await deps.repos.sessions.findById(handle);
      if (!session) return null;
      const newest = await deps.repos.sessionSteps.newest(session._id);
      const objects = newest?.state.objects ?? [];
      return {
        kind: 'session',
        read: [
          { kind: 'session', id: session._id, version: 1 },
          ...(newest ? [{ kind: 'session_step', id: newest._id, version: 1 }] : []),
        ],
        links: objects.map((ref) => ({
          object_id: ref,
          via: { kind: 'session', id: session._id },
        })),
      };
    }
    case 'dep': {
      // A deployment runs a substrate; it refers to no world object.
      const deployment = await deps.repos.substrateDeployments.findById(handle);
      return (
        deployment && {
          kind: 'deployment',
          read: [{ kind: 'deployment', id: deployment._id, version: 1 }],
          links: [],
        }
      );
    }
    default:
      return null;
  }
}

/**
 * `GET /v1/aboutness?handle=`: what a record (or `ctx:<context_id>`) is about: world
 * objects with weights (their share of the links) and the records that make each link, and
 * each object's thread. 404 for a handle that names nothing, 422 for one of no known kind.
 */
export async function aboutness(deps: Deps, handle: string, now = new Date()) {
  if (handle.startsWith('ctx:')) {
    const records = await loadContext(deps, handle.slice(4));
    const about = aboutnessOf(records);
    await deps.repos.threads.register(
      about.objects.map((o) => ({
        thread_id: threadIdOf({ kind: 'object', id: o.object_id }),
        subject: { kind: 'object' as const, id: o.object_id },
      })),
    );
    return {
      ...contextHeader('aboutness', records, now),
      handle,
      kind: 'context',
      objects: about.objects.map((o) => ({
        object_id: o.object_id,
        weight: o.weight,
        thread_id: threadIdOf({ kind: 'object', id: o.object_id }),
        links: o.referrers,
      })),
    };
  }
  if (!(HANDLE_KINDS as readonly string[]).includes(handle.slice(0, 3))) {
    throw new Invalid([
      {
        loc: ['query', 'handle'],
        msg: `a handle is a record id of kind ${HANDLE_KINDS.map((k) => `${k}_`).join(', ')} or ctx:<context_id>`,
        type: 'value_error.handle',
      },
    ]);
  }
  const about = await resolve(deps, handle);
  if (!about) throw notFound(`record ${handle}`);
  const byObject = new Map<string, { kind: string; id: string }[]>();
  for (const link of about.links) {
    byObject.set(link.object_id, [...(byObject.get(link.object_id) ?? []), link.via]);
  }
  const total = about.links.length;
  const objects = [...byObject]
    .map(([object_id, links]) => ({
      object_id,
      weight: Math.round((links.length / total) * 1000) / 1000,
      thread_id: threadIdOf({ kind: 'object', id: object_id }),
      links,
    }))
    .sort((a, b) => b.weight - a.weight || a.object_id.localeCompare(b.object_id));
  await deps.repos.threads.register(
    objects.map((o) => ({ thread_id: o.thread_id, subject: { kind: 'object', id: o.object_id } })),
  );
  return {
    witness: 'aboutness',
    computed_at: now.toISOString(),
    window: { from: now.toISOString(), to: now.toISOString() },
    inputs: inputsOf(about.read),
    handle,
    kind: about.kind,
    objects,
  };
}
