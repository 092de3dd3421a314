import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, ReadPreference } from 'mongodb';
import {
  mongoClientOptions,
  mongoUriProblem,
  uriOptionNames,
} from '../../src/store/mongo-client-options';

// The options our clients are built with, as the installed driver reads them together with
// production URIs (docker-compose.yml's replica set; SRV, TLS, read preference, write concern). Nothing here connects: the driver parses in its constructor and resolves SRV
// records, reads CA files and dials only in `connect()`.

/** The driver's parsed options for `uri` with ours, as `connectMongo` builds the client. */
const parsed = (uri: string, onCommand?: (name: string) => void): MongoClient['options'] =>
  new MongoClient(uri, mongoClientOptions(uri, onCommand ? { onCommand } : {}).options).options;

describe('MongoDB client options', () => {
  let dir: string;
  let caFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gr-mongo-options-'));
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, 'not read before connect\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('applies our defaults to a plain URI', () => {
    const options = parsed('mongodb://127.0.0.1:27017/governed_runtime');
    expect(options).toMatchObject({
      serverSelectionTimeoutMS: 5000,
      connectTimeoutMS: 5000,
      maxPoolSize: 50,
      appName: 'governed-runtime',
      monitorCommands: false,
      retryWrites: true,
      retryReads: true,
      socketTimeoutMS: 0,
      directConnection: false,
    });
    expect(options.hosts.map(String)).toEqual(['127.0.0.1:27017']);
  });

  it("keeps docker-compose.yml's replica set", () => {
    const compose = readFileSync(join(__dirname, '../../docker-compose.yml'), 'utf8');
    const uri = /MONGODB_URI: (\S+)/.exec(compose)?.[1] ?? '';
    expect(mongoUriProblem(uri)).toBeUndefined();
    const options = parsed(uri);
    expect(options.replicaSet).toBe('rs0');
    expect(options.hosts).toHaveLength(3);
    expect(options.readPreference.mode).toBe(ReadPreference.PRIMARY);
  });

  it('keeps a replica set over TLS with its read preference, write concern and credentials', () => {
    const options = parsed(
      'mongodb://gr:s3cret@db-0.internal:27017,db-1.internal:27017,db-2.internal:27017/governed_runtime' +
        `?replicaSet=rs0&tls=true&tlsCAFile=${encodeURIComponent(caFile)}` +
        '&readPreference=primaryPreferred&w=majority&retryWrites=true&authSource=admin',
    );
    expect(options.hosts.map(String)).toEqual([
      'db-0.internal:27017',
      'db-1.internal:27017',
      'db-2.internal:27017',
    ]);
    expect(options).toMatchObject({ replicaSet: 'rs0', tls: true, tlsCAFile: caFile });
    expect(options.readPreference.mode).toBe(ReadPreference.PRIMARY_PREFERRED);
    expect(options.writeConcern?.w).toBe('majority');
    expect(options.credentials).toMatchObject({ username: 'gr', source: 'admin' });
    // Ours still apply beside the topology's.
    expect(options.serverSelectionTimeoutMS).toBe(5000);
  });

  it('keeps an SRV URI: TLS on by default, hosts resolved only at connect', () => {
    const options = parsed(
      'mongodb+srv://gr:s3cret@cluster0.example.net/governed_runtime?retryWrites=true&w=majority',
    );
    expect(options).toMatchObject({ srvHost: 'cluster0.example.net', tls: true });
    expect(options.writeConcern?.w).toBe('majority');
  });

  it("lets the URI's own value win over each of our defaults", () => {
    const options = parsed(
      'mongodb://127.0.0.1:27017/governed_runtime' +
        '?serverSelectionTimeoutMS=30000&MAXPOOLSIZE=200&appName=ops-console',
    );
    expect(options).toMatchObject({
      serverSelectionTimeoutMS: 30000,
      maxPoolSize: 200,
      appName: 'ops-console',
      connectTimeoutMS: 5000,
    });
    expect([...uriOptionNames('mongodb://h/db?A=1&b=2')]).toEqual(['a', 'b']);
    expect(uriOptionNames('mongodb://h/db').size).toBe(0);
  });

  it('counts commands through the connection class the driver still accepts', () => {
    const options = parsed('mongodb://127.0.0.1:27017/db', () => undefined);
    const { connectionType } = options as unknown as { connectionType?: { name: string } };
    expect(connectionType?.name).toBe('HookedConnection');
    expect(options.monitorCommands).toBe(false);
  });

  it('names what the driver refuses in a URI, and says to drop the removed legacy options', () => {
    expect(
      mongoUriProblem('mongodb://127.0.0.1:27017/governed_runtime?w=majority'),
    ).toBeUndefined();
    expect(mongoUriProblem('mongodb://h/db?noSuchOption=1')).toMatch(
      /nosuchoption.*not supported/i,
    );
    expect(mongoUriProblem('mongodb+srv://cluster0.example.net:27017/db')).toMatch(/port/i);
    expect(mongoUriProblem('mongodb://h/db?useNewUrlParser=true&useUnifiedTopology=true')).toMatch(
      /not supported.*driver 7 refuses them: remove them/,
    );
  });
});
