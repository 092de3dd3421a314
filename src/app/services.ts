import type { AppDeps } from './deps';

/**
 * Every domain service, built once at start-up over the narrow dependencies each needs
 * (repositories, the Temporal gateway, caches, configuration values), never the raw
 * database. Handlers reach them as `deps.services.<area>`.
 */
export function buildServices(infra: Omit<AppDeps, 'services'>) {
  void infra;
  return {};
}

export type AppServices = ReturnType<typeof buildServices>;
