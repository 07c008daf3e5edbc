import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { composeMessage } from "./build-message";
import { createCopyTemplate, templateApplies } from "./message-template";
import { parseMessageContent } from "../domain/sending/email-request/message-content";
import { testDkimKey, testDkimResolver } from "../../test/support/dkim-test-key";

const privateKey = testDkimKey.privateKey;
const resolver = testDkimResolver;

const content = parseMessageContent({
  from: { name: "Shop – ü", email: "shop@example.com" },
  to: [{ name: "Ann", email: "ann@example.org" }, { name: "", email: "bob@example.org" }],
  subject: "Spring sale – ünïcode",
  html: "<p>placeholder: each copy brings its own</p>",
  text: "Hello",
  attachments: [{ content: Buffer.from("a,b\n1,2\n").toString("base64"), filename: "data.csv", type: "text/csv", disposition: "attachment" }],
  headers: { "X-Campaign": "spring" },
  tags: ["news"],
});
const base = { messageId: "0f8fad5b-d9cb-469f-a165-70867728950e", fromDomain: "example.com", date: new Date("2026-03-01T10:00:00Z"), content };
/** nodemailer's boundaries are random per composition: compared without them. */
const withoutBoundaries = (b: Buffer) => b.toString("latin1").replace(/_NmP-[0-9a-f]+-Part_/g, "_NmP-x-Part_");

describe("createCopyTemplate", () => {
  it.each([
    ["7bit", '<p>Hi <a href="https://x.test/t/c/abc">a</a></p>\n<p>two lines</p>\n'],
    ["quoted-printable", `<p>${"Lorem ipsum dolor ünï ".repeat(30)}<a href="https://x.test/t/c/abc">a</a></p>`],
    ["base64", `<p>${"中文".repeat(300)}</p>`],
  ])("gives the bytes nodemailer composes for the whole copy (%s HTML part)", async (encoding, html) => {
    const unsubscribe = { url: "https://mail.test/t/u/tok", mailto: "unsubscribe+1-abc@bounces.example.com" };
    const whole = await composeMessage({ ...base, html, unsubscribe });
    const copy = await (await createCopyTemplate({ ...base, hasUnsubscribe: true })).build({ html: ["", html], unsubscribe });
    expect(whole.toString("latin1")).toContain(`Content-Transfer-Encoding: ${encoding}`);
    expect(withoutBoundaries(copy)).toBe(withoutBoundaries(whole));
  });

  it("two recipients of one message: each copy has its own tokens, its own signature, and both verify", async () => {
    const template = await createCopyTemplate({ ...base, hasUnsubscribe: true, dkim: { domainName: "example.com", keySelector: "mailroom", privateKey } });
    const copyOf = (n: number) =>
      template.build({
        html: ['<p>Hi <a href="https://mail.test/t/c/click-', String(n), '">sale</a></p><img src="https://mail.test/t/o/open-', String(n), '">'],
        unsubscribe: { url: `https://mail.test/t/u/unsub-${n}`, mailto: `unsubscribe+${n}-abc@bounces.example.com` },
      });
    const [one, two] = await Promise.all([copyOf(1), copyOf(2)]);
    for (const [raw, n, other] of [
      [one, 1, 2],
      [two, 2, 1],
    ] as const) {
      const text = raw.toString("utf8");
      const head = text.slice(0, text.indexOf("\r\n\r\n"));
      expect(head).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256;/);
      expect(head).toContain(`List-Unsubscribe: <https://mail.test/t/u/unsub-${n}>, <mailto:unsubscribe+${n}-abc@bounces.example.com?subject=unsubscribe>`);
      expect(text).not.toContain(`unsub-${other}`);
      const parsed = await simpleParser(raw);
      expect(parsed.html).toBe(`<p>Hi <a href="https://mail.test/t/c/click-${n}">sale</a></p><img src="https://mail.test/t/o/open-${n}">`);
      expect(parsed.text?.trim()).toBe("Hello");
      expect(parsed.subject).toBe("Spring sale – ünïcode");
      expect(parsed.attachments[0]?.content.toString()).toBe("a,b\n1,2\n");
      const result = await dkimVerify(raw, { resolver });
      expect(result.results[0]?.status.result).toBe("pass");
    }
    const signature = (raw: Buffer) => /\bb=([^;]+)$/m.exec(raw.toString("latin1").split("\r\n\r\n")[0]!.replace(/\r\n /g, ""))?.[1];
    expect(signature(one)).not.toBe(signature(two));
  });

  it("a 10 MB attachment: composed once, each copy built and signed without a long turn, and it verifies", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 0x5a);
    const withAttachment = parseMessageContent({ ...rawContent(), attachments: [{ content: big.toString("base64"), filename: "big.bin", type: "application/octet-stream" }] });
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const template = await createCopyTemplate({ ...base, content: withAttachment, hasUnsubscribe: true, dkim: { domainName: "example.com", keySelector: "mailroom", privateKey } });
    const copies = [];
    for (const n of [1, 2]) copies.push(await template.build({ html: `<p>copy ${n}</p>`, unsubscribe: { url: `https://mail.test/t/u/${n}` } }));
    h.disable();
    expect(h.max / 1e6).toBeLessThan(200);
    for (const [i, raw] of copies.entries()) {
      expect((await dkimVerify(raw, { resolver })).results[0]?.status.result).toBe("pass");
      const parsed = await simpleParser(raw);
      expect(parsed.html).toBe(`<p>copy ${i + 1}</p>`);
      expect(parsed.attachments[0]?.content.equals(big)).toBe(true);
    }
  }, 60_000);

  it("applies to an HTML body that is a child part, small enough to compose in one go", () => {
    expect(templateApplies(content)).toBe(true);
    expect(templateApplies(parseMessageContent({ ...rawContent(), text: undefined }))).toBe(false); // the HTML part is the whole message
    expect(templateApplies(parseMessageContent({ ...rawContent(), html: undefined }))).toBe(false);
    expect(templateApplies(parseMessageContent({ ...rawContent(), html: "x".repeat(40_000) }))).toBe(false);
  });
});

function rawContent() {
  return { from: { name: "", email: "shop@example.com" }, to: [{ name: "", email: "ann@example.org" }], subject: "s", html: "<p>h</p>", text: "t" };
}
