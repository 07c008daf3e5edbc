import { describe, expect, it } from "vitest";
import { parseRuaUri, parseTlsRptRecords, RECORD_BOUNDS } from "./tlsrpt-record";

describe("the _smtp._tls record (RFC 8460 §3)", () => {
  it("reads mailto: and https: URIs, with spaces around the delimiters", () => {
    const r = parseTlsRptRecords(["v=TLSRPTv1 ; rua=mailto:TLSRPT@Reports.Example , https://reports.example/tlsrpt?x=1 ;"]);
    expect(r).toEqual({
      ok: true,
      ignored: [],
      ruas: [
        { kind: "mailto", address: "TLSRPT@reports.example", uri: "mailto:TLSRPT@Reports.Example" },
        { kind: "https", url: "https://reports.example/tlsrpt?x=1", uri: "https://reports.example/tlsrpt?x=1" },
      ],
    });
  });

  it("decodes a mailto:'s %-encoding and drops its query; an https URI keeps its %-encoded commas", () => {
    const r = parseTlsRptRecords(["v=TLSRPTv1;rua=mailto:tls%2Brpt@example.test?subject=x,https://r.example/a%2Cb%3Bc"]);
    expect(r.ok && r.ruas).toEqual([
      { kind: "mailto", address: "tls+rpt@example.test", uri: "mailto:tls%2Brpt@example.test?subject=x" },
      { kind: "https", url: "https://r.example/a%2Cb%3Bc", uri: "https://r.example/a%2Cb%3Bc" },
    ]);
  });

  it("ignores other TXT records and unknown fields; none or two TLS-RPT records is none", () => {
    expect(parseTlsRptRecords(["v=spf1 -all", "v=TLSRPTv1; ext=1; rua=mailto:a@b.test"]).ok).toBe(true);
    expect(parseTlsRptRecords(["v=spf1 -all"])).toEqual({ ok: false, reason: "no v=TLSRPTv1 record" });
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=mailto:a@b.test", "v=TLSRPTv1; rua=mailto:c@d.test"]).ok).toBe(false);
    expect(parseTlsRptRecords(["v=TLSRPTv10; rua=mailto:a@b.test"]).ok).toBe(false);
    expect(parseTlsRptRecords(["v=tlsrptv1; rua=mailto:a@b.test"]).ok).toBe(false);
    expect(parseTlsRptRecords(["v=TLSRPTv1"])).toEqual({ ok: false, reason: "no rua field" });
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=mailto:a@b.test; rua=mailto:c@d.test"]).ok).toBe(false);
  });

  it("skips unusable URIs, and has none when none is usable", () => {
    const r = parseTlsRptRecords(["v=TLSRPTv1; rua=ftp://x.test/,mailto:nobody,mailto:ok@x.test"]);
    expect(r.ok && r.ruas.map((x) => x.uri)).toEqual(["mailto:ok@x.test"]);
    expect(r.ok && r.ignored).toHaveLength(2);
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=http://x.test/"]).ok).toBe(false);
    expect(parseTlsRptRecords(["v=TLSRPTv1; rua=http://x.test/"], { allowHttp: true }).ok).toBe(true);
  });

  it("refuses what is past its bounds before reading it", () => {
    expect(parseTlsRptRecords([`v=TLSRPTv1; rua=mailto:a@b.test; x=${"y".repeat(RECORD_BOUNDS.recordChars)}`]).ok).toBe(false);
    const many = Array.from({ length: 20 }, (_, i) => `mailto:r${i}@x.test`).join(",");
    const r = parseTlsRptRecords([`v=TLSRPTv1; rua=${many}`]);
    expect(r.ok && r.ruas).toHaveLength(RECORD_BOUNDS.ruas);
    expect(parseRuaUri(`https://x.test/${"a".repeat(RECORD_BOUNDS.uriChars)}`)).toEqual({ error: "URI too long" });
    expect(parseRuaUri("mailto:a%ZZ@x.test")).toEqual({ error: "mailto: with a bad %-encoding" });
    expect(parseRuaUri("mailto:a b@x.test")).toMatchObject({ error: expect.any(String) });
    expect(parseRuaUri("mailto:a%40b@x.test")).toMatchObject({ error: "mailto: without one address" });
  });
});
