import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { createLedgerSeal, ledgerSealSeed } from './domain/external-actions/ledger-seal';
import { sealedRecordsOf } from './domain/record-integrity';
import { sealExistingRecords } from './domain/seal-existing-records';
import { createAuditSeal } from './domain/governance/audit-seal';
import { connectMongo } from './store/mongo';

/**
 * `npm run seal-records`: seals, once, the records and ledger entries written before sealing
 * existed, with the api's configuration (the same environment: its database, its keys), and
 * appends a signed manifest beside the ledger checkpoints (docs/proofs.md, "Sealing what
 * came before"). Idempotent: a second run seals nothing new. Exits 1 when it refused
 * anything, listing what and why.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: 'info', base: { service: 'seal-records' } });
  const { client, db } = await connectMongo(config.mongodbUri, config.mongodbDb);
  try {
    const report = await sealExistingRecords({
      db,
      database: config.mongodbDb,
      sealed: sealedRecordsOf(config, (event) => logger.warn(event.detail, event.message)),
      ledgerSeal: createLedgerSeal({
        seed: ledgerSealSeed(config),
        acceptedKeys: config.ledgerSealVerifyKeys,
        checkpointDir: config.ledgerCheckpointDir,
        database: config.mongodbDb,
      }),
      auditSeal: createAuditSeal({
        seed: ledgerSealSeed(config),
        acceptedKeys: config.ledgerSealVerifyKeys,
        checkpointDir: config.ledgerCheckpointDir,
        database: config.mongodbDb,
      }),
      manifestDir: config.ledgerCheckpointDir,
    });
    for (const [collection, ids] of Object.entries(report.sealed)) {
      console.log(`sealed ${ids.length} in ${collection}`);
    }
    for (const refusal of report.refused) {
      console.log(`refused ${refusal.collection} ${refusal.record_id}: ${refusal.problem}`);
    }
    console.log(
      `manifest: ${config.ledgerCheckpointDir}/${config.mongodbDb}.seal-manifest.jsonl` +
        ` (signed by ledger key ${report.ledger_key_id.slice(0, 16)}…)`,
    );
    process.exitCode = report.refused.length > 0 ? 1 : 0;
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(2);
});
