import { promisify } from "node:util";
import { gunzip, inflateRaw } from "node:zlib";

/**
 * A report attachment's XML (docs/adr/0809): `application/gzip` (.xml.gz),
 * `application/zip` (.zip holding one .xml) or plain XML. Decompression is
 * zlib's, on libuv's thread pool (off the event loop), with `maxOutputLength`
 * so that a bomb stops at the cap instead of filling memory. The zip's
 * structure is read from its central directory by fixed offsets (APPNOTE
 * 4.3), one entry, stored or deflated, nothing else.
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
const inflateRawAsync = promisify(inflateRaw);

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

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** End of central directory: 22 bytes and a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

/** The one entry of a zip archive, decompressed within the cap. */
async function unzipOne(zip: Buffer, limits: UnpackLimits): Promise<Buffer> {
  let eocd = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - EOCD_SEARCH); at--) {
    if (zip.readUInt32LE(at) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new UnpackError("not a zip archive");
  const entries = zip.readUInt16LE(eocd + 10);
  const centralAt = zip.readUInt32LE(eocd + 16);
  if (entries !== 1) throw new UnpackError(`a zip of ${entries} entries (one .xml expected)`);
  if (centralAt + 46 > zip.length || zip.readUInt32LE(centralAt) !== CENTRAL_SIGNATURE) throw new UnpackError("a zip without its central directory");
  const flags = zip.readUInt16LE(centralAt + 8);
  const method = zip.readUInt16LE(centralAt + 10);
  const compressedSize = zip.readUInt32LE(centralAt + 20);
  const size = zip.readUInt32LE(centralAt + 24);
  const localAt = zip.readUInt32LE(centralAt + 42);
  if (flags & 1) throw new UnpackError("an encrypted zip");
  if (size > limits.maxXmlBytes) throw tooBig(limits);
  if (localAt + 30 > zip.length || zip.readUInt32LE(localAt) !== LOCAL_SIGNATURE) throw new UnpackError("a zip entry without its local header");
  const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
  if (dataAt + compressedSize > zip.length) throw new UnpackError("a truncated zip");
  const data = zip.subarray(dataAt, dataAt + compressedSize);
  if (method === 0) return data;
  if (method !== 8) throw new UnpackError(`a zip entry compressed by method ${method} (stored or deflate expected)`);
  // The declared size is not trusted: the cap holds whatever the entry really expands to.
  return bounded(inflateRawAsync(data, { maxOutputLength: limits.maxXmlBytes }), limits);
}

/** The XML of a report attachment, every size bounded. */
export async function unpackReport(kind: AttachmentKind, body: Buffer, limits: UnpackLimits = UNPACK_LIMITS): Promise<Buffer> {
  if (body.length > limits.maxCompressedBytes) throw new UnpackError(`the attachment is over ${limits.maxCompressedBytes} bytes`);
  if (kind === "gzip") return bounded(gunzipAsync(body, { maxOutputLength: limits.maxXmlBytes }), limits);
  if (kind === "zip") return unzipOne(body, limits);
  if (body.length > limits.maxXmlBytes) throw tooBig(limits);
  return body;
}
