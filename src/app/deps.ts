import type { AppInfra } from './infra';

export type { AppInfra } from './infra';

/**
 * Everything the api needs, built once at start-up (`build-deps.ts`) and passed down
 * explicitly. Domain operations are plain functions that take only the part they use
 * (`Pick<AppInfra, 'repos' | …>`); docs/architecture.md says why there are no service objects.
 */
export type AppDeps = AppInfra;
