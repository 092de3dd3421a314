import type { Db } from 'mongodb';
import type { ProjectListQuery } from '../domain/governance/schemas';
import type { ListFilter } from '../lib/schema';
import { tenantRecords, type TenantRecord } from './tenant-records';

/** A project inside an organization. */
export interface Project extends TenantRecord {
  organization_id: string;
  name: string;
  /** Lower-cased name; unique within the organization. */
  name_key: string;
}

/** Projects; an insert throws a duplicate-key error when the organization has that name. */
export const createProjectsRepo = (db: Db) =>
  tenantRecords<Project, ListFilter<ProjectListQuery>>(db.collection('projects'), {
    status: 'status',
    organization_id: 'organization_id',
  });

export type ProjectsRepo = ReturnType<typeof createProjectsRepo>;
