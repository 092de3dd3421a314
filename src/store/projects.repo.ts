import type { Collection, Db } from 'mongodb';
import type { TenantStatus } from './organizations.repo';

/** A project inside an organization. */
export interface Project {
  _id: string;
  organization_id: string;
  name: string;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
}

export type ProjectsRepo = ReturnType<typeof createProjectsRepo>;

export function createProjectsRepo(db: Db) {
  const col: Collection<Project> = db.collection<Project>('projects');
  return {
    collection: col,
    async ensureIndexes(): Promise<void> {
      await col.createIndex({ organization_id: 1, _id: -1 }, { name: 'by_organization' });
    },
    findById: (id: string) => col.findOne({ _id: id }),
  };
}
