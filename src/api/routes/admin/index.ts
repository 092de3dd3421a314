import type { RouteDefinition } from '../../route';
import { approvalRuleRoutes } from './approval-rules.routes';
import { tenantResourceRoutes } from './governance.routes';
import { adminOpsRoutes } from './operations.routes';
import { subscriptionRoutes } from './notifications.routes';
import { summaryRoutes } from './governance-summaries.routes';

/** The permanently private control plane and ops readouts (operator keys only). */
export const adminRoutes = (routes: () => readonly RouteDefinition[]): RouteDefinition[] => [
  ...summaryRoutes(routes),
  ...tenantResourceRoutes,
  ...approvalRuleRoutes,
  ...subscriptionRoutes,
  ...adminOpsRoutes,
];
