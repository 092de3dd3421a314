import type { Db, MongoClient } from 'mongodb';
import type { RateLimiter } from '../auth/rate-limiter';
import type { DomainInfra } from '../domain/infra';
import type { Tracing } from '../observability/tracing';

/**
 * What the api is built from: everything the domain operations use (`DomainInfra`), plus
 * the parts only the HTTP layer and the composition root touch.
 */
export interface AppInfra extends DomainInfra {
  mongo: MongoClient;
  db: Db;
  limiter: RateLimiter;
  /** Routes whose 2xx body was checked against its schema (`VALIDATE_RESPONSES`, tests). */
  checkedResponses: Set<string>;
  /** `<operationId> <status>` of every answer (`VALIDATE_RESPONSES`, tests), to prove each is documented. */
  answeredStatuses: Set<string>;
  /** OpenTelemetry traces (`OTEL_*`); undefined when off: no span is made anywhere. */
  tracing: Tracing | undefined;
}
