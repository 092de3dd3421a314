import type { RouteDefinition } from '../../route';
import { approvalRuleRoutes } from './approval-rules.routes';
import { tenantResourceRoutes } from './control-plane.routes';
import { adminOpsRoutes } from './ops.routes';
import { subscriptionRoutes } from './subscriptions.routes';
import { summaryRoutes } from './summaries.routes';

/** The permanently private control plane and ops readouts (operator keys only). */
export const adminRoutes = (routes: () => readonly RouteDefinition[]): RouteDefinition[] => [
  ...summaryRoutes(routes),
  ...tenantResourceRoutes,
  ...approvalRuleRoutes,
  ...subscriptionRoutes,
  ...adminOpsRoutes,
];
