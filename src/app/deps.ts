import type { AppInfra } from './infra';
import type { AppServices } from './services';

export type { AppInfra } from './infra';

/** Everything the api needs, built once at start-up and passed down explicitly. */
export interface AppDeps extends AppInfra {
  /** The domain services (src/app/services.ts). */
  services: AppServices;
}
