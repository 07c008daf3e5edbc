import { dkimVerify } from "mailauth/lib/dkim/verify";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { buildMessage } from "./build-message";
import { parseMessageContent } from "../domain/sending/email-request/message-content";
import { testDkimKey, testDkimResolver } from "../../test/support/dkim-test-key";

const privateKey = testDkimKey.privateKey;
const resolver = testDkimResolver;

const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

describe("buildMessage", () => {
  it("writes the headers, parts and a DKIM signature that verifies", async () => {
    const content = parseMessageContent({
      from: { name: "Shop", email: "shop@example.com" },
      to: [{ name: "Ann Example", email: "ann@example.org" }],
      cc: [{ name: "", email: "cc@example.org" }],
      bcc: [{ name: "Hidden", email: "secret@example.org" }],
      replyTo: [{ name: "Help", email: "help@example.com" }],
      subject: "Your order – ünïcode",
      html: '<p>Hello <img src="cid:logo"></p>',
      text: "Hello",
      attachments: [
        { content: png.toString("base64"), filename: "logo.png", type: "image/png", disposition: "inline", contentId: "logo" },
        { content: Buffer.from("a,b\n1,2\n").toString("base64"), filename: "data.csv", type: "text/csv", disposition: "attachment" },
      ],
      headers: { "X-Campaign": "spring", "X-Mailroom-Track": "none" },
      tags: ["orders", "eu"],
    });
    const raw = await buildMessage({
      messageId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      fromDomain: "example.com",
      date: new Date("2026-03-01T10:00:00Z"),
      content,
      unsubscribe: { url: "https://mail.test/t/u/tok", mailto: "unsubscribe+1-abc@bounces.example.com" },
      dkim: { domainName: "example.com", keySelector: "mailroom", privateKey },
    });
    const text = raw.toString("utf8");
    const head = text.slice(0, text.indexOf("\r\n\r\n"));
    expect(head).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=example.com;/);
    expect(head).toContain("Message-ID: <0f8fad5b-d9cb-469f-a165-70867728950e@example.com>");
    expect(head).toContain("List-Unsubscribe: <https://mail.test/t/u/tok>, <mailto:unsubscribe+1-abc@bounces.example.com?subject=unsubscribe>");
    expect(head).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(head).toContain("X-Mailroom-Tags: orders, eu");
    expect(head).toContain("X-Campaign: spring");
    expect(head).not.toMatch(/^Bcc:/im);
    expect(text).not.toContain("secret@example.org");
    expect(head).not.toMatch(/X-Mailroom-Track/i);

    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe("Your order – ünïcode");
    expect(parsed.cc && !Array.isArray(parsed.cc) && parsed.cc.value[0]?.address).toBe("cc@example.org");
    expect(parsed.replyTo?.value[0]?.address).toBe("help@example.com");
    expect(parsed.text?.trim()).toBe("Hello");
    const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
    expect(logo.contentId).toBe("<logo>");
    expect(logo.content.equals(png)).toBe(true);
    expect(parsed.attachments.find((a) => a.filename === "data.csv")!.content.toString()).toBe("a,b\n1,2\n");

    const result = await dkimVerify(raw, { resolver });
    expect(result.results[0]?.status.result).toBe("pass");
  });

  it("streams large bodies in chunks (base64), byte for byte, with a DKIM signature that verifies and no long turn", async () => {
    const html = ["<p>", "日本語 ".repeat(40_000), "😀".repeat(30_000), "</p>", "x".repeat(70_000)];
    const text = `Plain ${"é".repeat(100_000)} 😀 end`;
    const content = parseMessageContent({
      from: { name: "", email: "shop@example.com" },
      to: [{ name: "", email: "ann@example.org" }],
      subject: "Large",
      html: html.join(""),
      text,
    });
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const raw = await buildMessage({
      messageId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      fromDomain: "example.com",
      date: new Date("2026-03-01T10:00:00Z"),
      content,
      html,
      dkim: { domainName: "example.com", keySelector: "mailroom", privateKey },
    });
    h.disable();
    expect(h.max / 1e6).toBeLessThan(200);
    expect(raw.toString("latin1")).toMatch(/Content-Transfer-Encoding: base64/);
    const parsed = await simpleParser(raw);
    expect(parsed.html).toBe(html.join(""));
    expect(parsed.text).toBe(text);
    const result = await dkimVerify(raw, { resolver });
    expect(result.results[0]?.status.result).toBe("pass");
  });
});
