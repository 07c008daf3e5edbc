import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import yauzl from "yauzl";

/**
 * A report attachment's XML (docs/adr/0809): `application/gzip` (.xml.gz),
 * `application/zip` (.zip holding one .xml) or plain XML. Decompression is
 * zlib's, on libuv's thread pool (off the event loop), with `maxOutputLength`
 * so that a bomb stops at the cap instead of filling memory; a zip is read by
 * yauzl (maintained; its inflate is zlib's too), one entry, nothing else.
 */

export interface UnpackLimits {
  /** The attachment as received (after its transfer encoding). */
  maxCompressedBytes: number;
  /** The XML after decompression. */
  maxXmlBytes: number;
}

export const UNPACK_LIMITS: UnpackLimits = { maxCompressedBytes: 5 * 1024 * 1024, maxXmlBytes: 10 * 1024 * 1024 };

export type AttachmentKind = "gzip" | "zip" | "xml";

export class UnpackError extends Error {}

const gunzipAsync = promisify(gunzip);

/** The kind of a MIME part by its type or file name; undefined when it is not a report attachment. */
export function attachmentKindOf(contentType: string, filename: string): AttachmentKind | undefined {
  const type = contentType.toLowerCase();
  const name = filename.toLowerCase();
  if (type === "application/gzip" || type === "application/x-gzip" || name.endsWith(".gz")) return "gzip";
  if (type === "application/zip" || type === "application/x-zip-compressed" || name.endsWith(".zip")) return "zip";
  if (type === "text/xml" || type === "application/xml" || name.endsWith(".xml")) return "xml";
  // Some reporters send application/octet-stream with the right name only: covered by the names above.
  return undefined;
}

const tooBig = (limits: UnpackLimits) => new UnpackError(`the report expands past ${limits.maxXmlBytes} bytes`);

async function bounded(work: Promise<Buffer>, limits: UnpackLimits): Promise<Buffer> {
  try {
    return await work;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) throw tooBig(limits);
    throw new UnpackError(`the attachment does not decompress (${(err as Error).message.slice(0, 100)})`);
  }
}


/**
 * The one entry of a zip archive, decompressed within the cap: yauzl reads the
 * archive's structure (and refuses what does not add up: sizes, offsets, names);
 * its entry's stream stops at the cap, whatever the entry declares.
 */
function unzipOne(zip: Buffer, limits: UnpackLimits): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, (openError, archive) => {
      if (openError || !archive) return reject(new UnpackError(`not a zip archive: ${openError?.message ?? "unreadable"}`));
      const fail = (err: Error) => {
        archive.close();
        reject(err instanceof UnpackError ? err : new UnpackError(`a broken zip: ${err.message}`));
      };
      if (archive.entryCount !== 1) return fail(new UnpackError(`a zip of ${archive.entryCount} entries (one .xml expected)`));
      archive.once("error", fail);
      archive.once("entry", (entry: yauzl.Entry) => {
        if (entry.isEncrypted()) return fail(new UnpackError("an encrypted zip"));
        if (entry.uncompressedSize > limits.maxXmlBytes) return fail(tooBig(limits));
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return fail(streamError ?? new UnpackError("the entry cannot be read"));
          const chunks: Buffer[] = [];
          let bytes = 0;
          stream.on("data", (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > limits.maxXmlBytes) {
              stream.destroy();
              return fail(tooBig(limits));
            }
            chunks.push(chunk);
          });
          stream.once("error", fail);
          stream.once("end", () => {
            archive.close();
            resolve(Buffer.concat(chunks));
          });
        });
      });
      archive.readEntry();
    });
  });
}

/** The XML of a report attachment, every size bounded. */
export async function unpackReport(kind: AttachmentKind, body: Buffer, limits: UnpackLimits = UNPACK_LIMITS): Promise<Buffer> {
  if (body.length > limits.maxCompressedBytes) throw new UnpackError(`the attachment is over ${limits.maxCompressedBytes} bytes`);
  if (kind === "gzip") return bounded(gunzipAsync(body, { maxOutputLength: limits.maxXmlBytes }), limits);
  if (kind === "zip") return unzipOne(body, limits);
  if (body.length > limits.maxXmlBytes) throw tooBig(limits);
  return body;
}
