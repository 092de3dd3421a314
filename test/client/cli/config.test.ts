import { mkdtempSync, statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configPath,
  readConfigFile,
  resolveConnection,
  writeConfigFile,
} from '../../../packages/client/src/cli/config';

// Where gr finds its URL and key: flags, then GR_URL / GR_API_KEY, then a profile.

const home = () => mkdtempSync(join(tmpdir(), 'gr-config-'));

describe('configPath', () => {
  it('honours XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe(
      '/x/governed-runtime/config.json',
    );
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/governed-runtime/config.json');
  });
});

describe('resolveConnection', () => {
  const withProfiles = () => {
    const dir = home();
    writeConfigFile(configPath({ XDG_CONFIG_HOME: dir }), {
      current: 'ops',
      profiles: {
        ops: { url: 'http://ops', key: 'k-ops' },
        staging: { url: 'http://staging', key: 'k-staging' },
      },
    });
    return { XDG_CONFIG_HOME: dir };
  };

  it('takes each of URL and key from the first source that sets it', () => {
    const env = withProfiles();
    expect(resolveConnection({}, env)).toEqual({ url: 'http://ops', key: 'k-ops' });
    expect(resolveConnection({}, { ...env, GR_API_KEY: 'k-env' })).toEqual({
      url: 'http://ops',
      key: 'k-env',
    });
    expect(resolveConnection({ key: 'k-flag' }, { ...env, GR_API_KEY: 'k-env' })).toEqual({
      url: 'http://ops',
      key: 'k-flag',
    });
    expect(resolveConnection({ profile: 'staging' }, env)).toEqual({
      url: 'http://staging',
      key: 'k-staging',
    });
    expect(resolveConnection({}, { ...env, GR_PROFILE: 'staging' }).url).toBe('http://staging');
  });

  it('names what is missing', () => {
    const env = { XDG_CONFIG_HOME: home() };
    expect(() => resolveConnection({}, env)).toThrow('no service URL');
    expect(() => resolveConnection({ url: 'http://x' }, env)).toThrow('no API key');
    expect(() => resolveConnection({ profile: 'nope' }, withProfiles())).toThrow(
      /^no profile nope in /,
    );
  });

  it('refuses a config file that is not JSON, naming it', () => {
    const dir = home();
    const path = configPath({ XDG_CONFIG_HOME: dir });
    writeConfigFile(path, { profiles: {} });
    writeFileSync(path, '{ not json');
    expect(() => readConfigFile(path)).toThrow(`${path} is not valid JSON`);
  });
});

describe('writeConfigFile', () => {
  it('leaves the file 0600 and its folder 0700, also over a looser file', () => {
    const path = configPath({ XDG_CONFIG_HOME: home() });
    writeConfigFile(path, { profiles: {} });
    chmodSync(path, 0o644);
    writeConfigFile(path, { current: 'a', profiles: { a: { url: 'u', key: 'k' } } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ current: 'a' });
  });
});
