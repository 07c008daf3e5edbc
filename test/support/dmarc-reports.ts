import { crc32, deflateRawSync, gzipSync } from "node:zlib";

/**
 * DMARC aggregate reports as Google and Yahoo send them (RFC 7489 Appendix C's
 * schema), their zip and gzip attachments, and the mail that carries them, for
 * the parser's unit tests and the inbound integration tests.
 */

export interface FixtureRecord {
  ip: string;
  count: number;
  disposition?: "none" | "quarantine" | "reject";
  dkim?: "pass" | "fail";
  spf?: "pass" | "fail";
}

export function aggregateReportXml(o: { domain: string; reportId: string; org?: string; email?: string; begin?: number; records: FixtureRecord[] }): string {
  const begin = o.begin ?? Math.floor(Date.now() / 1000) - 3600;
  const records = o.records
    .map(
      (r) => `  <record>
    <row>
      <source_ip>${r.ip}</source_ip>
      <count>${r.count}</count>
      <policy_evaluated>
        <disposition>${r.disposition ?? "none"}</disposition>
        <dkim>${r.dkim ?? "pass"}</dkim>
        <spf>${r.spf ?? "pass"}</spf>
      </policy_evaluated>
    </row>
    <identifiers>
      <header_from>${o.domain}</header_from>
    </identifiers>
    <auth_results>
      <dkim>
        <domain>${o.domain}</domain>
        <result>${r.dkim ?? "pass"}</result>
        <selector>mr1</selector>
      </dkim>
      <spf>
        <domain>bounces.${o.domain}</domain>
        <result>${r.spf ?? "pass"}</result>
      </spf>
    </auth_results>
  </record>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>${o.org ?? "google.com"}</org_name>
    <email>${o.email ?? "noreply-dmarc-support@google.com"}</email>
    <extra_contact_info>https://support.google.com/a/answer/2466580</extra_contact_info>
    <report_id>${o.reportId}</report_id>
    <date_range>
      <begin>${begin}</begin>
      <end>${begin + 86399}</end>
    </date_range>
  </report_metadata>
  <policy_published>
    <domain>${o.domain}</domain>
    <adkim>r</adkim>
    <aspf>r</aspf>
    <p>none</p>
    <sp>none</sp>
    <pct>100</pct>
    <np>none</np>
  </policy_published>
${records}
</feedback>
`;
}

/** A zip archive of one deflated entry (APPNOTE 4.3: local header, data, central directory, end record). */
export function zipOne(name: string, content: Buffer): Buffer {
  const data = deflateRawSync(content);
  const nameBytes = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const centralAt = local.length + nameBytes.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

export const gzipOf = (content: string | Buffer) => gzipSync(content);

/** The mail a reporter sends: a text part and the attachment, base64 (Yahoo's and Microsoft's shape; Google's is the attachment alone). */
export function reportMail(o: { to: string; from?: string; attachment: Buffer; contentType: string; filename: string }): Buffer {
  const boundary = "dmarc-fixture-boundary";
  const b64 = o.attachment.toString("base64").replace(/.{76}/g, "$&\r\n");
  return Buffer.from(
    [
      `From: ${o.from ?? "noreply-dmarc-support@google.com"}`,
      `To: ${o.to}`,
      "Subject: Report domain: example.com Submitter: google.com",
      "MIME-Version: 1.0",
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      "",
      `--${boundary}`,
      "Content-Type: text/plain; charset=us-ascii",
      "",
      "This is an aggregate report.",
      `--${boundary}`,
      `Content-Type: ${o.contentType}; name="${o.filename}"`,
      `Content-Disposition: attachment; filename="${o.filename}"`,
      "Content-Transfer-Encoding: base64",
      "",
      b64,
      `--${boundary}--`,
      "",
    ].join("\r\n"),
  );
}
