import { dkimSign } from "mailauth";
import { describe, expect, it } from "vitest";
import { testDkimKey, testDkimResolver } from "../../../test/support/dkim-test-key";
import { authenticationOf, selectSignatures, verdicts, type AuthenticationInput } from "./authentication";

const envelope = { mailFrom: "", remoteIp: "", helo: "" };

/** DNS of the test: the DKIM key of example.com, DMARC p=reject for example.com and victim.example. */
async function dns(name: string, rrtype: string): Promise<string[][]> {
  if (rrtype === "TXT" && (name === "_dmarc.example.com" || name === "_dmarc.victim.example")) return [["v=DMARC1; p=reject"]];
  return testDkimResolver(name, rrtype);
}

const key = { signingDomain: testDkimKey.domainName, selector: testDkimKey.keySelector, privateKey: testDkimKey.privateKey };

async function signed(head: string, body = "Hello.\r\n"): Promise<Buffer> {
  const message = `${head}To: support@a-mail.example\r\nSubject: Hi\r\n\r\n${body}`;
  const { signatures } = await dkimSign(message, { ...key, signatureData: [key] });
  return Buffer.from(signatures + message);
}

const input = (raw: Buffer): AuthenticationInput => ({ raw, envelope, resolver: dns, mta: "mx.test" });

function signatureField(d: string, i: number): string {
  return `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${d}; s=s${i};\r\n l=${i}; h=from; bh=AAAA; b=BBBB`;
}

describe("selectSignatures", () => {
  it("keeps a message of at most 10 signatures as it is", () => {
    const raw = Buffer.from(`${signatureField("example.org", 1)}\r\nFrom: a@example.org\r\n\r\nbody\r\n`);
    expect(selectSignatures(raw)).toEqual({ message: raw, fromFields: 1, signatures: 1, verified: 1 });
  });

  it("keeps 10 of many signatures, those aligned with From first, the rest of the message byte for byte", () => {
    const others = Array.from({ length: 30 }, (_, i) => signatureField(`other${i}.example`, i));
    const aligned = [signatureField("mail.example.org", 100), signatureField("EXAMPLE.org", 101)];
    const head = `Received: from x\r\n${[...others, ...aligned].join("\r\n")}\r\nFrom: "A" <a@example.org>\r\nSubject: s\r\n\r\n`;
    const body = "body\r\n\r\nmore\r\n";
    const selection = selectSignatures(Buffer.from(head + body))!;
    expect(selection).toMatchObject({ fromFields: 1, signatures: 32, verified: 10 });
    const text = selection.message.toString("binary");
    const kept = [...others.slice(0, 8), ...aligned];
    expect(text).toBe(`Received: from x\r\n${kept.join("\r\n")}\r\nFrom: "A" <a@example.org>\r\nSubject: s\r\n\r\n${body}`);
  });

  it("counts the From fields; a header block over the bound is not read", () => {
    const two = Buffer.from("From: a@example.org\r\nFrom: b@victim.example\r\n\r\nx\r\n");
    expect(selectSignatures(two)?.fromFields).toBe(2);
    expect(selectSignatures(Buffer.from("Subject: none\r\n\r\nx\r\n"))?.fromFields).toBe(0);
    expect(selectSignatures(Buffer.from(`X: ${"y".repeat(600 * 1024)}\r\n\r\nx`))).toBeUndefined();
  });
});

describe("verdicts", () => {
  const v = (dkim: { result: string; aligned: boolean }[], fromAddresses = 1) => ({ spf: "pass", dkim, fromAddresses, dmarc: "pass" });
  it("passes DKIM only for an aligned signature; an unaligned pass is policy", () => {
    expect(verdicts(v([{ result: "fail", aligned: false }, { result: "pass", aligned: true }]), 1, true)).toEqual({ SPF: "pass", DKIM: "pass", DMARC: "pass" });
    expect(verdicts(v([{ result: "pass", aligned: false }]), 1, true).DKIM).toBe("policy");
    expect(verdicts(v([{ result: "neutral", aligned: false }, { result: "fail", aligned: true }]), 1, true).DKIM).toBe("fail");
    expect(verdicts(v([{ result: "none", aligned: false }]), 1, false)).toEqual({ SPF: "none", DKIM: "none", DMARC: "pass" });
  });
  it("is permerror for DMARC unless one From field holds one address, and then nothing aligns", () => {
    expect(verdicts(v([{ result: "pass", aligned: true }], 2), 2, true)).toMatchObject({ DKIM: "policy", DMARC: "permerror" });
    expect(verdicts(v([{ result: "pass", aligned: true }], 2), 1, true)).toMatchObject({ DKIM: "policy", DMARC: "permerror" });
    expect(verdicts(v([], 0), 0, true)).toMatchObject({ DKIM: "none", DMARC: "permerror" });
  });
});

describe("authenticationOf", () => {
  it("passes a message signed by its From domain, on the event loop and on a worker", async () => {
    const raw = await signed("From: a@example.com\r\n");
    expect(await authenticationOf(input(raw))).toEqual({ SPF: "none", DKIM: "pass", DMARC: "pass" });
    expect(await authenticationOf(input(raw), { workerMinBytes: 0 })).toEqual({ SPF: "none", DKIM: "pass", DMARC: "pass" });
  });

  it("does not make a signature of another domain, or a second From, look authenticated", async () => {
    expect(await authenticationOf(input(await signed("From: ceo@victim.example\r\n")))).toMatchObject({ DKIM: "policy", DMARC: "fail" });
    const twoFroms = await signed("From: a@example.com\r\nFrom: ceo@victim.example\r\n");
    expect(await authenticationOf(input(twoFroms))).toMatchObject({ DKIM: "policy", DMARC: "permerror" });
  });

  it("verifies the aligned signature among 60 others", async () => {
    const others = Array.from({ length: 60 }, (_, i) => signatureField(`other${i}.example`, i)).join("\r\n");
    const raw = await signed("From: a@example.com\r\n");
    expect(await authenticationOf(input(Buffer.concat([Buffer.from(`${others}\r\n`), raw])))).toMatchObject({ DKIM: "pass", DMARC: "pass" });
  });

  it("stops a worker over its CPU budget or past its deadline (temperror), and the next message is authenticated", async () => {
    const body = `${"x".repeat(998)}\r\n`.repeat(10 * 1024);
    const sigs = Array.from({ length: 10 }, (_, i) => signatureField(`s${i}.example`, body.length - i).replace("relaxed/relaxed", `relaxed/${i % 2 ? "relaxed" : "simple"}`));
    const heavy = Buffer.from(`${sigs.join("\r\n")}\r\nFrom: a@example.com\r\n\r\n${body}`);
    const before = process.cpuUsage();
    expect(await authenticationOf(input(heavy), { workerMinBytes: 0, cpuBudgetMs: 30 })).toEqual({ SPF: "temperror", DKIM: "temperror", DMARC: "temperror" });
    // The work was stopped, not left running: this process (every thread) then stays idle.
    await new Promise((r) => setTimeout(r, 500));
    const cpu = process.cpuUsage(before);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(300);

    const never = () => new Promise<string[][]>(() => {});
    const hanging: AuthenticationInput = { ...input(await signed("From: a@example.com\r\n")), resolver: never };
    expect(await authenticationOf(hanging, { workerMinBytes: 0, deadlineMs: 300 })).toEqual({ SPF: "temperror", DKIM: "temperror", DMARC: "temperror" });
    expect(await authenticationOf(input(await signed("From: a@example.com\r\n")), { workerMinBytes: 0 })).toMatchObject({ DKIM: "pass" });
  });
});
