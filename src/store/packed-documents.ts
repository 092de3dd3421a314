import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { Binary, BSON, type Document } from 'mongodb';

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

/**
 * Packs a list of documents into one opaque binary value: BSON (so every value comes back
 * exactly as the driver would have stored it), deflated at level 1.
 *
 * Why: for documents nobody queries inside (the witness journal's payloads), FerretDB's cost
 * grows with the fields and bytes it converts, not with what the value means: one string
 * costs it several times less than the same payload as nested documents, and deflated
 * bytes less again. Compression runs on libuv's thread pool.
 */
export async function packDocuments(documents: Document[]): Promise<Binary> {
  const bson = BSON.serialize({ documents });
  return new Binary(await deflate(bson, { level: 1 }));
}

/** The documents `packDocuments` packed, in order. */
export async function unpackDocuments<T extends Document>(packed: Binary): Promise<T[]> {
  const bson = await inflate(packed.buffer);
  return (BSON.deserialize(bson) as { documents: T[] }).documents;
}
