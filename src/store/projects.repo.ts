import type { ProjectListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import { newestByIdPage } from './paging';
import type { Db, Filter } from 'mongodb';
import type { TenantStatus } from './organizations.repo';

/** A project inside an organization. */
export interface Project {
  _id: string;
  organization_id: string;
  name: string;
  /** Lower-cased name; unique within the organization. */
  name_key: string;
  status: TenantStatus;
  created_at: string;
  updated_at: string;
}

/** Filters of the project listing. */
export type ProjectFilter = ListFilter<ProjectListQuery>;

export function createProjectsRepo(db: Db) {
  const col = db.collection<Project>('projects');
  return {
    findById: (id: string) => col.findOne({ _id: id }),
    /** Inserts; throws a duplicate-key error when the organization has a project of that name. */
    async insert(project: Project): Promise<Project> {
      await col.insertOne(project);
      return project;
    },
    /** Projects newest first (ULID `_id` descending), after `beforeId`; `limit + 1` rows. */
    list(filter: ProjectFilter, limit: number, beforeId?: string) {
      const query: Filter<Project> = {
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.organization_id ? { organization_id: filter.organization_id } : {}),
      };
      return newestByIdPage(col, query, limit, beforeId);
    },
    async setStatus(id: string, status: TenantStatus, now: string): Promise<void> {
      await col.updateOne({ _id: id }, { $set: { status, updated_at: now } });
    },
  };
}

export type ProjectsRepo = ReturnType<typeof createProjectsRepo>;
