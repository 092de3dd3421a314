import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/shared.contract';

const repo = join(__dirname, '..', '..');

describe('search attributes', () => {
  const registered = readFileSync(join(repo, 'temporal', 'search-attributes.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/) as [string, string]);

  it('are the ones scripts/servers.sh registers (temporal/search-attributes.txt), with their types', () => {
    expect(Object.fromEntries(registered)).toEqual(SEARCH_ATTRIBUTES);
    expect(registered.map(([name]) => name)).not.toContain('Status');
  });

  it('are the ones docker-compose.yml registers', () => {
    const compose = readFileSync(join(repo, 'docker-compose.yml'), 'utf8');
    for (const [name, type] of registered) expect(compose).toContain(`${name}:${type}`);
  });
});
