import type { AppInfra } from './infra';

/**
 * Every domain service, built once at start-up over the narrow dependencies each needs
 * (repositories, the Temporal gateway, caches, configuration values), never the raw
 * database. Handlers reach them as `deps.services.<area>`.
 */
export function buildServices(infra: AppInfra) {
  void infra;
  return {};
}

export type AppServices = ReturnType<typeof buildServices>;
