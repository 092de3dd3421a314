import { ConfigError, loadConfig } from '../src/config';

const pepper = 'x'.repeat(40);

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ KEY_PEPPER: pepper });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      mongodbUri: 'mongodb://127.0.0.1:27017/governed_runtime',
      mongodbDb: 'governed_runtime',
      temporalAddress: '127.0.0.1:7233',
      temporalNamespace: 'default',
      taskQueue: 'governed-runtime',
      accessRequestLimitPerHour: 20,
    });
  });

  it.each([
    [{}, 'http://localhost:8080'],
    [{ HOST: '127.0.0.1', PORT: '9000' }, 'http://localhost:9000'],
    [{ HOST: '0.0.0.0' }, 'http://localhost:8080'],
    [{ HOST: '::' }, 'http://localhost:8080'],
    [{ HOST: 'api.internal' }, 'http://api.internal:8080'],
    [{ HOST: '10.1.2.3' }, 'http://10.1.2.3:8080'],
  ])('serves passkeys by default: %j is reached (and a relying party) at %s', (env, url) => {
    const config = loadConfig({ KEY_PEPPER: pepper, ...env });
    expect(config.publicBaseUrl).toBe(url);
    expect(config.webauthnRpId).toBe(new URL(url).hostname);
    expect(config.webauthnOrigins).toEqual([url]);
  });

  it('takes the relying party from PUBLIC_BASE_URL, and WEBAUTHN_* over it', () => {
    const base = { KEY_PEPPER: pepper, PUBLIC_BASE_URL: 'https://approvals.example.com/' };
    expect(loadConfig(base)).toMatchObject({
      publicBaseUrl: 'https://approvals.example.com',
      webauthnRpId: 'approvals.example.com',
      webauthnOrigins: ['https://approvals.example.com'],
    });
    expect(
      loadConfig({
        ...base,
        WEBAUTHN_RP_ID: 'example.com',
        WEBAUTHN_ORIGINS: 'https://a.example.com,https://b.example.com',
      }),
    ).toMatchObject({
      webauthnRpId: 'example.com',
      webauthnOrigins: ['https://a.example.com', 'https://b.example.com'],
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ MONGODB_URI: 'postgres://x' }, 'MONGODB_URI'],
    [{ ADMIN_API_KEY: 'short' }, 'ADMIN_API_KEY'],
    [{ TEMPORAL_ADDRESS: 'nohostport' }, 'TEMPORAL_ADDRESS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ])('names the bad variable in %j', (env, name) => {
    expect(() => loadConfig({ KEY_PEPPER: pepper, ...env })).toThrow(new RegExp(`${name}:`));
  });

  it('requires KEY_PEPPER', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/KEY_PEPPER/);
  });

  it('refuses a MONGODB_URI the MongoDB driver would refuse, naming the option', () => {
    expect(() =>
      loadConfig({ KEY_PEPPER: pepper, MONGODB_URI: 'mongodb://h:1/db?useNewUrlParser=true' }),
    ).toThrow(/MONGODB_URI: option usenewurlparser is not supported .*remove them/);
  });

  it('takes the database name from MONGODB_URI', () => {
    expect(
      loadConfig({ KEY_PEPPER: pepper, MONGODB_URI: 'mongodb://h:1/other_db?w=majority' })
        .mongodbDb,
    ).toBe('other_db');
  });
});
