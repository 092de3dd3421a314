import { ledgerCursor } from '../../lib/cursor';
import type { DomainInfra } from '../infra';
import type {
  LedgerPosition,
  RequestLedgerFilter,
  RequestLedgerRow,
} from '../../store/request-ledger.repo';
import { normalizeRange } from './periods';

export type RequestListQuery = RequestLedgerFilter & { limit?: number; cursor?: string };

/** The ledger's cursor: `<at>~<bucket>~<index>` (`ledgerCursor`). */
export const encodeLedgerCursor = (position: LedgerPosition): string =>
  ledgerCursor.encode(position);

export const decodeLedgerCursor = (cursor: string): LedgerPosition => ledgerCursor.decode(cursor);

const rowView = (row: RequestLedgerRow) => ({
  request_id: row.request_id,
  at: row.at,
  method: row.method,
  route: row.route,
  operation_id: row.operation_id,
  family: row.family,
  status: row.status,
  latency_ms: row.latency_ms,
  key_id: row.key_id,
  principal_id: row.principal_id,
  client_ip: row.client_ip,
  error_code: row.error_code,
});

/**
 * `GET /v1/admin/requests`: ledger rows newest first (see `RequestLedgerRepo.page` for the
 * merge across buckets). Rows reach the store one flush after they are answered
 * (`REQUEST_LEDGER_FLUSH_MS`); a page may be short with a non-null cursor when it stopped
 * at its unpacking budget, so clients page until `next_cursor` is null.
 */
export async function listRequests(deps: Pick<DomainInfra, 'repos'>, query: RequestListQuery) {
  const { limit = 50, cursor, ...filter } = normalizeRange(query);
  const after = cursor ? decodeLedgerCursor(cursor) : undefined;
  const page = await deps.repos.requestLedger.page(filter, limit, after);
  return {
    items: page.items.map(rowView),
    next_cursor: page.next ? encodeLedgerCursor(page.next) : null,
  };
}
