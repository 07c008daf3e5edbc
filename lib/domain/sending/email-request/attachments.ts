import path from "node:path";

/** Attachment rules of docs/contract.md §5.12: strict base64, safe file names, MIME types. */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded byte length of strict base64, or undefined when `text` is not strict base64. */
export function strictBase64Length(text: string): number | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/** The name shown to the recipient: no directories, no control characters; "" when nothing usable remains. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex -- stripping control characters
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, "").trim();
  return clean === "." || clean === ".." ? "" : clean;
}

const TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\u0000-\\u001f]*"))*$`);

export function isMimeType(value: string): boolean {
  return MIME_TYPE.test(value.trim());
}

const BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  htm: "text/html",
  html: "text/html",
  ics: "text/calendar",
  json: "application/json",
  xml: "application/xml",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  "7z": "application/x-7z-compressed",
  rar: "application/vnd.rar",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  rtf: "application/rtf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  bmp: "image/bmp",
  ico: "image/vnd.microsoft.icon",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  eml: "message/rfc822",
};

/** The MIME type for a file name; application/octet-stream when unknown. */
export function inferMimeType(filename: string): string {
  const ext = path.extname(filename).slice(1).toLowerCase();
  return BY_EXTENSION[ext] ?? "application/octet-stream";
}
