import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { reportMail, zipOne } from "../../test/support/dmarc-reports";
import { findReportAttachment, isDmarcAddress } from "./dmarc-report";

const XML = "<feedback/>";

describe("findReportAttachment", () => {
  it("takes Google's shape: the message is the zip, base64", () => {
    const zip = zipOne("r.xml", Buffer.from(XML));
    const raw = Buffer.from(
      ["From: noreply-dmarc-support@google.com", "To: dmarc@bounces.shop.test", "MIME-Version: 1.0", 'Content-Type: application/zip; name="google.com!shop.test!1!2.zip"', "Content-Transfer-Encoding: base64", "", zip.toString("base64"), ""].join("\r\n"),
    );
    expect(findReportAttachment(raw)).toEqual({ kind: "zip", body: zip });
  });

  it("takes the attachment of a multipart/mixed message, decoded once", () => {
    const gz = gzipSync(XML);
    expect(findReportAttachment(reportMail({ to: "dmarc@x.test", attachment: gz, contentType: "application/gzip", filename: "r.xml.gz" }))).toEqual({ kind: "gzip", body: gz });
  });

  it("looks one multipart level further down, and finds nothing in a message without a report", () => {
    const inner = reportMail({ to: "dmarc@x.test", attachment: Buffer.from(XML), contentType: "text/xml", filename: "r.xml" }).toString();
    const innerHead = 'Content-Type: multipart/mixed; boundary="dmarc-fixture-boundary"';
    const innerBody = inner.slice(inner.indexOf("\r\n\r\n") + 4);
    const outer = Buffer.from(["MIME-Version: 1.0", 'Content-Type: multipart/related; boundary="outer"', "", "--outer", innerHead, "", innerBody, "--outer--", ""].join("\r\n"));
    expect(findReportAttachment(outer)?.body.toString()).toBe(XML);
    expect(findReportAttachment(Buffer.from("Subject: hi\r\n\r\nno report here\r\n"))).toBeUndefined();
  });

  it("knows the report address by its local part", () => {
    expect(isDmarcAddress("DMARC@bounces.shop.test")).toBe(true);
    expect(isDmarcAddress("dmarc+x@bounces.shop.test")).toBe(false);
    expect(isDmarcAddress("bounces+abc@bounces.shop.test")).toBe(false);
  });
});
