import type { RouteDefinition } from '../../route';
import { meRoutes } from './me.routes';

/**
 * `/v1/principals/...`: what a key may learn about its own principal. One table per
 * concern (`me.routes.ts`: the calling key's identity); add a table beside it and list it here.
 */
export const principalsRoutes: RouteDefinition[] = [...meRoutes];
