import { describe, expect, it } from "vitest";
import { buildArfReport } from "./arf";
import { angleAddress, parseFieldGroups, parseReport, REPORT_READ_BYTES } from "./report-parser";

const original = Buffer.from(
  "From: a@example.com\r\nTo: Bob <complaint@example.org>\r\nSubject: Hi\r\nMessage-ID: <0f8fad5b-d9cb-469f-a165-70867728950e@example.com>\r\n\r\nbody\r\n",
);

describe("parseReport", () => {
  it("reads an ARF complaint built by buildArfReport", async () => {
    const arf = buildArfReport({
      original,
      originalMailFrom: "bounces+1-abc@bounces.example.com",
      originalRcptTo: "complaint@example.org",
      reporter: "fbl@example.org",
      to: "bounces+1-abc@bounces.example.com",
    });
    const r = await parseReport(arf);
    expect(r.kind).toBe("arf");
    expect(r.feedback).toMatchObject({ type: "abuse", originalRcptTo: "complaint@example.org", originalMailFrom: "bounces+1-abc@bounces.example.com" });
    expect(r.original.messageId).toBe("0f8fad5b-d9cb-469f-a165-70867728950e@example.com");
    expect(r.subject).toBe("FW: Hi");
  });

  it("reads a DSN with several recipients, folded fields and base64 headers part", async () => {
    const headers = Buffer.from(original.toString().split("\r\n\r\n")[0]!).toString("base64");
    const dsn = Buffer.from(
      [
        "From: MAILER-DAEMON@mx.example.org",
        "Subject: Undelivered",
        "MIME-Version: 1.0",
        'Content-Type: multipart/report; report-type=delivery-status;',
        '\tboundary="b1"',
        "",
        "--b1",
        "Content-Type: text/plain",
        "",
        "sorry",
        "--b1",
        "Content-Type: message/delivery-status",
        "",
        "Reporting-MTA: dns; mx.example.org",
        "",
        "Final-Recipient: rfc822; gone@example.org",
        "Action: failed",
        "Status: 5.1.1",
        "Diagnostic-Code: smtp; 550 5.1.1 <gone@example.org>:",
        "  User unknown",
        "",
        "Original-Recipient: rfc822;later@example.org",
        "Final-Recipient: rfc822;later@example.org",
        "Action: delayed",
        "Status: 4.4.1",
        "",
        "--b1",
        "Content-Type: text/rfc822-headers",
        "Content-Transfer-Encoding: base64",
        "",
        headers,
        "--b1--",
        "",
      ].join("\r\n"),
    );
    const r = await parseReport(dsn);
    expect(r.kind).toBe("dsn");
    expect(r.recipients).toEqual([
      { recipient: "gone@example.org", originalRecipient: "", action: "failed", status: "5.1.1", diagnostic: "550 5.1.1 <gone@example.org>: User unknown", remoteMta: "" },
      { recipient: "later@example.org", originalRecipient: "later@example.org", action: "delayed", status: "4.4.1", diagnostic: "", remoteMta: "" },
    ]);
    expect(r.original.messageId).toBe("0f8fad5b-d9cb-469f-a165-70867728950e@example.com");
  });

  it("says unknown for ordinary mail and garbage", async () => {
    expect((await parseReport(original)).kind).toBe("unknown");
    expect((await parseReport(Buffer.from("\u0000\u0001garbage"))).kind).toBe("unknown");
    expect((await parseReport(Buffer.alloc(0))).kind).toBe("unknown");
  });
});

describe("hostile reports are read in linear time", () => {
  const ms = (f: () => unknown) => {
    const t = performance.now();
    f();
    return performance.now() - t;
  };

  it("field lines of megabytes of white space, `<` runs in addresses, over-long boundaries", async () => {
    const n = 2_000_000;
    // Was quadratic: /^([A-Za-z0-9-]+)\s*:\s*(.*)$/ on `a:` + spaces + `\r` (690 ms at 20 KB).
    expect(ms(() => parseFieldGroups(`Action:${" ".repeat(n)}\rx\r\nStatus: 5.1.1`))).toBeLessThan(500);
    expect(parseFieldGroups("Action:  failed \r\nX-Y : z")[0]).toEqual(new Map([["action", "failed"], ["x-y", "z"]]));
    // Was quadratic: /<([^>]+)>/ on a run of `<` (1.5 s at 20 KB).
    expect(ms(() => angleAddress("<".repeat(n)))).toBeLessThan(200);
    expect(ms(() => angleAddress(`${"<>".repeat(n / 2)}<a@b>`))).toBeLessThan(200);
    expect(angleAddress("Ann <a@b.test>")).toBe("a@b.test");
    expect(angleAddress("<>x<a@b>")).toBe("a@b");
    expect(angleAddress("<<a>")).toBe("<a");
    const report = Buffer.from(
      `Content-Type: multipart/report; report-type=delivery-status; boundary="${"b".repeat(71)}"\r\n\r\n--${"b".repeat(71)}\r\nContent-Type: text/plain\r\n\r\nx\r\n`,
    );
    expect((await parseReport(report)).kind).toBe("unknown");
    const hostile = Buffer.from(`Content-Type: multipart/report; boundary=b\r\n\r\n--b\r\nContent-Type: message/rfc822\r\n\r\nTo: ${"<".repeat(n)}\r\n\r\n--b--\r\n`);
    expect(ms(() => void parseReport(hostile))).toBeLessThan(1000);
  });

  it("reads only a report's first REPORT_READ_BYTES: a 10 MB returned original costs no more than its header", async () => {
    const dsn = (firstPart: string, returned: string) =>
      Buffer.from(
        [
          "Content-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"",
          "",
          "--b1",
          "Content-Type: text/plain",
          "",
          firstPart,
          "--b1",
          "Content-Type: message/delivery-status",
          "",
          "Reporting-MTA: dns; mx.example.org",
          "",
          "Final-Recipient: rfc822; gone@example.org",
          "Action: failed",
          "Status: 5.1.1",
          "",
          "--b1",
          "Content-Type: message/rfc822",
          "",
          `${original.toString().split("\r\n\r\n")[0]}\r\n\r\n${returned}`,
          "--b1--",
          "",
        ].join("\r\n"),
      );
    const big = await parseReport(dsn("sorry", "x".repeat(10 * 1024 * 1024)));
    expect(big.kind).toBe("dsn");
    expect(big.recipients.map((r) => [r.recipient, r.status])).toEqual([["gone@example.org", "5.1.1"]]);
    expect(big.original.messageId).toBe("0f8fad5b-d9cb-469f-a165-70867728950e@example.com");
    // Its status part past the prefix: not read at all (the bound is real, not a timing).
    expect((await parseReport(dsn("y".repeat(REPORT_READ_BYTES), "body"))).kind).toBe("unknown");
  });
});
