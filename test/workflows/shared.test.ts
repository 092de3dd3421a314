import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/shared';

describe('search attributes', () => {
  it('are the ones scripts/servers.sh registers (temporal/search-attributes.txt)', () => {
    const registered = readFileSync(
      join(__dirname, '..', '..', 'temporal', 'search-attributes.txt'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean);
    expect([...SEARCH_ATTRIBUTES].sort()).toEqual(registered.sort());
    expect(registered).not.toContain('Status');
  });
});
